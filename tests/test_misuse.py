"""Misuse of tasks and commands : each mistake gets one line that names the
argument, before any sample runs, and a non-zero exit; nothing is silently done instead."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from inspect_ai import eval, score
from inspect_ai.log import read_eval_log

from selfdx.analysis.judge_agreement import agreement, annotation_sample, read_judge_labels
from selfdx.analysis.logs import find_runs
from selfdx.cli import main
from selfdx.errors import ArgumentError, SelfdxError
from selfdx.scorers.mentalbench.scorer import mentalbench_scorer
from selfdx.scorers.safe_psych.scorer import safe_psych_scorer
from selfdx.solvers.safe_psych.trace import SafePsychTrace
from tests.conftest import REPO_ROOT

JUDGE = {"grader": "selfdx/rules-judge"}
RUN = {"display": "none", "limit": 3}


@pytest.fixture(scope="module")
def safe_psych_log(tmp_path_factory):
    folder = tmp_path_factory.mktemp("sp")
    (log,) = eval(
        "selfdx/safe_psych",
        model="selfdx/keyword",
        model_roles=JUDGE,
        log_dir=str(folder),
        limit=6,
        display="none",
    )
    assert log.status == "success"
    return log


@pytest.fixture(scope="module")
def mentalbench_log(tmp_path_factory):
    folder = tmp_path_factory.mktemp("mb")
    (log,) = eval(
        "selfdx/mentalbench",
        model="selfdx/first-option",
        log_dir=str(folder),
        limit=3,
        display="none",
    )
    assert log.status == "success"
    return log


@pytest.mark.parametrize(
    ("task", "arguments", "message"),
    [
        (
            "safe_psych",
            {"judge_attempts": "abc"},
            "judge_attempts: expected a whole number >= 1, got 'abc'",
        ),
        (
            "safe_psych",
            {"judge_max_tokens": 0},
            "judge_max_tokens: expected a whole number >= 1, got 0",
        ),
        (
            "safe_psych",
            {"judge_cache": "maybe"},
            "judge_cache: expected true or false, got 'maybe'",
        ),
        ("safe_psych", {"data": None}, "data: expected 'hf', 'demo' or the path"),
        ("safe_psych", {"data": "  "}, "data: expected 'hf', 'demo' or the path"),
        (
            "safe_psych",
            {"strategy": "ask_first"},
            "strategy: expected one of full_info_no_abstention, full_info_abstention_aware, "
            "sequential_info_neutral_prompting, sequential_info_abstention_aware, "
            "structured_actions, got 'ask_first'",
        ),
        ("safe_psych", {"scorers": "caution,style"}, "scorers: unknown 'style'"),
        ("safe_psych", {"revision": ""}, "revision: expected a Hub revision"),
        ("mentalbench", {"types": None}, "types: expected 1, 2, 3, 4, 4a or 4b"),
        ("mentalbench", {"types": ""}, "types: expected 1, 2, 3, 4, 4a or 4b"),
        ("mentalbench", {"types": "4c"}, "types: '4c' is not a MentalBench type"),
        ("mentalbench", {"data": None}, "data: expected 'hf', 'demo', a resources/ folder"),
        ("mentalbench", {"seed": 1.5}, "seed: expected an integer, got 1.5"),
        ("mentalbench", {"seed": True}, "seed: expected an integer, got True"),
        (
            "mentalbench",
            {"parser": "loose"},
            "parser: expected one of strict, reference, got 'loose'",
        ),
        (
            "mentalbench",
            {"answer_format": "words"},
            "answer_format: expected one of letters, free_text, got 'words'",
        ),
        ("mentalbench", {"include_truncated": "yes"}, "include_truncated: expected true or false"),
        ("mentalbench", {"revision": "v2"}, "revision: 'v2' applies to data=hf only (data='demo'"),
        ("safe_psych", {"revision": "v2"}, "revision: 'v2' applies to data=hf only (data='demo'"),
    ],
)
def test_wrong_task_arguments_name_the_argument(task, arguments, message, tmp_path):
    model = "selfdx/keyword" if task == "safe_psych" else "selfdx/first-option"
    with pytest.raises(ArgumentError) as error:
        eval(
            f"selfdx/{task}",
            task_args=arguments,
            model=model,
            model_roles=JUDGE,
            log_dir=str(tmp_path),
            **RUN,
        )
    assert str(error.value).startswith(message), str(error.value)
    assert not list(tmp_path.iterdir())  # stopped before any log was started


def inspect_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "inspect_ai", *args, "--log-dir", str(cwd / "logs")],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
    )


def test_the_cli_prints_one_line_and_exits_non_zero(tmp_path):
    result = inspect_cli(
        "eval",
        "selfdx/safe_psych",
        "--model",
        "selfdx/keyword",
        "--model-role",
        "grader=selfdx/rules-judge",
        "-T",
        "judge_attempts=abc",
        cwd=tmp_path,
    )
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert "Traceback" not in output
    assert "selfdx: judge_attempts: expected a whole number >= 1, got 'abc'" in output
    assert not (tmp_path / "logs").exists()


def test_a_missing_grader_is_caught_before_any_sample_runs(tmp_path):
    result = inspect_cli("eval", "selfdx/safe_psych", "--model", "selfdx/keyword", cwd=tmp_path)
    output = " ".join((result.stdout + result.stderr).split())  # rich wraps at the width
    assert result.returncode != 0 and "Traceback" not in output
    assert "needs a model for the 'grader' role: add --model-role grader=" in output
    assert not (tmp_path / "logs").exists()  # no log: nothing ran
    with pytest.raises(ArgumentError, match="--model-role grader="):
        eval(
            "selfdx/mentalbench",
            task_args={"answer_format": "free_text"},
            model="selfdx/first-option",
            log_dir=str(tmp_path),
            **RUN,
        )


def test_structured_actions_need_no_grader_and_record_no_judge(tmp_path):
    # a grader bound for the whole sweep is not used by the strategy that needs no judge
    for roles in (None, JUDGE):
        (log,) = eval(
            "selfdx/safe_psych",
            task_args={"strategy": "structured_actions"},
            model="selfdx/keyword",
            model_roles=roles,
            log_dir=str(tmp_path),
            **RUN,
        )
        assert log.status == "success"
        for sample in log.samples:
            turns = sample.store_as(SafePsychTrace).turns
            assert turns and all(t.judge_model is None and not t.judge_outputs for t in turns)
            calls = [e for e in sample.events if e.event == "model"]
            assert {call.model for call in calls} == {"selfdx/keyword"}
    runs, _ = find_runs(tmp_path)
    assert len(runs) == 2 and all(run.judge is None for run in runs)  # the report's judge column


def test_scoring_a_log_with_the_other_benchmarks_scorer_says_so(safe_psych_log, mentalbench_log):
    with pytest.raises(
        SelfdxError,
        match="mentalbench_scorer scores MentalBench samples, but "
        "sample 'SYN-SP-001' is from Safe-Psych",
    ):
        score(safe_psych_log, mentalbench_scorer(), action="append", display="none")
    item = mentalbench_log.samples[0].id
    with pytest.raises(SelfdxError, match=f"sample '{item}' is from MentalBench"):
        score(mentalbench_log, safe_psych_scorer(), action="append", display="none")


def sweep_types(types: str, folder: Path) -> int:
    """`selfdx sweep` of MentalBench with the first-option baseline over `types`."""
    models = ["--models", "selfdx/first-option", "--display", "none"]
    return main(["sweep", "--benchmark", "mentalbench", "--types", types, *models,
                 "--log-dir", str(folder)])  # fmt: skip


def test_sweep_takes_the_types_the_task_takes(tmp_path, capsys):
    assert sweep_types("4a", tmp_path / "sweep") == 0
    (path,) = (tmp_path / "sweep").glob("*.eval")
    log = read_eval_log(str(path))
    assert log.eval.task_args["types"] == "4a"
    assert log.samples and {s.metadata["variant"] for s in log.samples} == {"4a"}
    assert sweep_types("4c", tmp_path / "bad") == 2
    assert "types: '4c' is not a MentalBench type" in capsys.readouterr().err


def test_sweep_lists_allow_spaces_and_refuse_an_empty_list(tmp_path, capsys):
    lists = ["--models", "selfdx/keyword, selfdx/eager",
             "--strategies", "structured_actions, full_info_no_abstention"]  # fmt: skip
    code = main(["sweep", *lists, "--grader", "selfdx/rules-judge", "--limit", "2",
                 "--display", "none", "--log-dir", str(tmp_path / "ok")])  # fmt: skip
    assert code == 0
    logs = [read_eval_log(str(p), header_only=True) for p in (tmp_path / "ok").glob("*.eval")]
    runs = {(log.eval.model, log.eval.task_args["strategy"]) for log in logs}
    assert runs == {
        (model, strategy)
        for model in ("selfdx/keyword", "selfdx/eager")
        for strategy in ("structured_actions", "full_info_no_abstention")
    }
    code = main(["sweep", "--models", " , ", "--log-dir", str(tmp_path / "empty")])
    assert code == 2
    assert "--models: the list is empty" in capsys.readouterr().err
    assert not (tmp_path / "empty").exists()


@pytest.mark.parametrize("split", [[], ["--shard", "1/2"], ["--processes", "2"]])
def test_a_model_listed_twice_is_refused_with_or_without_shards(tmp_path, capsys, split):
    """Run twice, the copies would be pooled as seeds of one model."""
    code = main(["sweep", "--models", "selfdx/keyword,selfdx/keyword", "--strategies",
                 "structured_actions", "--log-dir", str(tmp_path / "s"), *split])  # fmt: skip
    assert code == 2
    assert "--models: selfdx/keyword is listed more than once" in capsys.readouterr().err
    assert not (tmp_path / "s").exists()


def test_an_empty_shard_says_so(tmp_path, capsys):
    code = main(["sweep", "--models", "selfdx/keyword", "--strategies", "structured_actions",
                 "--log-dir", str(tmp_path / "s"), "--shard", "2/3"])  # fmt: skip
    assert code == 0
    assert (
        "shard 2/3: no task falls to this shard (the sweep has 1 tasks" in capsys.readouterr().err
    )


def test_sweep_without_a_judge_is_refused_before_running(tmp_path, capsys):
    code = main(["sweep", "--models", "selfdx/keyword", "--log-dir", str(tmp_path / "s")])
    assert code == 2
    assert "pass --grader <provider/model>" in capsys.readouterr().err
    assert not (tmp_path / "s").exists()


@pytest.mark.parametrize("n", ["0", "-3"])
def test_annotation_sample_refuses_n_below_one(safe_psych_log, tmp_path, capsys, n):
    code = main(
        ["annotation-sample", safe_psych_log.location, "--n", n, "--out", str(tmp_path / "a")]
    )
    assert code == 2
    assert f"--n: expected a whole number of turns >= 1, got {n}" in capsys.readouterr().err
    assert not (tmp_path / "a").exists()


def test_annotation_sample_warns_on_what_it_leaves_out(
    safe_psych_log, mentalbench_log, tmp_path, capsys
):
    blind, key = annotation_sample(
        [safe_psych_log.location, mentalbench_log.location], 500, tmp_path
    )
    judged = sum(
        1 for s in safe_psych_log.samples for t in s.store_as(SafePsychTrace).turns if t.action
    )
    err = capsys.readouterr().err
    assert f"{mentalbench_log.location}: not a judged Safe-Psych run" in err
    assert f"asked for 500 turns, but the logs hold only {judged} judged turns" in err
    assert len(pd.read_csv(key)) == judged


def test_judge_agreement_warns_on_ids_it_cannot_join(tmp_path, capsys):
    human = pd.DataFrame({"annotation_id": ["a1", "a2", "a3"]})
    for column in ("PRIMARY_ANSWER", "INFO_REQUEST", "ACTION_CALC"):
        human[f"{column}__consensus"] = ["committed", "none", "none"]
    human.loc[:, "ACTION_CALC__consensus"] = ["Diagnose", "Abstain", "Abstain"]
    human.loc[:, "INFO_REQUEST__consensus"] = ["none", "none", "specific"]
    human_path = tmp_path / "human.csv"
    human.to_csv(human_path, index=False)
    labels = {"primary_answer": "committed", "info_request": "none", "action": "Diagnose"}
    judge_path = tmp_path / "judge.jsonl"
    judge_path.write_text(
        "\n".join(
            json.dumps({"annotation_id": a, "new_judge_output": labels}) for a in ("a1", "zz9")
        )
    )
    results = agreement(str(human_path), read_judge_labels(str(judge_path)))
    err = capsys.readouterr().err
    assert "2 of 3 annotations have no matching judge labels (left out): a2, a3" in err
    assert "1 of 2 judge labels have no matching annotations (left out): zz9" in err
    assert results["n_joined"] == 1 and results["action"]["accuracy"] == 1.0
    judge_path.write_text(json.dumps({"annotation_id": "zz9", "new_judge_output": labels}))
    code = main(["judge-agreement", str(human_path), str(judge_path)])
    assert code == 2
    assert "no annotation_id in common with the judge labels" in capsys.readouterr().err


def test_selfdx_command_errors_are_one_line(tmp_path):
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "selfdx.cli",
            "annotation-sample",
            str(tmp_path / "none.eval"),
            "--n",
            "0",
            "--out",
            str(tmp_path / "o"),
        ],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        timeout=120,
    )
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "selfdx: error: --n: expected a whole number of turns >= 1, got 0"
    ]


@pytest.mark.parametrize(
    ("task", "arguments", "message"),
    [
        ("safe_psych", {"stratgy": "structured_actions"},
         "selfdx/safe_psych: no argument 'stratgy' (did you mean strategy?)"),
        ("mentalbench", {"parsr": "reference"},
         "selfdx/mentalbench: no argument 'parsr' (did you mean parser?)"),
        ("interview", {"patient_styles": "vague"},
         "selfdx/interview: no argument 'patient_styles' (did you mean patient_style?)"),
        ("judge_check", {"judge_atempts": 2},
         "selfdx/judge_check: no argument 'judge_atempts' (did you mean judge_attempts?)"),
        ("patient_check", {"per_disease": 1},
         "selfdx/patient_check: no argument 'per_disease' (did you mean per_disorder?)"),
        ("mentalbench_generate", {"xyz": 1}, "selfdx/mentalbench_generate: no argument 'xyz';"),
    ],
)  # fmt: skip
def test_a_misspelled_task_argument_stops_before_any_sample(task, arguments, message, tmp_path):
    """Inspect only warns about an argument a task does not have and runs the defaults; a
    selfdx task stops with one line naming the nearest argument."""
    with pytest.raises(ArgumentError) as error:
        eval(
            f"selfdx/{task}",
            task_args=arguments,
            model="selfdx/first-option",
            model_roles=JUDGE,
            log_dir=str(tmp_path),
            **RUN,
        )
    assert str(error.value).startswith(message), str(error.value)
    assert "\n" not in str(error.value)
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize(
    ("model", "role", "nearest"),
    [("selfdx/keywords", None, "selfdx/keyword"), ("selfdx/keyword", "selfdx/rule-judge",
      "selfdx/rules-judge")],
)  # fmt: skip
def test_a_misspelled_selfdx_model_is_one_line_naming_the_nearest(model, role, nearest, tmp_path):
    """Run as a user would: `inspect eval` prints one line and exits non-zero, no traceback."""
    command = [
        sys.executable, "-m", "inspect_ai", "eval", "selfdx/safe_psych", "--model", model,
        "--model-role", f"grader={role or 'selfdx/rules-judge'}", "--limit", "1",
        "--log-dir", str(tmp_path),
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    output = done.stdout + done.stderr
    assert done.returncode != 0
    assert "Traceback" not in output
    assert f"(did you mean {nearest}?)" in " ".join(output.split())


def test_every_command_describes_itself_with_an_example():
    from selfdx.cli import ABOUT, build_parser

    parser = build_parser()
    assert "examples:" in parser.format_help()
    for name in ABOUT:
        sub = parser._subparsers._group_actions[0].choices[name]  # argparse keeps them here
        text = sub.format_help()
        assert ABOUT[name][0].split(";")[0][:40] in " ".join(text.split())
        assert f"example:\n  {ABOUT[name][1]}" in text


def test_a_misspelled_scorer_argument_is_one_line(tmp_path):
    """`inspect score ... -S dta=demo` names the argument, as a task's -T does; it was a
    TypeError traceback."""
    (log,) = eval("selfdx/interview", model="selfdx/kg-interviewer", limit=1, display="none",
                  log_dir=str(tmp_path / "logs"))  # fmt: skip
    done = subprocess.run(
        ["inspect", "score", log.location, "--scorer", "selfdx/interview_scorer", "-S",
         "dta=demo", "--action", "append", "--output-file", str(tmp_path / "out.eval")],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )  # fmt: skip
    said = done.stdout + done.stderr
    assert done.returncode != 0
    assert "no argument 'dta' (did you mean data?)" in " ".join(said.split())
    assert "Traceback" not in said
    assert not (tmp_path / "out.eval").exists()


@pytest.mark.parametrize(
    "argv",
    [
        ["report", "logs", "--out", "s3://bucket/report"],
        ["export", "safe-psych", "logs", "--out", "s3://bucket/export"],
        ["annotation-sample", "logs", "--out", "gs://bucket/sample"],
    ],
)
def test_an_output_url_is_refused_in_one_line(argv, tmp_path, monkeypatch, capsys):
    """`--out s3://...` once wrote to a local folder `./s3:/...` and said it wrote the report."""
    from selfdx.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--out" in err and "local folder" in err
    assert list(tmp_path.iterdir()) == []  # nothing written, no ./s3: folder


@pytest.mark.parametrize("task", ["safe_psych", "mentalbench", "interview", "judge_check"])
def test_data_given_as_a_url_is_refused_by_name(task):
    """`-T data=s3://b/x.csv` was read as the local path `s3:/b/x.csv` ("does not exist")."""
    import importlib

    from selfdx.errors import ArgumentError

    make = getattr(importlib.import_module(f"selfdx.inspect_tasks.{task}"), task)
    with pytest.raises(ArgumentError, match=r"^data: s3://bucket/x\.csv is a URL"):
        make(data="s3://bucket/x.csv")

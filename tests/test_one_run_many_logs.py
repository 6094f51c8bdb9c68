"""One run, several logs: a log scored again beside its first (`inspect score --output-file`), a
re-judging in place, copies in two folders (a shard moved out of its folder:
`tests/test_sample_shards.py`). Each is one
run: never two seeds, never its spend twice, never drawn or exported twice (found by an
adversarial user's round, 2026-12-07). And a broken log is one line, wherever it is read."""

from __future__ import annotations

import shutil
from pathlib import Path

import fsspec
import pandas as pd
import pytest
from inspect_ai import eval, score
from inspect_ai.log import read_eval_log, write_eval_log

from selfdx.analysis.interview.report import export_interview
from selfdx.analysis.judge_agreement import annotation_sample, read_judge_labels
from selfdx.analysis.logs import find_runs
from selfdx.analysis.report import build_report
from selfdx.datasets.answer_check import load_answers
from selfdx.errors import SelfdxError
from selfdx.scorers.mentalbench.scorer import mentalbench_scorer
from selfdx.scorers.safe_psych.rejudge import safe_psych_rejudge
from tests.conftest import scripted_model


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    """A MentalBench run whose replies the strict and the reference parser read differently,
    a judged Safe-Psych run and an interview run (each on the demo data)."""
    where = tmp_path_factory.mktemp("logs")
    (mentalbench,) = eval(
        "selfdx/mentalbench",
        model=scripted_model(lambda prompt, messages: "A or B"),
        limit=4,
        display="none",
        log_dir=str(where / "mentalbench"),
    )
    (safe_psych,) = eval(
        "selfdx/safe_psych",
        model="selfdx/keyword",
        model_roles={"grader": "selfdx/rules-judge"},
        limit=3,
        display="none",
        log_dir=str(where / "safe_psych"),
    )
    (interview,) = eval(
        "selfdx/interview",
        model="selfdx/kg-interviewer",
        limit=2,
        display="none",
        log_dir=str(where / "interview"),
    )
    return {"mentalbench": mentalbench, "safe_psych": safe_psych, "interview": interview}


def report(folder: Path, out: Path) -> dict[str, pd.DataFrame]:
    build_report(folder, out, progress=False)
    return {name: pd.read_csv(out / f"{name}.csv") for name in ("runs", "cost_by_run")}


def test_a_log_scored_again_with_another_parser_is_its_own_row_and_paid_once(logs, tmp_path):
    folder = tmp_path / "logs"
    folder.mkdir()
    shutil.copy(logs["mentalbench"].location, folder / "run.eval")
    rescored = score(
        read_eval_log(str(folder / "run.eval")),
        [mentalbench_scorer(parser="reference")],
        action="overwrite",
        display="none",
    )
    write_eval_log(rescored, str(folder / "run-reference.eval"))
    build_report(folder, tmp_path / "report", progress=False)
    metrics = pd.read_csv(tmp_path / "report" / "mentalbench_metrics.csv")
    whole = metrics[(metrics.metric == "unparsed") & ~metrics.variant.str.contains("·")]
    # two rows of one run each, never two seeds of one row that averages both parsers
    assert len(whole) == 2 and set(whole.runs) == {1}
    assert sorted(whole.value) == [0.0, 1.0]  # the strict parser reads no "A or B"
    assert whole.variant.str.contains("parser=reference").sum() == 1
    report_md = (tmp_path / "report" / "report.md").read_text()
    spend = report_md.split("### Spend by model", 1)[1].split("###", 1)[0]
    model = logs["mentalbench"].eval.model
    row = next(line for line in spend.splitlines() if model in line)
    tokens = logs["mentalbench"].stats.model_usage[model].input_tokens
    assert f"| 1 | {tokens:,} |" in row  # one run, its tokens once


def test_a_rejudged_copy_beside_its_log_is_reported_once(logs, tmp_path):
    folder = tmp_path / "logs"
    folder.mkdir()
    shutil.copy(logs["safe_psych"].location, folder / "run.eval")
    rejudged = score(
        read_eval_log(str(folder / "run.eval")),
        [safe_psych_rejudge(judge_cache=False)],
        model_roles={"grader": "selfdx/eager"},
        action="append",
        display="none",
    )
    write_eval_log(rejudged, str(folder / "run-rejudged.eval"))
    runs, skipped = find_runs(folder)
    assert [Path(r.path).name for r in runs] == ["run-rejudged.eval"]
    assert "scored again" in dict(skipped)[str(folder / "run.eval")]
    build_report(folder, tmp_path / "report", progress=False)
    metrics = pd.read_csv(tmp_path / "report" / "safe_psych_metrics.csv")
    assert set(metrics.runs) == {1}
    assert set(metrics.judge) == {"selfdx/rules-judge", "selfdx/eager (re-judged)"}


def test_a_rejudging_in_place_is_not_charged_to_the_runs_judge(logs, tmp_path):
    before = tmp_path / "before"
    before.mkdir()
    shutil.copy(logs["safe_psych"].location, before / "run.eval")
    first = report(before, tmp_path / "report-before")["cost_by_run"]
    after = tmp_path / "after"
    shutil.copytree(before, after)
    rejudged = score(
        read_eval_log(str(after / "run.eval")),
        [safe_psych_rejudge(judge_cache=True)],
        model_roles={"grader": "selfdx/eager"},
        action="append",
        display="none",
    )
    write_eval_log(rejudged, str(after / "run.eval"))
    second = report(after, tmp_path / "report-after")["cost_by_run"]
    judge = ["role", "model", "served_calls", "served_input_tokens", "input_per_case"]
    original = first[first.role == "grader"][judge].reset_index(drop=True)
    assert second[second.role == "grader"][judge].reset_index(drop=True).equals(original)
    assert (second.model == "selfdx/eager").any()  # the re-judge's calls are its own row


def test_copies_in_two_folders_are_drawn_and_exported_once(logs, tmp_path):
    for kind in ("safe_psych", "interview"):
        for copy in ("a", "b"):
            (tmp_path / kind / copy).mkdir(parents=True)
            shutil.copy(logs[kind].location, tmp_path / kind / copy / "run.eval")
    copies = [str(tmp_path / "safe_psych" / c / "run.eval") for c in ("a", "b")]
    _, key = annotation_sample(copies, 500, tmp_path / "annotation")
    drawn = pd.read_csv(key)
    assert not drawn.duplicated(["eval_id", "sample_id", "epoch", "step_index"]).any()
    once, _ = annotation_sample(copies[:1], 500, tmp_path / "annotation-once")
    assert len(drawn) == len(pd.read_csv(once))
    interviews = [str(tmp_path / "interview" / c / "run.eval") for c in ("a", "b")]
    jsonl, _ = export_interview(interviews, tmp_path / "export")
    assert len(jsonl.read_text().splitlines()) == len(logs["interview"].samples)


def test_labels_of_one_draw_never_join_another_draws_key(logs, tmp_path):
    log = logs["safe_psych"].location
    _, first = annotation_sample([log], 3, tmp_path / "one", seed=1)
    _, second = annotation_sample([log], 3, tmp_path / "two", seed=2)
    ids = [set(pd.read_csv(key).annotation_id) for key in (first, second)]
    assert all(i.startswith("ann_") and len(i.split("_")) == 3 for i in ids[0] | ids[1])
    assert not ids[0] & ids[1]


def test_a_broken_log_is_one_line_where_turns_are_drawn_or_labels_read(logs, tmp_path):
    broken = tmp_path / "broken.eval"
    broken.write_bytes(
        Path(logs["safe_psych"].location.removeprefix("file://")).read_bytes()[:3000]
    )
    key = tmp_path / "key.csv"
    pd.DataFrame({"annotation_id": ["ann_x_0001"]}).to_csv(key, index=False)
    with pytest.raises(SelfdxError, match="not a readable Inspect log"):
        read_judge_labels(str(broken), str(key))
    good = str(tmp_path / "good.eval")
    shutil.copy(logs["safe_psych"].location.removeprefix("file://"), good)
    _, drawn = annotation_sample([str(broken), good], 2, tmp_path / "drawn")
    assert len(pd.read_csv(drawn)) == 2


def test_a_labelled_file_on_an_unreachable_store_is_one_error(monkeypatch):
    def refused(*_args, **_kwargs):
        raise ConnectionError("Could not connect to the endpoint URL")

    monkeypatch.setattr(fsspec, "open", refused)
    with pytest.raises(SelfdxError, match=r"s3://b/a\.jsonl: cannot be read \(ConnectionError"):
        load_answers(path="s3://b/a.jsonl")


def test_a_structured_actions_export_is_not_named_after_a_grader_it_never_asked(tmp_path):
    """A sweep binds its grader to every strategy; `structured_actions` never asks it, so its
    run folder says `judge-none`, as its records and the report do."""
    from selfdx.analysis.safe_psych.export import export_safe_psych

    (log,) = eval(
        "selfdx/safe_psych",
        task_args={"strategy": "structured_actions"},
        model="selfdx/keyword",
        model_roles={"grader": "selfdx/rules-judge"},
        limit=2,
        display="none",
        log_dir=str(tmp_path / "logs"),
    )
    written = export_safe_psych([log.location], tmp_path / "out")
    folders = {p.parent.name for p in written if p.parent.name.startswith("keyword_")}
    assert folders == {"keyword_structured_actions_judge-none_seed-none"}


def test_a_json_log_under_a_name_of_ones_choosing_is_read(logs, tmp_path):
    """Inspect lists a `.json` log only under its own timestamped name: a renamed JSON log was
    left out of the report, its spend too, without a word (adversarial user, M7)."""
    folder = tmp_path / "logs"
    folder.mkdir()
    write_eval_log(logs["safe_psych"], str(folder / "myrun.json"), format="json")
    shutil.copy(logs["mentalbench"].location, folder / "other.eval")
    (folder / "prices.json").write_text('{"selfdx/keyword": {"input": 1}}')  # not a log
    (folder / "cut.json").write_text('{\n  "version": 2,\n  "status": "success",\n  "eval": {')
    runs, skipped = find_runs(folder)
    assert sorted(Path(r.path).name for r in runs) == ["myrun.json", "other.eval"]
    assert "not a readable Inspect log" in dict(skipped)[str(folder / "cut.json")]
    assert not any("prices.json" in name for name, _ in skipped)

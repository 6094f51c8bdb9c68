"""`selfdx sweep -T name=value`: further task arguments for every task of a sweep, whole tasks
or sample shards, read as `inspect eval -T` reads them and checked by the tasks themselves."""

from __future__ import annotations

import pytest
from inspect_ai.log import list_eval_logs, read_eval_log

from selfdx.analysis.merge import merge_log_dir
from selfdx.cli import main
from selfdx.errors import ArgumentError
from selfdx.sweep import parse_task_args


def test_values_are_read_as_inspect_reads_them():
    given = ["max_questions=8", "patient_style=guarded,minimising", "full_text=narrative",
             "seed=", "n_sampled=3"]  # fmt: skip
    assert parse_task_args(given) == {
        "max_questions": 8,
        "patient_style": "guarded,minimising",
        "full_text": "narrative",
        "seed": "",
        "n_sampled": 3,
    }
    assert parse_task_args(None) == {}
    with pytest.raises(ArgumentError, match=r"^-T 'patient_style': expected name=value$"):
        parse_task_args(["patient_style"])
    with pytest.raises(ArgumentError, match=r"^-T seed: given twice$"):
        parse_task_args(["seed=1", "seed=2"])


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--benchmark", "interview", "-T", "types=1"],
         "-T types: the sweep sets it; give --types"),
        (["-T", "strategy=structured_actions"],
         "-T strategy: the sweep sets it; give --strategies"),
        (["--benchmark", "mentalbench", "-T", "data=demo"],
         "-T data: the sweep sets it; give --data"),
        (["--benchmark", "interview", "-T", "patient_stile=guarded"],
         "selfdx/interview: no argument 'patient_stile' (did you mean patient_style?)"),
        (["--benchmark", "interview", "-T", "max_questions=500"], "max_questions"),
    ],
)  # fmt: skip
@pytest.mark.parametrize("split", [[], ["--shard", "1/2", "--split", "samples"]])
def test_a_bad_task_argument_is_one_line_and_runs_nothing(argv, message, split, tmp_path, capsys):
    folder = tmp_path / "sweep"
    code = main(["sweep", "--models", "selfdx/keyword", "--grader", "selfdx/rules-judge",
                 "--log-dir", str(folder), "--display", "none", *argv, *split])  # fmt: skip
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and err[0].startswith("selfdx: error: "), err
    assert message in err[0]
    assert not folder.exists()


def task_args_of(folder) -> list[dict]:
    return [
        read_eval_log(info.name, header_only=True).eval.task_args
        for info in list_eval_logs(str(folder), recursive=True)
    ]


def test_every_task_of_a_sweep_gets_the_arguments(tmp_path):
    folder = tmp_path / "sweep"
    code = main(["sweep", "--benchmark", "interview", "--models", "selfdx/careful-interviewer",
                 "--types", "1,2", "-T", "patient_style=guarded", "-T", "max_questions=8",
                 "--limit", "1", "--log-dir", str(folder), "--display", "none"])  # fmt: skip
    assert code == 0
    found = task_args_of(folder)
    assert sorted(args["types"] for args in found) == [1, 2]
    assert all(args["patient_style"] == "guarded" and args["max_questions"] == 8 for args in found)


def test_sample_shards_get_the_arguments_and_merge(tmp_path):
    folder = tmp_path / "store"
    for i in (1, 2):
        code = main(["sweep", "--benchmark", "mentalbench", "--models", "selfdx/first-option",
                     "--types", "1", "-T", "prompt_style=hybrid", "--limit", "4",
                     "--shard", f"{i}/2", "--split", "samples", "--log-dir", str(folder),
                     "--display", "none"])  # fmt: skip
        assert code == 0
    [(_, merged)] = merge_log_dir(str(folder))
    assert merged.eval.task_args["prompt_style"] == "hybrid"
    assert len(merged.eval.dataset.sample_ids) == 4

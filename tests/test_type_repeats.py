"""A type given twice (`1,1`) or two types that choose the same cases (`4,4a`: 4 is 4a and 4b) are
refused, naming the argument and the repeat, by every task that takes `types` and by
`selfdx sweep --types`, which read them with one function (`type_choices`): the tasks used to
run such a list as if each type were given once, and the sweep ran a task per type, so the
repeated cases twice."""

from __future__ import annotations

import subprocess
import sys

import pytest
from inspect_ai import eval

from selfdx.cli import main
from selfdx.errors import ArgumentError

OVERLAP = "(both choose {}; 4 and high are 4a and 4b): give each type once"
REPEATS = [
    ("1,1", "types: 1 is given more than once"),
    ([2, 2], "types: 2 is given more than once"),
    ("1, type 1", "types: type 1 is given more than once"),
    ("4,4a", f"types: 4a overlaps 4 {OVERLAP.format('4a')}"),
    ("4b,4", f"types: 4 overlaps 4b {OVERLAP.format('4b')}"),
    ("high,4", f"types: 4 overlaps high {OVERLAP.format('4a, 4b')}"),
]
TASKS = {
    "mentalbench": "selfdx/first-option",
    "interview": "selfdx/kg-interviewer",
    "patient_check": "selfdx/kg-patient",
    "mentalbench_generate": "selfdx/case-writer",
}


@pytest.mark.parametrize("task", list(TASKS))
@pytest.mark.parametrize(("types", "message"), REPEATS, ids=[str(r[0]) for r in REPEATS])
def test_a_task_refuses_a_repeated_type(task, types, message, tmp_path):
    # the generator's graph is read after its arguments are checked: no graph is needed here
    graph = {"kg": str(tmp_path / "no-graph")} if task == "mentalbench_generate" else {}
    with pytest.raises(ArgumentError) as raised:
        eval(
            f"selfdx/{task}",
            task_args={"types": types, **graph},
            model=TASKS[task],
            log_dir=str(tmp_path),
            display="none",
            limit=1,
        )
    assert str(raised.value) == message
    assert not list(tmp_path.iterdir())  # stopped before any log was started


def test_a_task_still_takes_4a_with_4b_and_each_type_once(tmp_path):
    from selfdx.datasets.mentalbench.filters import normalise_types

    assert normalise_types("4a,4b") == normalise_types(4) == normalise_types("high")
    assert normalise_types("Type 3, 1, 4b") == ("1", "3", "4b")


def test_inspect_eval_prints_the_repeat_in_one_line(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "inspect_ai", "eval", "selfdx/interview", "--model",
         "selfdx/kg-interviewer", "-T", "types=1,1", "--log-dir", str(tmp_path / "logs")],
        capture_output=True, text=True, cwd=tmp_path, timeout=120,
    )  # fmt: skip
    output = done.stdout + done.stderr
    assert done.returncode != 0 and "Traceback" not in output, output
    assert "selfdx: types: 1 is given more than once" in output
    assert not (tmp_path / "logs").exists()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--benchmark", "mentalbench", "--types", "1,1"], "--types: 1 is given more than once"),
        (["--benchmark", "interview", "--types", "2,1,2"], "--types: 2 is given more than once"),
        (
            ["--benchmark", "mentalbench", "--types", "4,4a"],
            f"--types: 4a overlaps 4 {OVERLAP.format('4a')}",
        ),
        (
            [
                "--benchmark",
                "interview",
                "--types",
                "4a,high",
                "--shard",
                "1/2",
                "--split",
                "samples",
            ],
            f"--types: high overlaps 4a {OVERLAP.format('4a')}",
        ),  # fmt: skip
        (
            ["--strategies", "structured_actions,structured_actions"],
            "--strategies: structured_actions is listed more than once",
        ),
    ],
)
def test_selfdx_sweep_refuses_a_repeated_type_or_strategy(argv, message, tmp_path, capsys):
    models = ["--models", "selfdx/first-option", "--display", "none"]
    code = main(["sweep", *argv, *models, "--log-dir", str(tmp_path / "logs")])
    err = capsys.readouterr().err
    assert code == 2 and err == f"selfdx: error: {message}\n", err
    assert not (tmp_path / "logs").exists()

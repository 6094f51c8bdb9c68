"""`selfdx sweep --shard auto`: the shard read from a Slurm job array's or a Kubernetes Indexed
Job's variables, each expected value worked out by hand from the variables the scheduler sets."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from selfdx.errors import ArgumentError
from selfdx.scheduler import resolve_shard, scheduler_shard


def slurm(task: int, first: int, last: int, **more: str) -> dict[str, str]:
    """What sbatch --array=first-last sets in task `task` (count and step as Slurm gives them)."""
    return {
        "SLURM_JOB_ID": "4242",
        "SLURM_ARRAY_JOB_ID": "4242",
        "SLURM_ARRAY_TASK_ID": str(task),
        "SLURM_ARRAY_TASK_MIN": str(first),
        "SLURM_ARRAY_TASK_MAX": str(last),
        "SLURM_ARRAY_TASK_COUNT": str(last - first + 1),
        "SLURM_ARRAY_TASK_STEP": "1",
        **more,
    }


@pytest.mark.parametrize(
    ("environ", "text", "expected"),
    [
        # --array=1-4: ids 1..4 are shards 1..4 of 4
        (slurm(1, 1, 4), "auto", (1, 4)),
        (slurm(3, 1, 4), "auto", (3, 4)),
        (slurm(4, 1, 4), "auto", (4, 4)),
        # --array=0-3: ids 0..3 are shards 1..4 of 4, the same shards as the array from 1
        (slurm(0, 0, 3), "auto", (1, 4)),
        (slurm(2, 0, 3), "auto", (3, 4)),
        (slurm(3, 0, 3), "auto", (4, 4)),
        # n stated and equal to the array's size
        (slurm(2, 1, 3), "auto/3", (2, 3)),
        (slurm(0, 0, 2), "auto/3", (1, 3)),
        # without SLURM_ARRAY_TASK_COUNT (n from MIN and MAX)
        ({"SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "8"},
         "auto", (5, 8)),
        # Kubernetes: JOB_COMPLETION_INDEX 0..n-1 is shard 1..n; n given
        ({"JOB_COMPLETION_INDEX": "0"}, "auto/4", (1, 4)),
        ({"JOB_COMPLETION_INDEX": "3"}, "auto/4", (4, 4)),
        ({"JOB_COMPLETION_INDEX": "6"}, " auto / 10 ", (7, 10)),
        ({"JOB_COMPLETION_INDEX": "0"}, "auto/1", (1, 1)),
        # an empty variable counts as unset
        ({"JOB_COMPLETION_INDEX": "2", "SLURM_ARRAY_TASK_ID": ""}, "auto/3", (3, 3)),
    ],
)  # fmt: skip
def test_the_shard_from_the_scheduler(environ, text, expected):
    shard, source = scheduler_shard(text, environ)
    assert shard == expected
    variable = (
        "SLURM_ARRAY_TASK_ID" if environ.get("SLURM_ARRAY_TASK_ID") else "JOB_COMPLETION_INDEX"
    )
    assert source.startswith(f"{variable}={environ[variable]} ")


def test_the_shards_of_an_array_are_the_shards_one_through_n():
    """Every task of an array from 0 and of one from 1 gets a different shard, together 1..n."""
    for first in (0, 1):
        shards = [
            scheduler_shard("auto", slurm(t, first, first + 4))[0] for t in range(first, first + 5)
        ]
        assert shards == [(i, 5) for i in range(1, 6)]
    assert [scheduler_shard("auto/5", {"JOB_COMPLETION_INDEX": str(k)})[0] for k in range(5)] == [
        (i, 5) for i in range(1, 6)
    ]


@pytest.mark.parametrize(
    ("environ", "text", "message"),
    [
        ({}, "auto", "neither SLURM_ARRAY_TASK_ID (a Slurm job array) nor JOB_COMPLETION_INDEX"),
        (
            {"SLURM_JOB_ID": "7"},
            "auto",
            "this Slurm job is not an array: submit it with sbatch --array=1-n",
        ),
        (
            {"JOB_COMPLETION_INDEX": "1"},
            "auto",
            "Kubernetes sets no variable with the number of completions; give it: --shard auto/n",
        ),
        (
            {"JOB_COMPLETION_INDEX": "4"},
            "auto/4",
            "JOB_COMPLETION_INDEX=4 is out of range for 4 shards (indexes 0 to 3)",
        ),
        (
            {"JOB_COMPLETION_INDEX": "-1"},
            "auto/4",
            "JOB_COMPLETION_INDEX='-1' is not a whole number",
        ),
        (
            {"SLURM_ARRAY_TASK_ID": "2"},
            "auto",
            "is set but SLURM_ARRAY_TASK_MIN and SLURM_ARRAY_TASK_MAX are not",
        ),
        (
            {
                "SLURM_ARRAY_TASK_ID": "2",
                "SLURM_ARRAY_TASK_COUNT": "4",
                "SLURM_ARRAY_TASK_MIN": "1",
            },
            "auto",
            "but SLURM_ARRAY_TASK_MAX is not",
        ),
        (slurm(9, 1, 8), "auto", "SLURM_ARRAY_TASK_ID=9 is outside the job array 1-8"),
        (
            slurm(3, 3, 5),
            "auto",
            "the job array starts at 3 (SLURM_ARRAY_TASK_MIN=3), not at 0 or 1",
        ),
        (slurm(1, 1, 1), "auto", "the job array has one task (SLURM_ARRAY_TASK_ID=1)"),
        (slurm(2, 1, 3), "auto/4", "shard auto/4: the job array 1-3 has 3 tasks, not 4"),
        (slurm(1, 1, 1), "auto/8", "the job array 1-1 has 1 task, not 8"),
        # --array=1-7:2 (ids 1, 3, 5, 7) and --array=1,2,5
        (
            slurm(3, 1, 7, SLURM_ARRAY_TASK_COUNT="4", SLURM_ARRAY_TASK_STEP="2"),
            "auto",
            "the job array steps by 2",
        ),
        (
            slurm(2, 1, 5, SLURM_ARRAY_TASK_COUNT="3"),
            "auto",
            "the job array has 3 tasks (SLURM_ARRAY_TASK_COUNT) between ids 1 and 5",
        ),
        (
            {**slurm(1, 1, 2), "JOB_COMPLETION_INDEX": "0"},
            "auto/2",
            "both SLURM_ARRAY_TASK_ID (Slurm) and JOB_COMPLETION_INDEX (Kubernetes) are set",
        ),
        ({"JOB_COMPLETION_INDEX": "0"}, "auto/0", "expected auto or auto/n with n >= 1"),
        ({"JOB_COMPLETION_INDEX": "0"}, "auto/x", "expected auto or auto/n with n >= 1"),
    ],
)
def test_what_the_environment_lacks_is_named(environ, text, message):
    with pytest.raises(ArgumentError) as raised:
        scheduler_shard(text, environ)
    assert message in str(raised.value)
    assert "\n" not in str(raised.value)


def test_a_given_shard_is_not_read_from_the_scheduler(capsys):
    assert resolve_shard("2/3", slurm(1, 1, 4)) == (2, 3)
    assert resolve_shard("auto", slurm(1, 1, 4)) == (1, 4)
    assert capsys.readouterr().err == (
        "selfdx: shard 1/4 (from SLURM_ARRAY_TASK_ID=1 of the job array 1-4)\n"
    )
    with pytest.raises(ArgumentError, match="shard: expected i/n"):
        resolve_shard("automatic", {})


def test_the_command_says_what_is_missing_in_one_line():
    """Outside a scheduler, `selfdx sweep --shard auto` stops before any task with one line."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLURM_", "JOB_COMPLETION"))}
    env["JOB_COMPLETION_INDEX"] = "0"
    done = subprocess.run(
        [sys.executable, "-m", "selfdx.cli", "sweep", "--models", "selfdx/keyword",
         "--grader", "selfdx/rules-judge", "--log-dir", "unused", "--shard", "auto"],
        env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "selfdx: error: shard auto: JOB_COMPLETION_INDEX=0 gives this pod's index but Kubernetes "
        "sets no variable with the number of completions; give it: --shard auto/n"
    ]

"""The GC-freeze hook: selfdx tasks run with the start-of-task heap frozen, then unfrozen."""

from __future__ import annotations

import gc

import pytest
from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.solver import Generate, TaskState, solver

import selfdx.gc_tuning  # noqa: F401  (registers the hook)

SEEN: list[int] = []


@solver
def record_freeze():
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        SEEN.append(gc.get_freeze_count())
        return state

    return solve


@pytest.mark.parametrize(("setting", "frozen"), [(None, True), ("0", False)])
def test_selfdx_task_runs_frozen_and_ends_unfrozen(monkeypatch, tmp_path, setting, frozen):
    if setting is None:
        monkeypatch.delenv("SELFDX_GC_FREEZE", raising=False)
    else:
        monkeypatch.setenv("SELFDX_GC_FREEZE", setting)
    SEEN.clear()
    gc.unfreeze()
    task = Task(dataset=[Sample(input="x")], solver=record_freeze(), name="selfdx/freeze_probe")
    logs = eval(task, model="selfdx/eager", display="none", log_dir=str(tmp_path))
    assert logs[0].status == "success"
    assert (SEEN[0] > 0) is frozen
    assert gc.get_freeze_count() == 0


def test_other_tasks_are_left_alone(tmp_path):
    SEEN.clear()
    gc.unfreeze()
    task = Task(dataset=[Sample(input="x")], solver=record_freeze(), name="other_probe")
    eval(task, model="selfdx/eager", display="none", log_dir=str(tmp_path))
    assert SEEN == [0]

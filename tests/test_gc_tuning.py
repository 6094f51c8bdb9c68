"""The GC-freeze hook: selfdx tasks run with the start-of-task heap frozen, then unfrozen."""

from __future__ import annotations

import gc

import pytest
from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.solver import Generate, TaskState, solver

from selfdx.gc_tuning import use_gc_freeze

use_gc_freeze()  # as building a selfdx task does

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


@pytest.mark.slow
def test_another_evaluation_neither_runs_nor_announces_the_hook(tmp_path):
    """With selfdx installed, an Inspect run of someone else's task lists no selfdx hook."""
    import subprocess
    import sys

    source = tmp_path / "other_task.py"
    source.write_text(
        "from inspect_ai import Task, task\n"
        "from inspect_ai.dataset import Sample\n\n\n"
        "@task\n"
        "def other():\n"
        "    return Task(dataset=[Sample(input='x')])\n"
    )
    command = [sys.executable, "-m", "inspect_ai", "eval", source.name, "--model",
               "mockllm/model", "--log-dir", str(tmp_path / "logs")]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "gc_freeze" not in done.stdout + done.stderr


def test_a_task_without_its_end_event_is_unfrozen_when_its_run_ends():
    """A selfdx task that never reports its end (an error as it starts, an interrupt) does not
    leave the heap frozen for the rest of the process: its run's end unfreezes it."""
    import asyncio
    from types import SimpleNamespace

    from selfdx.gc_tuning import GcFreeze

    hook = GcFreeze()
    spec = SimpleNamespace(task_registry_name="selfdx/safe_psych", task="selfdx/safe_psych")
    gc.unfreeze()

    async def run() -> list[int]:
        counts = []
        await hook.on_task_start(SimpleNamespace(eval_id="a", run_id="r1", spec=spec))
        await hook.on_task_start(SimpleNamespace(eval_id="b", run_id="r2", spec=spec))
        counts.append(gc.get_freeze_count() > 0)
        await hook.on_run_end(SimpleNamespace(run_id="r1"))  # task a never ended
        counts.append(gc.get_freeze_count() > 0)  # b still runs
        await hook.on_task_end(SimpleNamespace(eval_id="b", run_id="r2"))
        counts.append(gc.get_freeze_count() > 0)
        return counts

    assert asyncio.run(run()) == [True, True, False]
    assert hook.active == {}

"""Keep Python's garbage collector off the objects that live through a whole selfdx task.

A run holds hundreds of thousands of long-lived objects (imported modules, the dataset, Inspect's
machinery). Every full collection walks all of them, stalling the one event loop that drives
every sample: on a 2-core machine pauses of 0.2-0.5 s, 15-20 times per Safe-Psych run, during
which no finished API call can be followed by the next one. Freezing the objects alive at task
start (`gc.freeze()`) takes them out of those walks; they are unfrozen when the task ends, so
nothing is kept longer than without the freeze. Only selfdx tasks are affected: the hook is
registered when a selfdx task is built (`use_gc_freeze`), not when the package is imported, so
other evaluations in the same environment neither run nor list it.

Set `SELFDX_GC_FREEZE=0` to turn it off. bench/ measures the effect.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable

from inspect_ai.hooks import Hooks, RunEnd, TaskEnd, TaskStart, hooks
from inspect_ai.log import EvalSpec

ENV_VAR = "SELFDX_GC_FREEZE"


def _is_selfdx(spec: EvalSpec) -> bool:
    name = spec.task_registry_name or spec.task
    return name.startswith("selfdx/")


class GcFreeze(Hooks):
    """Freezes the GC's view of the heap at the start of a selfdx task, unfreezes at its end."""

    def __init__(self) -> None:
        self.active: dict[str, str] = {}  # eval id -> run id, of the selfdx tasks running

    def enabled(self) -> bool:
        # a task that froze the heap always gets its end event, whatever the variable says now
        if self.active:
            return True
        return os.environ.get(ENV_VAR, "1").strip().lower() not in ("0", "false", "no")

    async def on_task_start(self, data: TaskStart) -> None:
        if _is_selfdx(data.spec):
            self.active[data.eval_id] = data.run_id
            gc.freeze()

    async def on_task_end(self, data: TaskEnd) -> None:
        self._end(lambda eval_id, run_id: eval_id == data.eval_id)

    async def on_run_end(self, data: RunEnd) -> None:
        # a task that stopped without its end event (an error as it started, an interrupt)
        # must not leave the heap frozen for the rest of the process
        self._end(lambda eval_id, run_id: run_id == data.run_id)

    def _end(self, ended: Callable[[str, str], bool]) -> None:
        if not self.active:
            return
        for eval_id, run_id in list(self.active.items()):
            if ended(eval_id, run_id):
                del self.active[eval_id]
        if not self.active:
            gc.unfreeze()


_registered: list[type[Hooks]] = []


def use_gc_freeze() -> None:
    """Register the hook, once, when a selfdx task is built: an Inspect run of any other task
    in the same environment neither has it nor announces it."""
    if not _registered:
        _registered.append(
            hooks(name="gc_freeze", description="Freeze long-lived objects during selfdx tasks.")(
                GcFreeze
            )
        )
        from selfdx.nan_notes import NanNotes  # the same moment: when a selfdx task is built

        _registered.append(
            hooks(name="nan_notes", description="Say why a selfdx metric is NaN.")(NanNotes)
        )

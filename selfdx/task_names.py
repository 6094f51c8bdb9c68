"""A misspelled selfdx task named by `inspect eval` gets the nearest task, not silence.

Inspect looks a `selfdx/<name>` up in its registry and, when no task has that name, takes the name
for a path: with no file there it finds no task and says only "No inspect tasks were found"
(nothing at all with `--display none`). Loading selfdx's registry (which Inspect does for any
`selfdx/` name) wraps Inspect's path loader so that a `selfdx/` name that is neither a task nor a
path stops with one line naming the nearest task.
"""

from __future__ import annotations

import difflib
import os
from typing import Any

from selfdx import inspect_tasks as tasks

TASKS = tuple(tasks.__all__)


def unknown_task_message(spec: str) -> str | None:
    """The one line for a `selfdx/<name>` spec that names no task (None for a known task, a
    path that exists, or a name outside selfdx)."""
    if not spec.startswith("selfdx/") or os.path.exists(spec):
        return None
    name = spec.split("/", 1)[1].split("@", 1)[0]
    if name in TASKS:
        return None
    near = difflib.get_close_matches(name.replace("-", "_"), TASKS, n=1, cutoff=0.5)
    hint = f"; did you mean selfdx/{near[0]}?" if near else ""
    listed = ", ".join(f"selfdx/{task}" for task in TASKS)
    return f"no task named {spec}{hint} (selfdx's tasks: {listed})"


def install() -> None:
    """Wrap Inspect's loader of task paths (once). If Inspect's loader changes so that there is
    nothing to wrap, Inspect's own message stands."""
    from inspect_ai._eval import loader

    original = getattr(loader, "create_tasks", None)
    if original is None or getattr(original, "_selfdx_names", False):
        return

    def create_tasks(globs: list[str], *args: Any, **kwargs: Any):
        from selfdx.errors import SelfdxError

        for glob in globs:
            message = unknown_task_message(str(glob))
            if message:
                raise SelfdxError(message)
        return original(globs, *args, **kwargs)

    create_tasks._selfdx_names = True  # type: ignore[attr-defined]
    loader.create_tasks = create_tasks

"""A budget for a whole sweep: `selfdx sweep --budget 25 --prices prices.yaml` (dollars) or
`--budget 2000000tokens`, across its shards, processes and reruns.

Every process of the sweep keeps what its finished samples spent (each sample's model usage, the
grader's and the patient's included: `on_sample_end`) in a file of its own below the sweep's
folder, `LOG_DIR/budget/<process>.spend.json`, on disk or on the store. Before a sample starts,
Inspect asks the task's early-stopping manager (`SweepBudget`), which adds this process's spend
to the files of every other process (reread at most every `REFRESH` seconds) and to what this
process's samples in flight will cost at the mean of its finished ones, and stops the sample when
the sum has reached the budget. Samples already running finish, so a sweep may go over by what
its samples in flight cost beyond that mean (before any sample has finished, the whole of
them: with many connections, the first `max_samples` samples of each running task). The spend
of earlier runs stays in the folder: the budget is the total of the sweep, and a rerun with a
larger one goes on from where the last one stopped.

A task with stopped samples is written back with status `error` and a message saying so, so that
`selfdx report` leaves it out as unfinished and the rerun (Inspect's eval-set retry) keeps its
finished samples and runs only the rest.
"""

from __future__ import annotations

import json
import math
import os
import re
import socket
import time
import uuid
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

import fsspec
from inspect_ai import Task, task_with
from inspect_ai.hooks import Hooks, SampleEnd, hooks
from inspect_ai.log import EvalError, EvalLog, read_eval_log, write_eval_log
from inspect_ai.model import ModelCost, ModelUsage, compute_model_cost
from inspect_ai.util import EarlyStop

from selfdx.errors import ArgumentError, warn

MANAGER = "selfdx sweep budget"
FOLDER = "budget"
SUFFIX = ".spend.json"
REFRESH = 5.0  # seconds between rereads of the other processes' spend
WRITE_EVERY = 2.0  # seconds between writes of this process's spend
BUDGET = re.compile(r"^\s*\$?\s*(\d+(?:\.\d*)?|\.\d+)\s*(tokens?)?\s*$", re.I)


@dataclass(frozen=True)
class Budget:
    """An amount in dollars (`usd`, priced by `prices`) or in tokens."""

    amount: float
    unit: str
    prices: dict[str, ModelCost] = field(default_factory=dict)
    prices_file: str | None = None
    folder: str | None = None  # the sweep's folder, whose budget/ every process shares

    def at(self, log_dir: str) -> Budget:
        """This budget kept in `log_dir` (unless a sweep above it has placed it already)."""
        return self if self.folder is not None else replace(self, folder=log_dir)

    def cost(self, usage: dict[str, ModelUsage]) -> float:
        """What one sample's usage (by model) spends of the budget."""
        if self.unit == "tokens":
            return float(sum(u.total_tokens for u in usage.values()))
        total = 0.0
        for model, used in usage.items():
            if model in self.prices:  # every other model is an offline selfdx/ one (checked)
                total += compute_model_cost(self.prices[model], used)
        return total

    def show(self, value: float) -> str:
        return f"{value:,.0f} tokens" if self.unit == "tokens" else f"${value:,.2f}"


def parse_budget(text: str, prices_file: str | None, models: Sequence[str]) -> Budget:
    """`--budget` as given: dollars (`25`, `$25.50`; needs `--prices`, with a price for every
    model of the sweep but selfdx's offline ones, which cost nothing unless priced) or tokens
    (`2000000tokens`)."""
    match = BUDGET.match(text)
    if not match or float(match.group(1)) <= 0:
        raise ArgumentError(
            f"--budget: expected dollars (25 or $25.50) or tokens (2000000tokens), above 0, "
            f"got {text!r}"
        )
    amount = float(match.group(1))
    if match.group(2):
        return Budget(amount, "tokens")
    if prices_file is None:
        raise ArgumentError(
            "--budget in dollars needs --prices FILE (Inspect's --model-cost-config format); "
            "or give it in tokens (such as 2000000tokens)"
        )
    from selfdx.analysis.cost import load_prices

    prices = load_prices(prices_file)
    unpriced = [
        model
        for model in dict.fromkeys(models)
        if model not in prices and not model.startswith("selfdx/")
    ]
    if unpriced:
        raise ArgumentError(
            f"--prices {prices_file}: no price for {', '.join(unpriced)}, which the sweep uses"
        )
    return Budget(amount, "usd", prices, prices_file)


def budget_from_args(args: Any) -> Budget | None:
    """`selfdx sweep`'s `--budget` (with `--prices`) for every model the sweep calls, or None."""
    from selfdx.arguments import listed

    if args.budget is None:
        if args.prices is not None:
            raise ArgumentError("--prices: a sweep reads prices only for --budget in dollars")
        return None
    models = [*(listed("--models", args.models) or []), args.grader, args.patient]
    return parse_budget(args.budget, args.prices, [m for m in models if m])


class Ledger:
    """The spend of one sweep: this process's, and the other processes' from their files."""

    def __init__(self, budget: Budget) -> None:
        assert budget.folder is not None, "place the budget in the sweep's folder first"
        self.budget = budget
        self.folder = f"{budget.folder.rstrip('/')}/{FOLDER}"  # a local folder or a store URL
        self.fs, self.root = fsspec.core.url_to_fs(self.folder)
        name = f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:8]}{SUFFIX}"
        self.own = f"{self.root.rstrip('/')}/{name}"
        self.mine = 0.0
        self.samples = 0
        self.in_flight = 0
        self.others = 0.0
        self.read_at = -math.inf
        self.written_at = -math.inf
        self.stopped: Counter[str] = Counter()  # eval id -> samples not started

    def _read_others(self) -> None:
        total = 0.0
        try:
            files = self.fs.glob(f"{self.root.rstrip('/')}/*{SUFFIX}")
        except FileNotFoundError:
            files = []
        for path in files:
            if path.rstrip("/").endswith(self.own.rsplit("/", 1)[-1]):
                continue
            try:
                with self.fs.open(path, "r", encoding="utf-8") as file:
                    record = json.load(file)
                if record.get("unit") == self.budget.unit:
                    total += float(record["spent"])
            except (OSError, ValueError, KeyError, TypeError) as exc:
                warn(f"--budget: {self.folder}: cannot read {path}: {exc}; left out of the sum")
        self.others = total
        self.read_at = time.monotonic()

    def spent(self) -> float:
        """The sweep's spend: this process's now, the others' as last read."""
        if time.monotonic() - self.read_at > REFRESH:
            self._read_others()
        return self.others + self.mine

    def expected(self) -> float:
        """The spend so far, with this process's samples in flight at the mean of its finished
        ones."""
        mean = self.mine / self.samples if self.samples else 0.0
        return self.spent() + self.in_flight * mean

    def add(self, usage: dict[str, ModelUsage]) -> None:
        self.mine += self.budget.cost(usage)
        self.samples += 1
        self.in_flight = max(self.in_flight - 1, 0)
        if time.monotonic() - self.written_at > WRITE_EVERY:
            self.write()

    def write(self) -> None:
        record = {"unit": self.budget.unit, "spent": self.mine, "samples": self.samples}
        self.fs.makedirs(self.root, exist_ok=True)
        with self.fs.open(self.own, "w", encoding="utf-8") as file:
            json.dump(record, file)
        self.written_at = time.monotonic()


_active: Ledger | None = None


@hooks(name="selfdx_sweep_budget", description="What a budgeted sweep's samples spend.")
class BudgetSpend(Hooks):
    """Adds each finished sample's usage to the running sweep's ledger (only while one runs)."""

    def enabled(self) -> bool:
        return _active is not None

    async def on_sample_end(self, data: SampleEnd) -> None:
        if _active is not None:
            _active.add(data.sample.model_usage)


class SweepBudget:
    """Inspect's early-stopping manager: no sample starts once the sweep's budget is spent."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger
        self.eval_id = ""

    async def start_task(self, task: Any, samples: list[Any], epochs: int) -> str:
        self.eval_id = task.eval_id
        return MANAGER

    async def schedule_sample(self, id: str | int, epoch: int) -> EarlyStop | None:
        if self.ledger.expected() < self.ledger.budget.amount:
            self.ledger.in_flight += 1
            return None
        self.ledger.stopped[self.eval_id] += 1
        budget = self.ledger.budget
        return EarlyStop(
            id=id,
            epoch=epoch,
            reason=f"the sweep's budget of {budget.show(budget.amount)} is spent",
        )

    async def complete_sample(self, id: str | int, epoch: int, scores: Any) -> None:
        return None

    async def complete_task(self) -> dict[str, Any]:
        budget = self.ledger.budget
        return {"budget": budget.amount, "unit": budget.unit, "spent": self.ledger.spent()}


@contextmanager
def spending(budget: Budget | None) -> Iterator[Ledger | None]:
    """The ledger of a budgeted sweep while it runs (None without a budget); its spend is
    written when the sweep ends."""
    global _active
    if budget is None:
        yield None
        return
    ledger = Ledger(budget)
    _active = ledger
    try:
        yield ledger
    finally:
        _active = None
        if ledger.samples:
            ledger.write()


def budgeted(task: Task, ledger: Ledger | None) -> Task:
    """The task with the sweep's budget as its early-stopping manager."""
    return task if ledger is None else task_with(task, early_stopping=SweepBudget(ledger))


def mark_unfinished(logs: Sequence[EvalLog], ledger: Ledger | None) -> bool:
    """Write each log whose samples the budget stopped back as unfinished (status `error`, with
    why); True when none was."""
    if ledger is None:
        return True
    budget = ledger.budget
    finished = True
    for header in logs:
        stopped = ledger.stopped.get(header.eval.eval_id, 0)
        if not stopped:
            continue
        finished = False
        log = read_eval_log(header.location)
        done = len(log.samples or [])
        log.status = "error"
        log.error = EvalError(
            message=(
                f"selfdx sweep: the budget of {budget.show(budget.amount)} was spent "
                f"({budget.show(ledger.spent())} in all); {stopped} samples of this task did "
                f"not start, {done} finished. Rerun the sweep with a larger --budget: the "
                "finished samples are kept."
            ),
            traceback="",
            traceback_ansi="",
        )
        write_eval_log(log, header.location)
    if not finished:
        warn(
            f"--budget: {budget.show(ledger.spent())} spent of {budget.show(budget.amount)}; "
            "the sweep stopped before its end (rerun with a larger --budget to finish it)"
        )
    return finished

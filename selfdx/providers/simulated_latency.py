"""Simulated API latency for the offline `selfdx` provider (benchmarks only).

Any offline policy, the rule-based judge included, can be served as if over a network:

    --model selfdx/keyword -M latency=0.2
    --model-role 'grader={model: selfdx/rules-judge, model_args: {latency: 0.2}}'

Each call first waits `latency` seconds (fixed, or drawn from `latency_dist` with `latency_spread`
and `latency_seed`), then answers with the policy. The wait happens while Inspect holds a
connection slot, so `max_connections` bounds how many calls are in flight, as with a real API.
Offline models share one connection pool per `pool` name (default "default"): the subject and
the judge share one pool unless one of them is given another `pool`.

`STATS` counts calls, and the peak number of calls in flight, per pool; benchmarks read it.
"""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass, field
from typing import Any

LATENCY_ARGS = ("latency", "latency_dist", "latency_spread", "latency_seed", "pool")
DISTRIBUTIONS = ("fixed", "uniform", "exponential", "lognormal")
DEFAULT_POOL = "default"


@dataclass
class PoolStats:
    """Calls made through one connection pool, and how many ran at once.

    `waited` is the seconds spent waiting, summed over calls; `late` the part of it beyond the
    drawn latency (event-loop lag: the process was too busy to resume the call on time).
    `first_start` and `last_end` are `time.perf_counter()` values.
    """

    calls: int = 0
    in_flight: int = 0
    peak_in_flight: int = 0
    waited: float = 0.0
    late: float = 0.0
    max_late: float = 0.0
    first_start: float | None = None
    last_end: float | None = None
    by_model: dict[str, int] = field(default_factory=dict)


STATS: dict[str, PoolStats] = {}


def reset_stats() -> None:
    """Forget every count (call before each benchmark run)."""
    STATS.clear()


def total_calls() -> int:
    """Calls made through every pool since the last reset."""
    return sum(stats.calls for stats in STATS.values())


@dataclass
class LatencyProfile:
    """How long each call waits: `mean` seconds, shaped by `dist` and `spread`.

    fixed: always `mean`. uniform: mean +/- spread*mean. exponential: mean `mean`.
    lognormal: median `mean`, log-space sigma `spread`. Draws are seeded per model instance.
    """

    mean: float
    dist: str = "fixed"
    spread: float = 0.5
    seed: int | None = None
    rng: random.Random = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if self.mean < 0:
            raise ValueError(f"latency must be >= 0 seconds, got {self.mean}")
        if self.dist not in DISTRIBUTIONS:
            raise ValueError(f"latency_dist {self.dist!r} is not one of {', '.join(DISTRIBUTIONS)}")
        if self.spread < 0:
            raise ValueError(f"latency_spread must be >= 0, got {self.spread}")
        self.rng = random.Random(self.seed)

    def draw(self) -> float:
        """Seconds to wait for the next call."""
        if self.dist == "fixed" or self.mean == 0:
            return self.mean
        if self.dist == "uniform":
            low = max(0.0, self.mean * (1 - self.spread))
            return self.rng.uniform(low, self.mean * (1 + self.spread))
        if self.dist == "exponential":
            return self.rng.expovariate(1 / self.mean)
        return self.rng.lognormvariate(0.0, self.spread) * self.mean


class SimulatedLatency:
    """Waits before an offline reply and records the call in `STATS`."""

    def __init__(self, model_name: str, profile: LatencyProfile, pool: str) -> None:
        self.model_name = model_name
        self.profile = profile
        self.pool = pool

    async def wait(self) -> None:
        stats = STATS.setdefault(self.pool, PoolStats())
        stats.calls += 1
        stats.by_model[self.model_name] = stats.by_model.get(self.model_name, 0) + 1
        stats.in_flight += 1
        stats.peak_in_flight = max(stats.peak_in_flight, stats.in_flight)
        start = time.perf_counter()
        if stats.first_start is None:
            stats.first_start = start
        delay = self.profile.draw()
        try:
            if delay > 0:
                await asyncio.sleep(delay)
        finally:
            stats.in_flight -= 1
            stats.last_end = time.perf_counter()
            stats.waited += stats.last_end - start
            late = stats.last_end - start - delay
            stats.late += late
            stats.max_late = max(stats.max_late, late)


def split_latency_args(model_args: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(latency args, remaining policy args) of a model's `-M` arguments."""
    latency = {k: v for k, v in model_args.items() if k in LATENCY_ARGS}
    rest = {k: v for k, v in model_args.items() if k not in LATENCY_ARGS}
    return latency, rest


def simulated_latency(model_name: str, args: dict[str, Any]) -> SimulatedLatency | None:
    """The latency simulation asked for by `args` (see LATENCY_ARGS), or None without `latency`."""
    if "latency" not in args:
        return None
    profile = LatencyProfile(
        mean=float(args["latency"]),
        dist=str(args.get("latency_dist", "fixed")),
        spread=float(args.get("latency_spread", 0.5)),
        seed=None if args.get("latency_seed") is None else int(args["latency_seed"]),
    )
    return SimulatedLatency(model_name, profile, str(args.get("pool", DEFAULT_POOL)))

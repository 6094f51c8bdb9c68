"""Which benchmark a sample belongs to, so a scorer refuses another benchmark's log at once.

`inspect score LOG --scorer selfdx/mentalbench_scorer` on a Safe-Psych log would otherwise fail
deep inside the scorer, or score nonsense; each scorer checks the sample's metadata first.
"""

from __future__ import annotations

from typing import Any

from selfdx.errors import SelfdxError

# A metadata field that every sample of the benchmark has and no other benchmark's sample has.
MARKERS = {
    "Safe-Psych": "gold_labels",
    "MentalBench": "seed_group",
    "MentalBench case generation": "profile",
}


def benchmark_of(metadata: dict[str, Any] | None) -> str | None:
    """The benchmark whose marker field the metadata carries, or None."""
    found = [name for name, field in MARKERS.items() if field in (metadata or {})]
    return found[0] if len(found) == 1 else None


def require_benchmark(
    metadata: dict[str, Any] | None, expected: str, scorer: str, sample_id: object
) -> None:
    """Raise a one-line error when a sample is not one of `expected`'s."""
    if benchmark_of(metadata) == expected:
        return
    found = benchmark_of(metadata) or "no selfdx benchmark"
    raise SelfdxError(
        f"{scorer} scores {expected} samples, but sample {sample_id!r} is from {found}: "
        "score this log with its own benchmark's scorer"
    )

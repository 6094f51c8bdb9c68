"""Which benchmark a sample belongs to, so a scorer refuses another benchmark's log at once.

`inspect score LOG --scorer selfdx/mentalbench_scorer` on a Safe-Psych log would otherwise fail
deep inside the scorer, or score nonsense; each scorer checks the sample's metadata first.
"""

from __future__ import annotations

from typing import Any

from selfdx.errors import SelfdxError

# The metadata fields every sample of a task has, and the fields none of its samples has.
MARKERS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "Safe-Psych": (("gold_labels",), ()),
    "MentalBench": (("seed_group",), ("case",)),
    "MentalBench case generation": (("profile",), ()),
    "the interview": (("case", "seed_group"), ("probe",)),
    "the patient check": (("case", "probe"), ()),
    "the judge check": (("category", "stage"), ()),
}


def benchmark_of(metadata: dict[str, Any] | None) -> str | None:
    """The task whose marker fields the metadata carries, or None."""
    meta = metadata or {}
    found = [
        name
        for name, (having, lacking) in MARKERS.items()
        if all(f in meta for f in having) and not any(f in meta for f in lacking)
    ]
    return found[0] if len(found) == 1 else None


def require_benchmark(
    metadata: dict[str, Any] | None, expected: str, scorer: str, sample_id: object
) -> None:
    """Raise a one-line error when a sample is not one of `expected`'s."""
    if benchmark_of(metadata) == expected:
        return
    found = benchmark_of(metadata) or "no selfdx task"
    raise SelfdxError(
        f"{scorer} scores {expected} samples, but sample {sample_id!r} is from {found}: "
        "score this log with its own benchmark's scorer"
    )

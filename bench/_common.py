"""Helpers shared by the benchmark scripts: timing, medians, machine notes, tables."""

from __future__ import annotations

import os
import platform
import statistics
import sys
from collections.abc import Sequence
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]

# Benchmarks never touch the user's model-call cache.
os.environ.setdefault("INSPECT_CACHE_DIR", str(Path("/tmp") / "selfdx-bench-cache"))


def machine() -> str:
    """Cores, load and versions, printed with every result."""
    import inspect_ai

    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return (
        f"{os.cpu_count()} cores, load {load}, Python {platform.python_version()}, "
        f"inspect-ai {inspect_ai.__version__}"
    )


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def spread(values: Sequence[float]) -> str:
    """'median (min-max, n runs)' for a list of measurements."""
    if len(values) == 1:
        return f"{values[0]:.2f}"
    return f"{median(values):.2f} ({min(values):.2f}-{max(values):.2f}, n={len(values)})"


def table(rows: list[list[str]], header: list[str]) -> str:
    """A plain Markdown table."""
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    lines = [
        "| " + " | ".join(str(c).ljust(w) for c, w in zip(header, widths, strict=True)) + " |",
        "|" + "|".join("-" * (w + 2) for w in widths) + "|",
    ]
    for row in rows:
        cells = zip(row, widths, strict=True)
        lines.append("| " + " | ".join(str(c).ljust(w) for c, w in cells) + " |")
    return "\n".join(lines)


def say(text: str = "") -> None:
    print(text, flush=True)
    sys.stdout.flush()

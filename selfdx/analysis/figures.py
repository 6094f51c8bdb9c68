"""Shared plotting helpers (matplotlib, no display)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.figure import Figure as MplFigure  # noqa: E402


@dataclass(frozen=True)
class Figure:
    """A written figure: its file and what it shows."""

    path: Path
    title: str
    caption: str


def save(fig: MplFigure, out_dir: Path, name: str, title: str, caption: str) -> Figure:
    """Write `fig` as `<out_dir>/figures/<name>.png` and close it."""
    folder = out_dir / "figures"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.png"
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return Figure(path, title, caption)


def subplots(count: int, width: float = 5.0, height: float = 4.0):
    """A row of `count` axes (at least one), returned as a list."""
    fig, axes = plt.subplots(
        1, max(count, 1), figsize=(width * max(count, 1), height), squeeze=False
    )
    return fig, list(axes[0])


def stage_label(stage: int, num_stages: int) -> str:
    """S1..S4 for intermediate stages; the last stage of a case is "Final"."""
    return "Final" if stage == num_stages else f"S{stage}"


STAGE_AXIS = ("S1", "S2", "S3", "S4", "Final")

"""Shared plotting helpers (matplotlib, no display), sized for a two-column paper.

A figure is drawn at the size it is meant to be printed: one panel a column wide (3.3 in),
several panels (or many bars) the page wide (7 in), every text at 8 pt or more. Models keep
one colour and marker in every panel and figure of a benchmark (`model_styles`); categories
(timings, error types, modes) take the pale colours of `CATEGORY`, so that they are never read
as models. Legends sit below the panels and files are saved with a tight bounding box, so no
label is cut.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.figure import Figure as MplFigure  # noqa: E402

DPI = 200
COLUMN_WIDTH = 3.3  # inches: one column of a two-column paper
PAGE_WIDTH = 7.0  # inches: the full text width
PANEL_HEIGHT = 2.3  # inches: one row of panels, legend and axis labels not included
FONT_SIZE = 8  # points: the smallest text of any figure
CHAR_WIDTH = 0.065  # inches: a generous average width of one character at FONT_SIZE
LINE_HEIGHT = 0.14  # inches: one line of text at FONT_SIZE

# Applied only while a report draws its figures (`report_style`), never to the importing process.
RC_PARAMS = {
    "font.size": FONT_SIZE,
    "axes.titlesize": FONT_SIZE,
    "axes.labelsize": FONT_SIZE,
    "xtick.labelsize": FONT_SIZE,
    "ytick.labelsize": FONT_SIZE,
    "legend.fontsize": FONT_SIZE,
    "legend.title_fontsize": FONT_SIZE,
    "figure.titlesize": FONT_SIZE + 1,
    "figure.labelsize": FONT_SIZE,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.axisbelow": True,
    "axes.grid": True,
    "axes.grid.axis": "y",
    "grid.color": "#e6e6e6",
    "grid.linewidth": 0.6,
    "legend.frameon": False,
    "lines.linewidth": 1.3,
    "lines.markersize": 5,
    "errorbar.capsize": 2,
    "savefig.dpi": DPI,
}

# Okabe and Ito's colour-blind-safe qualitative palette, black left out (it marks references).
MODEL_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442")
# Six markers against seven colours: every (colour, marker) pair differs for 42 models.
MARKERS = ("o", "s", "^", "D", "v", "P")
HATCHES = ("", "///", "...", "xxx")  # bars of the models past the colours
LINESTYLES = ("-", "-.", ":", (0, (4, 1, 1, 1, 1, 1)))  # and their lines
# Paul Tol's colour-blind-safe "light" palette, for categories other than models.
CATEGORY = {
    "blue": "#77AADD",
    "orange": "#EE8866",
    "yellow": "#EEDD88",
    "pink": "#FFAABB",
    "cyan": "#99DDFF",
    "mint": "#44BB99",
    "pear": "#BBCC33",
    "olive": "#AAAA00",
    "grey": "#DDDDDD",
}
REFERENCE = "black"  # expert curves and other references, never a model


@dataclass(frozen=True)
class Figure:
    """A written figure: its file and what it shows."""

    path: Path
    title: str
    caption: str


class ModelStyle(NamedTuple):
    """How one model (one legend label) is drawn: colour, marker for points and lines,
    hatch for bars, line style."""

    colour: str
    marker: str
    hatch: str
    line: str | tuple


def model_styles(labels: Iterable[str]) -> dict[str, ModelStyle]:
    """One style per distinct label, assigned in sorted order: the same labels get the same
    styles whatever order they come in. Colours repeat past seven labels, with another marker
    and hatch or line style. Inside `shared_model_styles`, its labels come first (see there)."""
    wanted = set(labels)
    shared = _SHARED_LABELS.get()
    order = [*shared, *sorted(wanted - set(shared))]
    return {label: _style(index) for index, label in enumerate(order) if label in wanted}


def _style(index: int) -> ModelStyle:
    return ModelStyle(
        MODEL_COLOURS[index % len(MODEL_COLOURS)],
        MARKERS[index % len(MARKERS)],
        HATCHES[(index // len(MODEL_COLOURS)) % len(HATCHES)],
        LINESTYLES[(index // len(MODEL_COLOURS)) % len(LINESTYLES)],
    )


_SHARED_LABELS: ContextVar[tuple[str, ...]] = ContextVar("selfdx_shared_labels", default=())


@contextmanager
def shared_model_styles(labels: Iterable[str]) -> Iterator[None]:
    """Within the block every call of `model_styles` styles `labels` as one sorted set, ahead
    of any other label: a model keeps its colour across the sections of one report, whose
    collectors each style only their own labels. Wrap the drawing of a report's figures in
    it with the report's model names."""
    token = _SHARED_LABELS.set(tuple(sorted(set(labels))))
    try:
        yield
    finally:
        _SHARED_LABELS.reset(token)


@contextmanager
def report_style(models: Iterable[str]) -> Iterator[None]:
    """The report's figure settings (`RC_PARAMS`) and one style per model across all its
    sections (`shared_model_styles`), for the duration of the block only."""
    with plt.rc_context(RC_PARAMS), shared_model_styles(models):
        yield


def bar_style(style: ModelStyle) -> dict[str, object]:
    """Keyword arguments of `Axes.bar` for a model's bars."""
    return {
        "color": style.colour,
        "hatch": style.hatch or None,
        "edgecolor": "#333333" if style.hatch else "white",
        "linewidth": 0.5,
    }


def stacked_shares(ax: Axes, rows: Sequence[dict[str, float]], parts: Sequence[tuple]) -> None:
    """One stacked bar per row: each part (key, legend label, colour), in order, drawn on top
    of the parts before it."""
    bottoms = np.zeros(len(rows))
    for key, label, colour in parts:
        heights = np.array([row[key] for row in rows])
        ax.bar(range(len(rows)), heights, 0.7, bottom=bottoms, label=label, **category_bar(colour))
        bottoms += heights


def category_bar(colour: str) -> dict[str, object]:
    """Keyword arguments of `Axes.bar` for one category of a stacked or grouped bar chart."""
    return {"color": colour, "edgecolor": "white", "linewidth": 0.5}


def subplots(
    count: int = 1,
    *,
    wide: bool = False,
    columns: int | None = None,
    height: float | None = None,
    sharex: bool = False,
    sharey: bool = False,
) -> tuple[MplFigure, list[Axes]]:
    """`count` panels (at least one) on a grid, returned as a list.

    One panel is a column wide unless `wide`; several are the page wide, `columns` to a row
    (all of them up to four, else three). `height` is the whole figure's; by default
    `PANEL_HEIGHT` a row plus room for a legend below.
    """
    count = max(count, 1)
    if columns is None:
        columns = count if count <= 4 else 3
    columns = min(columns, count)
    rows = math.ceil(count / columns)
    width = COLUMN_WIDTH if count == 1 and not wide else PAGE_WIDTH
    fig, grid = plt.subplots(
        rows,
        columns,
        figsize=(width, height or PANEL_HEIGHT * rows + 0.6),
        squeeze=False,
        sharex=sharex,
        sharey=sharey,
        layout="constrained",
    )
    axes = [ax for row in grid for ax in row]
    for spare in axes[count:]:
        fig.delaxes(spare)
    return fig, axes[:count]


def wrap(text: str, width: int) -> str:
    """`text` on lines of at most `width` characters, broken after spaces, `/`, `_` or `-`
    (model and strategy names) and inside a word only when the word alone is longer."""
    lines: list[str] = []
    for paragraph in str(text).split("\n"):
        line = ""
        for token in re.findall(r"[^\s/_-]*(?:[/_-]+|\s+|$)", paragraph):
            if not token:
                continue
            if line and len((line + token).rstrip()) > width:
                lines.append(line.rstrip())
                line = ""
            while len(token.rstrip()) > width:
                lines.append(token[:width])
                token = token[width:]
            line += token
        lines.append(line.rstrip())
    return "\n".join(lines)


def panel_width(ax: Axes) -> float:
    """The width in inches of the grid cell `ax` sits in."""
    spec = ax.get_subplotspec()
    columns = spec.get_gridspec().ncols if spec is not None else 1
    return ax.figure.get_figwidth() / columns


def set_title(ax: Axes, text: str) -> None:
    """A panel title, wrapped to the panel's width."""
    ax.set_title(wrap(text, max(int(panel_width(ax) / CHAR_WIDTH) - 2, 12)))


def label_ticks(
    ax: Axes, labels: Sequence[str], width: int = 16, room: float | None = None
) -> float:
    """Category labels under the x axis: wrapped to `width` characters where they fit side
    by side, else on one line (up to 30 characters) and slanted as steeply as they need.
    `room`: the inches the axis spans (by default most of its panel). Returns about how deep
    the labels reach below the axis, in inches."""
    count = max(len(labels), 1)
    slot = (room or panel_width(ax) * 0.8) / count  # inches of axis per label
    wrapped = [wrap(label, width) for label in labels]
    lines = max((label.count("\n") + 1 for label in wrapped), default=1)
    if _longest_line(wrapped) * CHAR_WIDTH <= slot:
        ax.set_xticks(range(len(labels)), wrapped)
        ax.tick_params(axis="x", length=0)
        return lines * LINE_HEIGHT
    wrapped = [wrap(label.replace("\n", " "), 30) for label in labels]
    lines = max(label.count("\n") + 1 for label in wrapped)
    angle = next(
        (a for a in (35, 60) if slot * math.sin(math.radians(a)) >= lines * LINE_HEIGHT * 1.4),
        90,
    )
    ax.set_xticks(range(len(labels)), wrapped, rotation=angle, ha="right", rotation_mode="anchor")
    ax.tick_params(axis="x", length=0)
    radians = math.radians(angle)
    return _longest_line(wrapped) * CHAR_WIDTH * math.sin(radians) + lines * LINE_HEIGHT * math.cos(
        radians
    )


def _longest_line(labels: Sequence[str]) -> int:
    return max((len(line) for label in labels for line in label.split("\n")), default=0)


def axis_labels(axes: Sequence[Axes], xlabel: str, ylabel: str) -> None:
    """Axis titles on the outer panels only: x under the bottom row, y left of the first
    column (each wrapped to its panel)."""
    for ax in axes:
        spec = ax.get_subplotspec()
        if xlabel and (spec is None or spec.is_last_row()):
            ax.set_xlabel(wrap(xlabel, max(int(panel_width(ax) / CHAR_WIDTH) - 4, 12)))
        if ylabel and (spec is None or spec.is_first_col()):
            ax.set_ylabel(ylabel)


def legend_below(
    fig: MplFigure,
    axes: Sequence[Axes],
    title: str | None = None,
    sort: bool = False,
    last: Collection[str] = (),
) -> None:
    """One legend for all panels, below them: every label once, in the order first drawn (or
    sorted, the models' palette order), the labels in `last` at the end. As many columns as
    fit the width; the figure grows by the rows past the first, so the panels keep their
    size."""
    entries: dict[str, object] = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            entries.setdefault(label, handle)
    if not entries:
        return
    names = sorted(entries) if sort else list(entries)
    names = [n for n in names if n not in last] + [n for n in names if n in last]
    width = fig.get_figwidth()
    most = max(int((width - 0.3) / CHAR_WIDTH) - 5, 12)  # characters on one legend line
    labels = [wrap(name, most) for name in names]
    ncols, chunks = 1, [labels]
    for columns in range(len(labels), 0, -1):
        per = math.ceil(len(labels) / columns)  # matplotlib fills the columns in turn
        split = [labels[i : i + per] for i in range(0, len(labels), per)]
        if sum(_longest_line(chunk) * CHAR_WIDTH + 0.5 for chunk in split) <= width - 0.2:
            ncols, chunks = columns, split
            break
    lines = max(sum(label.count("\n") + 1 for label in chunk) for chunk in chunks)
    lines += 1 if title else 0
    fig.set_figheight(fig.get_figheight() + max(lines - 1, 0) * 0.17)
    fig.legend(
        [entries[name] for name in names],
        labels,
        loc="outside lower center",
        ncols=ncols,
        title=title,
        handlelength=1.6,
        columnspacing=1.0,
    )


def save(fig: MplFigure, out_dir: Path, name: str, title: str, caption: str) -> Figure:
    """Write `fig` as `<out_dir>/figures/<name>.png` and close it. The bounding box is the
    drawn artists' own, so a long label or a legend outside the axes is never cut."""
    folder = out_dir / "figures"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.png"
    if fig.get_layout_engine() is None:
        fig.tight_layout()
    fig.savefig(path, dpi=DPI, bbox_inches="tight", pad_inches=0.04)
    plt.close(fig)
    return Figure(path, title, caption)


def stage_label(stage: int, num_stages: int) -> str:
    """S1..S4 for intermediate stages; the last stage of a case is "Final"."""
    return "Final" if stage == num_stages else f"S{stage}"


STAGE_AXIS = ("S1", "S2", "S3", "S4", "Final")

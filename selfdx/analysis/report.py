"""`selfdx report`: Inspect logs -> Markdown and CSV tables, PNG figures, one HTML page."""

from __future__ import annotations

import base64
import html
from collections import Counter
from pathlib import Path

import pandas as pd

from selfdx.analysis.figures import Figure
from selfdx.analysis.logs import Run, find_runs, stream_samples
from selfdx.analysis.metric_table import frame_markdown, long_frame, wide_markdown
from selfdx.analysis.safe_psych_report import SafePsychCollector

TITLES = {"safe_psych": "Safe-Psych", "mentalbench": "MentalBench"}


def collectors() -> dict[str, object]:
    """One collector per benchmark (MentalBench's is loaded only if available)."""
    found: dict[str, object] = {"safe_psych": SafePsychCollector()}
    try:
        from selfdx.analysis.mentalbench_report import MentalBenchCollector
    except ImportError:
        return found
    found["mentalbench"] = MentalBenchCollector()
    return found


def build_report(log_dir: str | Path, out_dir: str | Path, progress: bool = True) -> Path:
    """Read every selfdx run under `log_dir` and write the report into `out_dir`."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    runs, skipped = find_runs(log_dir)
    by_benchmark = collectors()
    read: Counter = Counter()
    errored: Counter = Counter()
    for run, sample in stream_samples(runs, progress=progress):
        read[run.path] += 1
        if sample.error is not None:
            errored[run.path] += 1
        collector = by_benchmark.get(run.benchmark)
        if collector is not None:
            collector.add(run, sample)
    run_table = runs_frame(runs, read, errored)
    run_table.to_csv(out / "runs.csv", index=False)

    sections: list[tuple[str, str, pd.DataFrame, list[Figure]]] = []
    for benchmark, collector in by_benchmark.items():
        if not any(run.benchmark == benchmark for run in runs):
            continue
        cells = collector.cells()
        frame = long_frame(cells)
        frame.to_csv(out / f"{benchmark}_metrics.csv", index=False)
        tables = []
        for title, names in collector.metric_groups().items():
            present = [m for m in names if any(m in row for row in cells.values())]
            if present:
                tables.append(f"### {title}\n\n{wide_markdown(cells, present)}")
        markdown = "\n\n".join(tables)
        for name, table in collector.extra_tables().items():
            table.to_csv(out / f"{benchmark}_{name}.csv", index=False)
            title = name.replace("_", " ").capitalize()
            shown = frame_markdown(table.head(40))
            if len(table) > 40:
                shown += f"\n\nFirst 40 of {len(table)} rows; all in `{benchmark}_{name}.csv`."
            markdown += f"\n\n### {title}\n\n{shown}"
        figures = collector.figures(out, cells)
        sections.append((benchmark, markdown, frame, figures, collector.metric_groups()))

    write_markdown(out, run_table, skipped, sections)
    write_html(out, run_table, skipped, sections)
    return out


def runs_frame(runs: list[Run], read: Counter, errored: Counter) -> pd.DataFrame:
    """One row per log: what it ran, and how many of its samples the metrics cover."""
    rows = []
    for run in runs:
        scored = read[run.path] - errored[run.path]
        rows.append(
            {
                "log": Path(run.path.replace("file://", "")).name,
                "benchmark": run.benchmark,
                "model": run.model,
                "variant": run.variant,
                "judge": run.judge or "",
                "seed": run.seed,
                "epochs": run.epochs,
                "samples_planned": run.total_samples,
                "samples_scored": scored,
                "samples_errored": errored[run.path],
                "complete": scored >= run.total_samples,
            }
        )
    return pd.DataFrame(rows)


def incomplete_note(run_table: pd.DataFrame) -> str:
    """A warning naming the runs whose metrics cover fewer samples than were planned."""
    if run_table.empty or run_table.complete.all():
        return ""
    names = ", ".join(run_table[~run_table.complete].log)
    return (
        f"Warning: some samples of these runs errored or did not finish, and their metrics "
        f"cover the scored samples only: {names}. See the Runs table."
    )


INTRO = (
    "Each cell: the metric over the cases it applies to, with a 95% percentile bootstrap "
    "interval (cases resampled; epochs of one case stay together; seeded). When a "
    "configuration was run several times (seeds), the mean over runs with a 95% Student-t "
    "interval follows."
)


def write_markdown(out: Path, run_table: pd.DataFrame, skipped, sections) -> Path:
    lines = ["# selfdx report", "", INTRO, "", f"Runs read: {len(run_table)}."]
    warning = incomplete_note(run_table)
    if warning:
        lines += ["", f"**{warning}**"]
    if skipped:
        lines += ["", "Logs left out:"] + [f"- `{path}`: {reason}" for path, reason in skipped]
    if not run_table.empty:
        lines += ["", "## Runs", "", frame_markdown(run_table), ""]
    for benchmark, markdown, _, figures, _ in sections:
        lines += ["", f"## {TITLES.get(benchmark, benchmark)}", "", markdown, ""]
        lines += [f"Full table: `{benchmark}_metrics.csv`.", ""]
        for figure in figures:
            relative = figure.path.relative_to(out)
            lines += [
                f"### {figure.title}",
                "",
                f"![{figure.title}]({relative})",
                "",
                figure.caption,
                "",
            ]
    path = out / "report.md"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def _image_tag(figure: Figure) -> str:
    data = base64.b64encode(figure.path.read_bytes()).decode("ascii")
    return f'<img alt="{html.escape(figure.title)}" src="data:image/png;base64,{data}">'


def write_html(out: Path, run_table: pd.DataFrame, skipped, sections) -> Path:
    """One self-contained page: tables inline, figures embedded as data URIs."""
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'><title>selfdx report</title>",
        "<style>body{font-family:sans-serif;max-width:1200px;margin:2em auto;padding:0 1em}"
        "table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ccc;"
        "padding:3px 6px}img{max-width:100%}</style></head><body>",
        "<h1>selfdx report</h1>",
        f"<p>{html.escape(INTRO)}</p>",
        f"<p>Runs read: {len(run_table)}.</p>",
    ]
    warning = incomplete_note(run_table)
    if warning:
        parts.append(f"<p><strong>{html.escape(warning)}</strong></p>")
    if skipped:
        items = "".join(
            f"<li><code>{html.escape(p)}</code>: {html.escape(r)}</li>" for p, r in skipped
        )
        parts.append(f"<p>Logs left out:</p><ul>{items}</ul>")
    if not run_table.empty:
        parts += ["<h2>Runs</h2>", run_table.to_html(index=False)]
    for benchmark, _, frame, figures, groups in sections:
        parts.append(f"<h2>{html.escape(TITLES.get(benchmark, benchmark))}</h2>")
        cells = frame.assign(cell=frame.apply(_cell_text, axis=1))
        for title, names in groups.items():
            part = cells[cells.metric.isin(names)]
            if part.empty:
                continue
            wide = part.pivot_table(
                index=["model", "variant", "judge"],
                columns="metric",
                values="cell",
                aggfunc="first",
                sort=False,
            )
            wide = wide[[name for name in names if name in wide.columns]]
            parts += [f"<h3>{html.escape(title)}</h3>", wide.to_html(na_rep="–")]
        for figure in figures:
            parts += [
                f"<h3>{html.escape(figure.title)}</h3>",
                _image_tag(figure),
                f"<p>{html.escape(figure.caption)}</p>",
            ]
    parts.append("</body></html>")
    path = out / "report.html"
    path.write_text("\n".join(parts), encoding="utf-8")
    return path


def _cell_text(row: pd.Series) -> str:
    if pd.isna(row["value"]):
        return "–"
    text = f"{row['value']:.3f}"
    if not pd.isna(row["ci_low"]):
        text += f" [{row['ci_low']:.3f}, {row['ci_high']:.3f}]"
    return text

"""`selfdx report`: Inspect logs -> Markdown and CSV tables, PNG figures, one HTML page."""

from __future__ import annotations

import base64
import html
import math
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from selfdx.analysis import checks, cost
from selfdx.analysis.evaluation_report import write_report_blocks
from selfdx.analysis.figures import Figure, report_style
from selfdx.analysis.interview.report import InterviewCollector
from selfdx.analysis.logs import ConfigKey, Run, find_runs, stream_samples
from selfdx.analysis.mentalbench.report import MentalBenchCollector
from selfdx.analysis.metric_table import frame_markdown, long_frame, text_frame, wide_frame
from selfdx.analysis.outputs import finish, previous_files
from selfdx.analysis.safe_psych.corrected import (
    NOTE,
    corrected_display,
    corrected_frame,
    given_checks,
    match_checks,
)
from selfdx.analysis.safe_psych.report import SafePsychCollector
from selfdx.analysis.viewer_links import DEFAULT_VIEW_URL, LINK, link, links, viewer_urls
from selfdx.errors import SelfdxError, warn
from selfdx.nan_notes import reason as nan_reason
from selfdx.run_facts import CHECKS

TITLES = {
    "safe_psych": "Safe-Psych",
    "mentalbench": "MentalBench",
    "interview": "Interview",
    "judge_check": "Judge check",
    "patient_check": "Patient check",
    "question_check": "Question check",
    "risk_response_check": "Risk-response check",
    "mentalbench_generate": "Case generation",
    "cost": "What the runs cost",
}


def collectors() -> dict[str, object]:
    """One collector per benchmark. An error importing one is a bug and is raised, never
    taken for a missing section."""
    return {
        "safe_psych": SafePsychCollector(),
        "mentalbench": MentalBenchCollector(),
        "interview": InterviewCollector(),
    }


@dataclass
class Section:
    """One benchmark's part of the report: its tables (as shown) and figures."""

    benchmark: str
    tables: list[tuple[str, pd.DataFrame, str]] = field(default_factory=list)  # title, cells, note
    figures: list[Figure] = field(default_factory=list)
    note: str = ""


def build_report(
    log_dir: str | Path,
    out_dir: str | Path,
    progress: bool = True,
    prices: str | None = None,
    judge_checks: list[str] | None = None,
    view_url: str = DEFAULT_VIEW_URL,
) -> Path:
    """Read every selfdx run under `log_dir` and write the report into `out_dir`.

    `prices`: a price table for the cost section (see `selfdx.analysis.cost.load_prices`).
    `judge_checks`: `selfdx/judge_check` logs (files or folders) of the Safe-Psych judge, to
    correct the judged rates with (checks among the logs themselves are used where they match).
    `view_url`: where `inspect view` shows `log_dir`; every table row links to its logs there
    (`selfdx.analysis.viewer_links`).

    Raises SelfdxError when `log_dir` is missing, holds no logs or no finished selfdx run. A log
    that cannot be read is left out with a warning. Files of an earlier report in `out_dir`
    that this one does not write again are removed (see `selfdx.analysis.outputs`).
    """
    out = Path(out_dir)
    price_table = cost.load_prices(prices) if prices else {}
    runs, skipped = find_runs(log_dir)
    for path, reason in skipped:
        if reason.startswith("not a readable"):
            warn(f"{path}: {reason}; left out of the report")
    if not runs:
        reasons = "; ".join(f"{Path(p).name}: {r}" for p, r in skipped[:3])
        more = f" (and {len(skipped) - 3} more)" if len(skipped) > 3 else ""
        raise SelfdxError(
            f"no finished selfdx run in {log_dir} among {len(skipped)} logs: {reasons}{more}"
        )
    if out.exists() and not out.is_dir():
        raise SelfdxError(f"--out {out} is a file, not a folder")
    previous_files(out, "report")  # refuses a folder that holds another command's output
    out.mkdir(parents=True, exist_ok=True)
    given = [check for path in judge_checks or [] for check in given_checks(str(path))]
    by_benchmark = collectors()
    read: Counter = Counter()
    errored: Counter = Counter()
    sampled = [run for run in runs if run.benchmark in by_benchmark]
    for run in runs:  # a check's metrics come from its header: its samples are not read
        if run.benchmark not in by_benchmark:
            read[run.path] = run.completed_samples
    headers_only = len(runs) - len(sampled)
    served: dict[str, cost.Served] = {run.path: {} for run in sampled}
    for run, sample in stream_samples(sampled, progress=progress, read_already=headers_only):
        read[run.path] += 1
        cost.served_usage(sample, served[run.path])
        if sample.error is not None:
            errored[run.path] += 1
        collector = by_benchmark.get(run.benchmark)
        if collector is not None:
            collector.add(run, sample)
    urls = viewer_urls(str(log_dir), [run.path for run in runs], view_url)
    finished_checks = [r for r in runs if r.benchmark == "judge_check" and r.status == "success"]
    corrections = match_checks(runs, finished_checks, given)
    run_table = runs_frame(runs, read, errored, urls)
    written = [out / "runs.csv"]
    run_table.to_csv(written[0], index=False)

    sections: list[Section] = []
    for benchmark, collector in by_benchmark.items():
        if not any(run.benchmark == benchmark for run in runs):
            continue
        section = Section(benchmark)
        sections.append(section)
        cells = collector.cells()
        if not cells:
            section.note = "No scored samples in these runs (see the Runs table)."
            continue
        metrics_csv = out / f"{benchmark}_metrics.csv"
        long_frame(cells, urls).to_csv(metrics_csv, index=False)
        written.append(metrics_csv)
        notes = collector.group_notes(runs) if hasattr(collector, "group_notes") else {}
        for title, names in collector.metric_groups().items():
            present = [m for m in names if any(m in row for row in cells.values())]
            if present:
                empty = nan_note(benchmark, cells, present)
                note = " ".join(filter(None, [notes.get(title, ""), empty]))
                section.tables.append((title, wide_frame(cells, present, urls), note))
        logs = collector.metrics.logs
        for name, table in collector.extra_tables().items():
            path = out / f"{benchmark}_{name}.csv"
            table = with_links(table, benchmark, logs, urls)
            table.to_csv(path, index=False)
            written.append(path)
            note = ""
            if len(table) > 40:
                note = f"First 40 of {len(table)} rows; all in `{path.name}`."
            title = name.replace("_", " ").capitalize()
            section.tables.append((title, text_frame(shown_links(table.head(40))), note))
        if benchmark == "safe_psych" and corrections:
            frame = corrected_frame(collector.rows, corrections)
            if len(frame):
                path = out / "safe_psych_judge_corrected.csv"
                frame = with_links(frame, benchmark, logs, urls)
                frame.to_csv(path, index=False)
                written.append(path)
                shown = corrected_display(frame.drop(columns="log_viewer"))
                shown.insert(4, "view", [links(u.split()) for u in frame["log_viewer"]])
                section.tables.append(("Judge-corrected rates", shown, NOTE))
        with report_style(run.model for run in runs):  # one colour per model, every section
            section.figures = collector.figures(out, cells)
        written += [figure.path for figure in section.figures]
    for check in CHECKS:
        check_runs = [run for run in runs if run.benchmark == check]
        if check_runs:
            sections.append(check_section(out, check, check_runs, written, urls))
    sections.append(cost_section(out, runs, price_table, written, urls, served))
    written += write_report_blocks(out, runs)  # for inspect_evals register entries

    banner = demo_banner(runs)
    written.append(write_markdown(out, run_table, skipped, sections, banner))
    written.append(write_html(out, run_table, skipped, sections, banner))
    finish(out, "report", written)
    return out


def row_logs(row: pd.Series, benchmark: str, logs: dict[ConfigKey, dict[str, None]]) -> list:
    """The logs behind one row of a table keyed by model, variant (or strategy, or the
    interview's `cases` over its modes), judge and dataset."""
    found: dict[str, None] = {}
    for key, paths in logs.items():
        same = key.benchmark == benchmark and key.model == row.get("model")
        same = same and key.dataset == row.get("dataset")
        if "judge" in row:
            same = same and key.judge == (row["judge"] if isinstance(row["judge"], str) else "")
        variant = row.get("variant", row.get("strategy"))
        if variant is not None:
            same = same and key.variant == variant
        elif "cases" in row:  # one row over the modes: `<mode>, <cases>`
            same = same and " · " not in key.variant and key.variant.endswith(f", {row['cases']}")
        if same:
            found.update(paths)
    return list(found)


def with_links(
    table: pd.DataFrame, benchmark: str, logs: dict, urls: dict[str, str]
) -> pd.DataFrame:
    """`table` with a `log_viewer` column: each row's logs in `inspect view` (a space between),
    where its columns name a configuration."""
    if table.empty or "model" not in table or "dataset" not in table:
        return table
    table = table.copy()
    table["log_viewer"] = [
        " ".join(urls[p] for p in row_logs(row, benchmark, logs) if p in urls)
        for _, row in table.iterrows()
    ]
    return table


def shown_links(table: pd.DataFrame) -> pd.DataFrame:
    """A table as shown: its `log_viewer` addresses as a `view` column of links."""
    if "log_viewer" not in table:
        return table
    shown = table.drop(columns="log_viewer")
    place = list(shown.columns).index("dataset") + 1
    shown.insert(place, "view", [links(u.split()) or "–" for u in table["log_viewer"]])
    return shown


def nan_note(benchmark: str, cells: dict, names: list[str]) -> str:
    """Why a metric shows `–` (NaN) in some row of a table: no case of that row is one it counts."""
    empty = [
        name
        for name in names
        if any(name in row and math.isnan(row[name].value) for row in cells.values())
    ]
    if not empty:
        return ""
    reasons = "; ".join(f"`{name}`: {nan_reason(benchmark, name)}" for name in empty)
    return f"A `–` is a metric with no value in that row: {reasons}."


def check_section(
    out: Path, check: str, runs: list[Run], written: list[Path], urls: dict[str, str]
) -> Section:
    """A check's metrics as its task computed them, a column per run (`analysis.checks`),
    under a first row that links each run to its log in `inspect view`."""
    section = Section(check, note=checks.WHAT[check])
    long = checks.long_metrics(check, runs)
    if long.empty:
        section.note += " No metrics in these runs (see the Runs table)."
        return section
    path = out / f"{check}_metrics.csv"
    long.to_csv(path, index=False)
    written.append(path)
    section.tables.append(
        ("Results", checks.wide_metrics(long, runs, urls), f"All values: `{path.name}`.")
    )
    return section


COST_NOTE = (
    "Tokens as Inspect counted them, by role: the model under test, the judge (`grader`, "
    "`grader_2`, ...) and the interview's patient. A case is one sample of one epoch. Dollars "
    "come from `--prices` (Inspect's `--model-cost-config` format), else from the cost Inspect "
    "recorded in the log; `–` where neither has a price (the offline models). Calls a cache "
    "answered cost nothing (`cost`) but count in the tokens and cost per case, as a fresh run "
    "would pay for them (`served_*` columns of `cost_by_run.csv`). The projection "
    "multiplies the tokens per case by the cases of the published data (or of the run's own "
    "data, when that is not the demo set). How to spend less: docs/reports.md, What a run costs."
)


def cost_section(
    out: Path,
    runs: list[Run],
    prices: dict,
    written: list[Path],
    urls: dict[str, str],
    served: dict[str, cost.Served] | None = None,
) -> Section:
    """Tokens and dollars by run and role, the spend by model, and the projected cost of each
    configuration on its whole published benchmark (`selfdx.analysis.cost`); `served`: the
    calls a cache answered, by log, in the runs whose samples were read."""
    section = Section("cost", note=COST_NOTE)
    usage = cost.usage_frame(runs, prices, urls, served)
    if usage.empty:
        section.note += " These runs recorded no token usage."
        return section
    for problem in cost.price_problems(usage, prices):
        warn(problem)
        section.note += f" Warning: {problem}."
    projection = cost.projection_frame(usage)
    for name, frame in (("cost_by_run", usage), ("cost_projection", projection)):
        path = out / f"{name}.csv"
        frame.to_csv(path, index=False)
        written.append(path)
    section.tables += [
        ("Tokens and cost by run", text_frame(linked_logs(usage, cost.SHOWN_USAGE)), ""),
        (
            "Spend by model",
            text_frame(
                shown_links(
                    cost.shown(
                        cost.total_by_model(usage),
                        ["model", "dataset", "runs", "input_tokens", "output_tokens", "cost"]
                        + ["log_viewer"],
                    )
                )
            ),
            "",
        ),
        (
            "Projected cost of the whole published benchmark",
            text_frame(shown_links(cost.shown(projection, [*cost.SHOWN_PROJECTION, "log_viewer"]))),
            "All columns: `cost_by_run.csv`, `cost_projection.csv`.",
        ),
    ]
    return section


def demo_banner(runs: list[Run]) -> str:
    """A warning when any result comes from the bundled demo data."""
    demo = [run for run in runs if run.is_demo]
    if not demo:
        return ""
    share = "Every run" if len(demo) == len(runs) else f"{len(demo)} of {len(runs)} runs"
    return (
        f"Demo data: {share} ran on the bundled demo set (a few synthetic cases written to "
        "test the pipeline), not on the published benchmark data; their numbers say nothing "
        "about a model. See the dataset column."
    )


def linked_logs(usage: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """The cost table as shown, each log's name a link to it in `inspect view`."""
    table = cost.shown(usage, columns)
    table["log"] = [link(n, u) for n, u in zip(usage["log"], usage["log_viewer"], strict=True)]
    return table


def runs_frame(
    runs: list[Run], read: Counter, errored: Counter, urls: dict[str, str]
) -> pd.DataFrame:
    """One row per log: what it ran, on which data, how many of its samples the metrics
    cover, and its address in `inspect view`."""
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
                "roles": ", ".join(f"{n}={m}" for n, m in sorted(run.roles.items())),
                "dataset": run.dataset,
                "data_id": run.data_id,
                "seed": pd.NA if run.seed is None else run.seed,
                "epochs": run.epochs,
                "samples_planned": run.total_samples,
                "samples_scored": scored,
                "samples_errored": errored[run.path],
                "complete": scored >= run.total_samples,
                "log_viewer": urls.get(run.path, ""),
            }
        )
    frame = pd.DataFrame(rows)
    if not frame.empty:
        frame["seed"] = frame["seed"].astype("Int64")
    return frame


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
    "interval (cases resampled; epochs of one case stay together; seeded). Runs are pooled "
    "only when model, judge, task arguments and data (the dataset column) all agree: such "
    "a configuration run several times (seeds) also shows the mean over runs with a 95% "
    "Student-t interval, clipped to [0, 1] where it reaches past (and marked so)."
)


def _runs_shown(run_table: pd.DataFrame) -> pd.DataFrame:
    """The runs table as shown: each log's name a link to it in `inspect view`."""
    table = run_table.drop(columns="log_viewer")
    table["log"] = [
        link(n, u) for n, u in zip(run_table["log"], run_table["log_viewer"], strict=True)
    ]
    return text_frame(table)


def write_markdown(
    out: Path, run_table: pd.DataFrame, skipped, sections: list[Section], banner: str
) -> Path:
    lines = ["# selfdx report", ""]
    if banner:
        lines += [f"> **{banner}**", ""]
    lines += [INTRO, "", f"Runs read: {len(run_table)}."]
    warning = incomplete_note(run_table)
    if warning:
        lines += ["", f"**{warning}**"]
    if skipped:
        lines += ["", "Logs left out:"] + [f"- `{path}`: {reason}" for path, reason in skipped]
    lines += ["", "## Runs", "", frame_markdown(_runs_shown(run_table)), ""]
    for section in sections:
        lines += ["", f"## {TITLES.get(section.benchmark, section.benchmark)}", ""]
        if section.note:
            lines += [section.note, ""]
        for title, table, note in section.tables:
            lines += [f"### {title}", "", frame_markdown(table), ""]
            if note:
                lines += [note, ""]
        if section.tables and section.benchmark not in (*CHECKS, "cost"):
            lines += [f"Full table: `{section.benchmark}_metrics.csv`.", ""]
        for figure in section.figures:
            relative = figure.path.relative_to(out)
            lines += [
                f"### {figure.title}",
                "",
                f"![{figure.title}]({relative.as_posix()})",
                "",
                figure.caption,
                "",
            ]
    path = out / "report.md"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def _image_tag(figure: Figure) -> str:
    """The figure as a data URI, shown at 1.5 times its print size (its 8 pt text then about
    as large as the page's) and never wider than the page (see STYLE)."""
    from selfdx.analysis.figures import DPI

    png = figure.path.read_bytes()
    data = base64.b64encode(png).decode("ascii")
    size = ""
    if png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) >= 24:  # width and height: the IHDR chunk
        width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
        shown = max(round(width / DPI * 96 * 1.5), 1)  # CSS pixels: 96 an inch
        size = f' width="{shown}" height="{max(round(height * shown / width), 1)}"'
    return f'<img alt="{html.escape(figure.title)}"{size} src="data:image/png;base64,{data}">'


# Nothing may make the page wider than the window: tables scroll in their own box, images
# shrink to the page, and long unbroken text (paths, model names) wraps anywhere.
STYLE = (
    "*,*::before,*::after{box-sizing:border-box}"
    "body{font-family:sans-serif;max-width:1200px;margin:2em auto;padding:0 1em}"
    "p,li,h1,h2,h3,h4,dt,dd,figcaption,summary{overflow-wrap:anywhere}"
    "pre{white-space:pre-wrap;overflow-wrap:anywhere}"
    ".scroll{overflow-x:auto;max-width:100%;margin-bottom:1em}"
    "table{border-collapse:collapse;font-size:12px}"
    "td,th{border:1px solid #ccc;padding:3px 6px;vertical-align:top;text-align:left;"
    "overflow-wrap:break-word;max-width:24em}"
    "th{background:#f2f2f2}"
    ".banner{background:#fff3cd;border:2px solid #d4a72c;padding:.6em 1em;font-weight:bold}"
    "img{display:block;max-width:100%;height:auto;margin:.5em 0}"
)


def _breakable(text: object) -> str:
    """Escaped text that may wrap after `_` and `/` (long metric and model names); a
    Markdown link (`viewer_links.link`) becomes an anchor."""
    parts, end = [], 0
    for found in LINK.finditer(str(text)):
        parts.append(_wrap(str(text)[end : found.start()]))
        href = html.escape(found.group(2), quote=True)
        parts.append(f'<a href="{href}">{_wrap(found.group(1))}</a>')
        end = found.end()
    parts.append(_wrap(str(text)[end:]))
    return "".join(parts)


def _wrap(text: str) -> str:
    return html.escape(text).replace("_", "_<wbr>").replace("/", "/<wbr>")


def _table_html(table: pd.DataFrame) -> str:
    """The Markdown table's cells (`text_frame`, the one cell format of both), in a box that
    scrolls when the page is narrow."""
    table = text_frame(table)
    head = "".join(f"<th>{_breakable(name)}</th>" for name in table.columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{_breakable(cell)}</td>" for cell in row) + "</tr>"
        for row in table.itertuples(index=False)
    )
    return (
        f"<div class='scroll'><table><thead><tr>{head}</tr></thead>"
        f"<tbody>{body}</tbody></table></div>"
    )


def write_html(
    out: Path, run_table: pd.DataFrame, skipped, sections: list[Section], banner: str
) -> Path:
    """One self-contained page: the tables of report.md, figures embedded as data URIs."""
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'>",
        "<meta name='viewport' content='width=device-width, initial-scale=1'>",
        f"<title>selfdx report</title><style>{STYLE}</style></head><body>",
        "<h1>selfdx report</h1>",
    ]
    if banner:
        parts.append(f"<p class='banner'>{html.escape(banner)}</p>")
    parts += [f"<p>{html.escape(INTRO)}</p>", f"<p>Runs read: {len(run_table)}.</p>"]
    warning = incomplete_note(run_table)
    if warning:
        parts.append(f"<p><strong>{html.escape(warning)}</strong></p>")
    if skipped:
        items = "".join(
            f"<li><code>{html.escape(p)}</code>: {html.escape(r)}</li>" for p, r in skipped
        )
        parts.append(f"<p>Logs left out:</p><ul>{items}</ul>")
    parts += ["<h2>Runs</h2>", _table_html(_runs_shown(run_table))]
    for section in sections:
        parts.append(f"<h2>{html.escape(TITLES.get(section.benchmark, section.benchmark))}</h2>")
        if section.note:
            parts.append(f"<p>{html.escape(section.note)}</p>")
        for title, table, note in section.tables:
            parts += [f"<h3>{html.escape(title)}</h3>", _table_html(table)]
            if note:
                parts.append(f"<p>{html.escape(note)}</p>")
        for figure in section.figures:
            parts += [
                f"<h3>{html.escape(figure.title)}</h3>",
                _image_tag(figure),
                f"<p>{html.escape(figure.caption)}</p>",
            ]
    parts.append("</body></html>")
    path = out / "report.html"
    path.write_text("\n".join(parts), encoding="utf-8")
    return path

"""`selfdx report` and the exports on misuse: pooling, ranges, bad folders, broken logs, reuse.

Every log here is a short offline run on the demo data (3-5 cases).
"""

from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from inspect_ai import eval
from inspect_ai.log import EvalLog, read_eval_log, write_eval_log

from selfdx.analysis.logs import find_runs
from selfdx.analysis.mentalbench.export import export_mentalbench
from selfdx.analysis.metric_table import format_cell, seed_cell
from selfdx.analysis.outputs import MANIFEST
from selfdx.analysis.report import build_report
from selfdx.analysis.safe_psych.export import export_safe_psych
from selfdx.datasets.mentalbench.schema import DISORDER_NAMES
from selfdx.errors import SelfdxError
from tests.conftest import REPO_ROOT, SHARED, scripted_model

DEMO_CSV = REPO_ROOT / "selfdx" / "datasets" / "demo" / "safe_psych_demo.csv"
KG = SHARED / "mentalbench" / "resources" / "knowledge_graph" / "EN"
JUDGE = {"grader": "selfdx/rules-judge"}
DIAGNOSE = "The presentation is most consistent with a moderate depressive episode (F32.1)."
ABSTAIN = (
    "I abstain from giving a diagnosis: the information available does not support a "
    "reliable diagnosis."
)


def safe_psych(log_dir: Path, model="selfdx/keyword", **kwargs) -> EvalLog:
    task_args = kwargs.pop("task_args", {})
    (log,) = eval(
        "selfdx/safe_psych",
        task_args=task_args,
        model=model,
        model_roles=JUDGE,
        display="none",
        log_dir=str(log_dir),
        **{"limit": 3, **kwargs},
    )
    assert log.status == "success"
    return log


def mentalbench(log_dir: Path, **kwargs) -> EvalLog:
    task_args = kwargs.pop("task_args", {})
    (log,) = eval(
        "selfdx/mentalbench",
        task_args=task_args,
        model="selfdx/first-option",
        display="none",
        log_dir=str(log_dir),
        **{"limit": 3, **kwargs},
    )
    assert log.status == "success"
    return log


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    """Runs that look alike but must never be pooled, and two that must be."""
    root = tmp_path_factory.mktemp("mixed")
    other_csv = root / "other_notes.csv"
    shutil.copy(DEMO_CSV, other_csv)  # the same cases from another file: another data source
    logs = root / "logs"
    made = {
        "base": safe_psych(logs),
        "seed": safe_psych(logs, seed=7),  # a repeat of base
        "five": safe_psych(logs, limit=5),  # more cases: other data
        "file": safe_psych(logs, task_args={"data": str(other_csv)}),
        "tokens": safe_psych(logs, task_args={"judge_max_tokens": 64}),
        "strict": mentalbench(logs),
        "reference": mentalbench(logs, task_args={"parser": "reference"}),
    }
    out = root / "report"
    build_report(logs, out, progress=False)
    return made, out


def rows_of(table: pd.DataFrame, metric: str) -> pd.DataFrame:
    return table[table.metric == metric]


# --- class 1: pooling and ranges ------------------------------------------------------------


def test_only_true_repeats_are_pooled(mixed):
    made, out = mixed
    table = pd.read_csv(out / "safe_psych_metrics.csv")
    rows = rows_of(table, "over_abstention")
    assert len(rows) == 4  # base+seed, five, file, tokens
    assert sorted(rows.runs) == [1, 1, 1, 2]
    pooled = rows[rows.runs == 2].iloc[0]
    assert pooled.dataset.startswith("demo · 3 cases · ")
    assert rows[rows.runs == 1].dataset.str.startswith("demo · 5 cases").sum() == 1
    assert (rows.dataset == str(Path(made["file"].eval.task_args["data"]))).sum() == 1
    assert rows.variant.str.contains("judge_max_tokens=64").sum() == 1
    # base+seed only: the 5-case run differs in its data already, so needs no setting named
    assert rows.variant.str.contains("judge_max_tokens=128").sum() == 1
    runs = pd.read_csv(out / "runs.csv")
    assert {"dataset", "data_id"} <= set(runs.columns)
    assert runs[runs.benchmark == "safe_psych"].data_id.nunique() == 3  # 3 cases, 5 cases, file
    mb = rows_of(pd.read_csv(out / "mentalbench_metrics.csv"), "accuracy")
    assert mb[mb.variant == "all types"].empty  # the parsers differ: named, two rows
    assert sorted(mb[~mb.variant.str.contains("·")].variant) == [
        "all types (only types 1,2,3 ran) (parser=reference)",
        "all types (only types 1,2,3 ran) (parser=strict)",
    ]
    assert (mb.runs == 1).all()


def test_grouping_uses_the_tasks_data_hash_when_recorded(mixed, tmp_path):
    """Logs whose task recorded `data_sha256` are told apart by it (a changed file, same args)."""
    made, _ = mixed
    log = read_eval_log(made["base"].location)
    for name, digest in (("a", "1" * 64), ("b", "2" * 64), ("c", "2" * 64)):
        log.eval.metadata = {**(log.eval.metadata or {}), "data_sha256": digest}
        log.eval.eval_id = f"run-{name}"  # three runs, not copies of one log
        write_eval_log(log, str(tmp_path / f"{name}.eval"))
    runs, _ = find_runs(tmp_path)
    by_name = {Path(run.path).stem: run for run in runs}
    assert by_name["b"].key == by_name["c"].key != by_name["a"].key
    assert by_name["a"].data_id != by_name["b"].data_id


def test_seed_interval_is_clipped_by_hand():
    # runs 0.90, 0.95, 1.00: mean 0.95, sd 0.05, t(0.975, 2) = 4.302653
    half = 4.302653 * 0.05 / math.sqrt(3)
    cell = seed_cell(0.95, 0.9, 1.0, 10, [0.9, 0.95, 1.0])
    assert cell.seed_mean == pytest.approx(0.95)
    assert cell.seed_low == pytest.approx(0.95 - half, abs=1e-6)
    assert cell.seed_high == 1.0 and cell.seed_clipped
    assert format_cell(cell).endswith("1.000] (clipped to [0, 1])")
    inside = seed_cell(0.5, 0.4, 0.6, 10, [0.5, 0.5, 0.5])
    assert (inside.seed_low, inside.seed_high, inside.seed_clipped) == (0.5, 0.5, False)


@given(st.lists(st.floats(0, 1), min_size=2, max_size=8))
def test_seed_interval_stays_in_range(values):
    cell = seed_cell(0.5, 0.4, 0.6, 10, values)
    assert 0.0 <= cell.seed_low <= cell.seed_mean + 1e-12
    assert cell.seed_mean - 1e-12 <= cell.seed_high <= 1.0


def test_three_differing_runs_give_a_clipped_interval_in_the_report(tmp_path):
    """Two runs diagnose the one insufficient case, one abstains: t reaches past both ends."""
    logs = tmp_path / "logs"
    for seed, reply in ((1, DIAGNOSE), (2, DIAGNOSE), (3, ABSTAIN)):
        safe_psych(logs, model=scripted_model(lambda p, m, r=reply: r), limit=4, seed=seed)
    build_report(logs, tmp_path / "report", progress=False)
    table = pd.read_csv(tmp_path / "report" / "safe_psych_metrics.csv")
    row = rows_of(table, "under_abstention").iloc[0]
    assert row.runs == 3 and row.seed_mean == pytest.approx(2 / 3)
    assert (row.seed_ci_low, row.seed_ci_high) == (0.0, 1.0) and row.seed_ci_clipped
    for column in ("value", "ci_low", "ci_high", "seed_mean", "seed_ci_low", "seed_ci_high"):
        values = table[column].dropna()
        assert ((values >= 0) & (values <= 1)).all(), column
    assert "(clipped to [0, 1])" in (tmp_path / "report" / "report.md").read_text()


# --- class 5: bad folders, broken logs, reuse -----------------------------------------------


def test_missing_or_empty_log_dir_is_an_error(tmp_path):
    with pytest.raises(SelfdxError, match="does not exist"):
        build_report(tmp_path / "nowhere", tmp_path / "out", progress=False)
    (tmp_path / "empty").mkdir()
    with pytest.raises(SelfdxError, match="holds no Inspect logs"):
        build_report(tmp_path / "empty", tmp_path / "out", progress=False)
    assert not (tmp_path / "out").exists()


def test_cli_error_is_one_line_and_non_zero(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "selfdx.cli", "report", str(tmp_path / "nowhere"), "--quiet"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert result.returncode != 0
    assert "does not exist" in result.stderr
    assert "Traceback" not in result.stderr


def test_truncated_log_is_named_and_skipped(mixed, tmp_path, capsys):
    made, _ = mixed
    logs = tmp_path / "logs"
    logs.mkdir()
    shutil.copy(made["base"].location, logs / "good.eval")
    data = Path(made["five"].location).read_bytes()
    (logs / "cut.eval").write_bytes(data[: len(data) // 2])
    out = tmp_path / "report"
    build_report(logs, out, progress=False)
    assert "cut.eval" in capsys.readouterr().err
    runs = pd.read_csv(out / "runs.csv")
    assert list(runs.log) == ["good.eval"]
    markdown = (out / "report.md").read_text()
    assert "cut.eval" in markdown and "truncated or corrupt" in markdown
    # only broken logs: an error, not an empty report
    (logs / "good.eval").unlink()
    with pytest.raises(SelfdxError, match="no finished selfdx run.*cut.eval"):
        build_report(logs, tmp_path / "report2", progress=False)


def test_limit_zero_log_does_not_crash(tmp_path):
    mentalbench(tmp_path / "logs", limit=0)
    safe_psych(tmp_path / "logs")
    build_report(tmp_path / "logs", tmp_path / "report", progress=False)
    runs = pd.read_csv(tmp_path / "report" / "runs.csv")
    empty = runs[runs.benchmark == "mentalbench"].iloc[0]
    assert (empty.samples_planned, empty.samples_scored) == (0, 0)
    markdown = (tmp_path / "report" / "report.md").read_text()
    assert "## MentalBench\n\nNo scored samples" in markdown
    assert (tmp_path / "report" / "safe_psych_metrics.csv").is_file()


def test_reused_out_keeps_no_stale_files_and_no_user_file_is_touched(mixed, tmp_path):
    made, _ = mixed
    logs = tmp_path / "logs"
    logs.mkdir()
    shutil.copy(made["base"].location, logs / "sp.eval")
    shutil.copy(made["strict"].location, logs / "mb.eval")
    out = tmp_path / "report"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    (out / "figures").mkdir()
    (out / "figures" / "my_plot.png").write_bytes(b"x")
    build_report(logs, out, progress=False)
    assert (out / "mentalbench_metrics.csv").is_file()
    first = set(json.loads((out / MANIFEST).read_text())["files"])
    assert "figures/mentalbench_error_shares.png" in first
    (logs / "mb.eval").unlink()
    build_report(logs, out, progress=False)
    left = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    second = set(json.loads((out / MANIFEST).read_text())["files"])
    assert left == second | {MANIFEST, "notes.txt", "figures/my_plot.png"}
    assert not any(name.startswith(("mentalbench", "figures/mentalbench")) for name in left)
    assert "MentalBench" not in (out / "report.md").read_text()


def test_report_refuses_an_export_folder(mixed, tmp_path):
    made, _ = mixed
    export_safe_psych([made["base"].location], tmp_path / "exported")
    with pytest.raises(SelfdxError, match="holds the output of `selfdx export safe-psych`"):
        build_report(Path(made["base"].location).parent, tmp_path / "exported", progress=False)


# --- class 7: what the pages show -----------------------------------------------------------


class Tables(HTMLParser):
    """Every <table> of a page as rows of cell texts."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[list[list[str]]] = []
        self.cell: list[str] | None = None
        self.wrapped: list[bool] = []
        self.divs: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag == "div":
            self.divs.append(dict(attrs).get("class", ""))
        elif tag == "table":
            self.tables.append([])
            self.wrapped.append(bool(self.divs) and self.divs[-1] == "scroll")
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self.cell = []

    def handle_endtag(self, tag):
        if tag == "div":
            self.divs.pop()
        elif tag in ("td", "th") and self.cell is not None:
            self.tables[-1][-1].append("".join(self.cell).strip())
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)


LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")  # a Markdown link: [text](address)


def markdown_tables(text: str) -> list[list[list[str]]]:
    tables, current = [], None
    for line in text.splitlines():
        if line.startswith("|"):
            if current is None:
                current = []
                tables.append(current)
            if not line.startswith("|---"):
                # a link's text is what the page shows (its address is checked apart)
                cells = [LINK.sub(r"\1", cell.strip()) for cell in line.strip("|").split(" | ")]
                current.append(cells)
        else:
            current = None
    return tables


def test_html_carries_the_markdown_tables(mixed):
    _, out = mixed
    parser = Tables()
    parser.feed((out / "report.html").read_text())
    md = markdown_tables((out / "report.md").read_text())
    assert len(md) >= 6  # runs, three Safe-Psych and three MentalBench tables at least
    assert parser.tables == md
    page = (out / "report.html").read_text()
    rows = [line for line in (out / "report.md").read_text().splitlines() if line.startswith("|")]
    addresses = [url for row in rows for _, url in LINK.findall(row)]
    assert addresses and re.findall(r'<a href="([^"]+)">', page) == addresses
    assert all(parser.wrapped)  # each table scrolls inside its box instead of the page
    assert ".scroll{overflow-x:auto" in (out / "report.html").read_text()


def test_dataset_column_and_demo_banner(mixed, tmp_path):
    made, out = mixed
    for table in markdown_tables((out / "report.md").read_text()):
        if "model" in table[0]:
            assert "dataset" in table[0], table[0]
    assert "Demo data: 6 of 7 runs ran on the bundled demo set" in (out / "report.md").read_text()
    assert "class='banner'>Demo data: 6 of 7 runs" in (out / "report.html").read_text()
    # no demo run, no banner
    logs = tmp_path / "logs"
    logs.mkdir()
    shutil.copy(made["file"].location, logs / "file.eval")
    build_report(logs, tmp_path / "report", progress=False)
    assert "Demo data" not in (tmp_path / "report" / "report.md").read_text()


def test_disorder_names_beside_codes(mixed):
    _, out = mixed
    by_code = pd.read_csv(out / "mentalbench_by_code.csv")
    assert {"code", "disorder", "dataset"} <= set(by_code.columns)
    names = DISORDER_NAMES
    if KG.is_dir():
        from selfdx.datasets.mentalkg.reader import load_kg

        names = {code: d.name for code, d in load_kg(KG).disorders.items()}
    for row in by_code.itertuples():
        codes = row.code.split("-")
        assert row.disorder == " & ".join(names[c] for c in codes)


# --- class 4: exports -----------------------------------------------------------------------


def run_folders(out: Path) -> dict[str, list[dict]]:
    return {
        folder.name: [json.loads(line) for line in (folder / "trajectories.jsonl").open()]
        for folder in sorted((out / "runs").iterdir())
    }


def test_export_refuses_a_non_empty_folder_without_force(mixed, tmp_path):
    made, _ = mixed
    out = tmp_path / "exported"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    with pytest.raises(SelfdxError, match=rf"--out {out} is not empty.*--force"):
        export_safe_psych([made["base"].location], out)
    with pytest.raises(SelfdxError, match="--force"):
        export_mentalbench([made["strict"].location], out)
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]
    export_safe_psych([made["base"].location], out, force=True)
    assert (out / "notes.txt").read_text() == "mine"
    from selfdx.cli import main

    assert main(["export", "safe-psych", made["base"].location, "--out", str(out), "--force"]) == 0


def test_logs_of_different_data_get_their_own_run_folders(mixed, tmp_path):
    made, _ = mixed
    logs = [made[name].location for name in ("base", "five", "file")]
    export_safe_psych(logs, tmp_path / "out")
    folders = run_folders(tmp_path / "out")
    stem = "keyword_sequential_info_abstention_aware_judge-rules-judge_seed-none_data-"
    assert len(folders) == 3 and all(name.startswith(stem) for name in folders)
    sizes = sorted(len(records) for records in folders.values())
    assert sizes == [3, 3, 5]  # no folder mixes two logs
    # a forced export of one log removes the run folders of the previous export
    export_safe_psych([made["base"].location], tmp_path / "out", force=True)
    assert list(run_folders(tmp_path / "out")) == [stem.removesuffix("_data-")]


def test_a_copy_is_exported_once_and_two_runs_of_one_item_are_refused(mixed, tmp_path, capsys):
    made, _ = mixed
    copy = tmp_path / "copy.eval"
    shutil.copy(made["base"].location, copy)
    written = export_safe_psych([made["base"].location, str(copy)], tmp_path / "out")
    assert len({p.parent for p in written if p.name.endswith(".jsonl")}) <= 1
    assert f"{copy} is the run of {made['base'].location}" in capsys.readouterr().err
    with pytest.raises(SelfdxError, match="is answered in both"):
        export_mentalbench([made["strict"].location, made["reference"].location], tmp_path / "o2")


def test_one_case_id_with_different_data_is_refused(mixed, tmp_path):
    made, _ = mixed
    frame = pd.read_csv(DEMO_CSV, dtype=str, keep_default_na=False)
    frame.loc[0, "presenting_symptoms"] += " Edited."
    edited = tmp_path / "edited.csv"
    frame.to_csv(edited, index=False)
    log = safe_psych(tmp_path / "logs", task_args={"data": str(edited)})
    with pytest.raises(SelfdxError, match="case SYN-SP-001 differs between"):
        export_safe_psych([made["base"].location, log.location], tmp_path / "out")


def test_every_epoch_is_exported_with_its_number(tmp_path):
    sp = safe_psych(tmp_path / "logs", limit=2, epochs=2)
    export_safe_psych([sp.location], tmp_path / "sp")
    (records,) = run_folders(tmp_path / "sp").values()
    assert sorted((r["sample_id"], r["epoch"]) for r in records) == [
        ("SYN-SP-001", 1),
        ("SYN-SP-001", 2),
        ("SYN-SP-002", 1),
        ("SYN-SP-002", 2),
    ]
    mb = mentalbench(tmp_path / "logs", epochs=2)
    written = export_mentalbench([mb.location], tmp_path / "mb")
    seen = []
    for path in written:
        model = path.relative_to(tmp_path / "mb").parts[1]
        for record in json.loads(path.read_text()).values():
            assert model == f"first-option_epoch-{record['epoch']}"
            seen.append(record["epoch"])
    assert sorted(seen) == [1, 1, 1, 2, 2, 2]


def test_unfinished_logs_are_flagged(mixed, tmp_path, capsys):
    made, _ = mixed
    for name, export in (("base", export_safe_psych), ("strict", export_mentalbench)):
        log = read_eval_log(made[name].location)
        log.samples = log.samples[:2]
        log.status = "cancelled"
        path = str(tmp_path / f"{name}.eval")
        write_eval_log(log, path)
        written = export([path], tmp_path / f"out_{name}")
        assert f"{path}: status cancelled" in capsys.readouterr().err
        if name == "base":
            records = [json.loads(line) for line in written[0].read_text().splitlines()]
        else:
            records = [r for p in written for r in json.loads(p.read_text()).values()]
        assert len(records) == 2 and {r["log_status"] for r in records} == {"cancelled"}


def test_mentalbench_logs_of_other_data_get_their_own_model_folder(mixed, tmp_path):
    made, _ = mixed
    log = read_eval_log(made["strict"].location)
    log.eval.metadata = {**(log.eval.metadata or {}), "data_source": "hf:hysong/MentalBench@abc"}
    log.eval.eval_id = "another-run"  # a run of its own, as one on other data is
    other = str(tmp_path / "other.eval")
    write_eval_log(log, other)
    written = export_mentalbench([made["strict"].location, other], tmp_path / "out")
    models = {path.relative_to(tmp_path / "out").parts[1] for path in written}
    assert len(models) == 2 and all(m.startswith("first-option_data-") for m in models)

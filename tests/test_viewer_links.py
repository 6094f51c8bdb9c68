"""Links from `selfdx report`'s rows to their logs in `inspect view`: the addresses (Inspect's
`log_viewer` form, `<viewer>#/logs/<path under the log folder>`), the report's tables and CSVs,
and, with Chromium, the viewer itself opening the log a link names."""

from __future__ import annotations

import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pandas as pd
import pytest
from inspect_ai import eval
from inspect_ai.model import GenerateConfig, get_model

from selfdx.analysis.report import build_report
from selfdx.analysis.viewer_links import links, viewer_urls

VIEW = "http://127.0.0.1:7575/"


def test_addresses_are_the_path_under_the_log_folder():
    paths = [
        "file:///data/logs/a.eval",
        "/data/logs/sweep/m1/b.eval",
        "/data/logs/with space/c.eval",
        "/elsewhere/check.eval",
    ]
    assert viewer_urls("/data/logs", paths) == {
        "file:///data/logs/a.eval": f"{VIEW}#/logs/a.eval",
        "/data/logs/sweep/m1/b.eval": f"{VIEW}#/logs/sweep/m1/b.eval",
        "/data/logs/with space/c.eval": f"{VIEW}#/logs/with%20space/c.eval",
    }  # a log outside the folder (a --judge-check log) has no address
    on_store = viewer_urls("s3://bucket/run", ["s3://bucket/run/x/d.eval"], "https://v.org/r")
    assert on_store == {"s3://bucket/run/x/d.eval": "https://v.org/r/#/logs/x/d.eval"}
    # the folder given with a trailing slash, or relative, is the same folder
    here = Path.cwd()
    assert viewer_urls("logs/", [f"{here}/logs/e.eval"]) == {
        f"{here}/logs/e.eval": f"{VIEW}#/logs/e.eval"
    }


def test_one_log_is_a_link_and_a_pooled_row_numbers_its_runs():
    assert links(["u1"]) == "[log](u1)"
    assert links(["u1", "u2", "u1"]) == "[1](u1) [2](u2)"
    assert links([]) == ""


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """MentalBench twice (seeds 1 and 2, in two subfolders: one pooled row), a judge check,
    and one report with links to a viewer published at another address."""
    log_dir = tmp_path_factory.mktemp("logs")
    for seed in (1, 2):
        (log,) = eval(
            "selfdx/mentalbench",
            model=get_model("selfdx/first-option", config=GenerateConfig(seed=seed)),
            display="none",
            log_dir=str(log_dir / f"seed {seed}"),
        )
        assert log.status == "success", log.error
    (log,) = eval(
        "selfdx/judge_check",
        model_roles={"grader": "selfdx/rules-judge"},
        limit=20,
        display="none",
        log_dir=str(log_dir / "checks"),
    )
    assert log.status == "success", log.error
    out = tmp_path_factory.mktemp("report")
    build_report(log_dir, out, progress=False, view_url="https://viewer.example.org/run7")
    return log_dir, out


def expected_url(log_dir: Path, log: Path) -> str:
    relative = log.relative_to(log_dir).as_posix().replace(" ", "%20")
    return f"https://viewer.example.org/run7/#/logs/{relative}"


@pytest.mark.slow
def test_every_table_row_links_to_its_logs(report):
    log_dir, out = report
    logs = sorted(log_dir.rglob("*.eval"))
    by_name = {log.name: expected_url(log_dir, log) for log in logs}
    runs = pd.read_csv(out / "runs.csv")
    assert dict(zip(runs.log, runs.log_viewer, strict=True)) == by_name
    mentalbench = sorted(expected_url(log_dir, log) for log in logs if "mentalbench" in log.name)
    metrics = pd.read_csv(out / "mentalbench_metrics.csv")
    assert len(metrics) and all(sorted(u.split()) == mentalbench for u in metrics.log_viewer)
    by_code = pd.read_csv(out / "mentalbench_by_code.csv")
    assert len(by_code) and all(sorted(u.split()) == mentalbench for u in by_code.log_viewer)
    text = (out / "report.md").read_text(encoding="utf-8")
    for name, url in by_name.items():  # the runs table
        assert f"[{name}]({url})" in text
    pooled = [line for line in text.splitlines() if line.startswith("| selfdx/first-option |")]
    assert pooled and all("[1](" in line and "[2](" in line for line in pooled)
    (check,) = [url for name, url in by_name.items() if "judge-check" in name]
    assert f"| view | [log]({check}) |" in text  # the check's first row
    page = (out / "report.html").read_text(encoding="utf-8")
    anchors = re.findall(r'<a href="([^"]+)">', page)
    assert set(by_name.values()) <= set(anchors)
    assert "](http" not in page  # every Markdown link became an anchor


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("chromium") is None, reason="needs Debian's chromium")
def test_inspect_view_opens_the_log_a_link_names(report, tmp_path):
    """`inspect view --log-dir <the report's logs>` serves a link's log: the viewer lists it
    at the folder joined with the link's path, and the page the link opens shows that log."""
    log_dir, _ = report
    port = free_port()
    out = tmp_path / "links"
    build_report(log_dir, out, progress=False, view_url=f"http://127.0.0.1:{port}/")
    runs = pd.read_csv(out / "runs.csv")
    viewer = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "inspect_ai",
            "view",
            "--log-dir",
            str(log_dir),
            "--port",
            str(port),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        listing = ""
        for _ in range(60):  # at most 30 s for the viewer to start
            try:
                with urllib.request.urlopen(
                    f"http://127.0.0.1:{port}/api/log-files", timeout=5
                ) as r:
                    listing = r.read().decode()
                break
            except OSError:
                time.sleep(0.5)
        assert listing, "inspect view did not start within 30 s"
        for name, url in zip(runs.log, runs.log_viewer, strict=True):
            relative = url.split("#/logs/", 1)[1].replace("%20", " ")
            assert f'"file://{log_dir}/{relative}"' in listing, (relative, listing[:500])
            page = subprocess.run(
                [
                    "chromium",
                    "--headless",
                    "--no-sandbox",
                    "--disable-gpu",
                    "--virtual-time-budget=15000",
                    "--dump-dom",
                    url,
                ],
                capture_output=True,
                text=True,
                timeout=60,
            ).stdout
            crumb = re.search(r'breadcrumb-item active"><span>([^<]+)</span>', page)
            assert crumb and crumb.group(1) == name, page[-1500:]
    finally:
        viewer.terminate()
        viewer.wait(timeout=10)

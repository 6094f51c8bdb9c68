"""Listed and linted as the Inspect ecosystem expects: the listing card, the register entries
(one task each) and the evaluation report block `selfdx report` writes for them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from inspect_ai import eval

from selfdx.analysis.report import build_report
from selfdx.errors import SelfdxError
from selfdx.listing import CARD, register_entries, write_register_entries
from selfdx.task_names import TASKS
from tests.conftest import REPO_ROOT

COMMIT = "0123456789abcdef0123456789abcdef01234567"
CHECKS = {"judge_check", "patient_check", "question_check", "risk_response_check"}


def test_the_card_lists_every_task_with_checks_as_maintenance():
    card = yaml.safe_load(CARD.read_text(encoding="utf-8"))
    assert {t["name"] for t in card["tasks"]} == set(TASKS)
    kinds = {t["name"]: t.get("kind", "benchmark") for t in card["tasks"]}
    assert {name for name, kind in kinds.items() if kind == "maintenance"} == CHECKS
    assert card["version"] == "1-A" and card["group"] == "Knowledge"
    text = CARD.read_text(encoding="utf-8")
    assert "2607.13036" in text and "2602.12871" in text  # the two papers, spelled out
    samples = {t["name"]: t.get("dataset_samples") for t in card["tasks"]}
    assert samples["mentalbench"] == 24750 and samples["judge_check"] == 1091


def test_the_card_counts_the_bundled_sets():
    from selfdx.datasets.judge_check import judge_check_dataset

    card = yaml.safe_load(CARD.read_text(encoding="utf-8"))
    samples = {t["name"]: t.get("dataset_samples") for t in card["tasks"]}
    assert samples["judge_check"] == len(judge_check_dataset("demo"))


def test_register_entries_one_task_each_with_source_and_report(tmp_path):
    logs = tmp_path / "logs"
    (log,) = eval(
        "selfdx/safe_psych",
        model="selfdx/keyword",
        model_roles={"grader": "selfdx/rules-judge"},
        limit=4,
        display="none",
        log_dir=str(logs),
    )
    out = build_report(logs, tmp_path / "report", progress=False)
    block = yaml.safe_load((out / "evaluation_reports" / "safe_psych.yaml").read_text())
    (row,) = block["results"]
    assert row["task"] == "safe_psych" and row["model"] == "selfdx/keyword"
    metrics = {m["key"]: m["value"] for m in row["metrics"]}
    logged = {k: v.value for e in log.results.scores for k, v in e.metrics.items()}
    assert metrics["under_abstention"] == pytest.approx(logged["under_abstention"])
    assert block["commit"] and block["timestamp"] == log.stats.completed_at[:10]

    entries = register_entries(
        "https://github.com/owner/selfdx", COMMIT, out / "evaluation_reports"
    )
    assert set(entries) == {f"selfdx-{t.replace('_', '-')}" for t in TASKS}
    for entry in entries.values():
        (task,) = entry["tasks"]  # one task per entry
        assert (REPO_ROOT / task["task_path"]).is_file()
        assert entry["source"] == {
            "repository_url": "https://github.com/owner/selfdx",
            "repository_commit": COMMIT,
        }
        assert {"full_title", "common_title", "description", "contributors"} <= set(entry)
    assert entries["selfdx-safe-psych"]["evaluation_report"] == block
    assert "evaluation_report" not in entries["selfdx-mentalbench"]
    written = write_register_entries(entries, tmp_path / "register")
    assert len(written) == len(TASKS)


def test_register_entries_validate_with_inspect_evals_own_schema(tmp_path):
    metadata = pytest.importorskip(
        "inspect_evals.metadata",
        reason="inspect_evals is not installed (pip install inspect-evals)",
    )
    for entry_id, entry in register_entries("https://github.com/o/selfdx", COMMIT).items():
        metadata.ExternalEvalMetadata.model_validate({**entry, "id": entry_id})
    card = yaml.safe_load(CARD.read_text(encoding="utf-8"))
    metadata.InternalEvalMetadata.model_validate({**card, "id": "selfdx"})


def test_register_entries_refuse_a_short_commit_or_a_plain_url():
    with pytest.raises(SelfdxError, match="full 40-hex-digit"):
        register_entries("https://github.com/o/selfdx", "abc123")
    with pytest.raises(SelfdxError, match="https://"):
        register_entries("github.com/o/selfdx", COMMIT)


def test_inspect_evals_lint_passes_on_every_task():
    tasks = [arg for t in TASKS for arg in ("--task", f"selfdx/inspect_tasks/{t}.py")]
    done = subprocess.run(
        [
            str(Path(sys.executable).parent / "inspect-evals-lint"),
            "--preset",
            "single-eval",
            *tasks,
            "--output-format",
            "json",
        ],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]

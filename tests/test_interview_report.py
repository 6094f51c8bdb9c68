"""The Interview section of `selfdx report` and `selfdx export interview`, on demo logs."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from inspect_ai import eval

from selfdx.analysis.interview.report import export_interview, json_safe
from selfdx.analysis.report import build_report
from selfdx.errors import SelfdxError
from selfdx.run_facts import interview_variant

MODES = ("interview", "full", "initial")


@pytest.fixture(scope="module")
def demo_logs(tmp_path_factory):
    log_dir = tmp_path_factory.mktemp("interview-logs")
    logs = {}
    for mode in MODES:
        (log,) = eval(
            "selfdx/interview",
            task_args={"data": "demo", "types": "1,2", "mode": mode},
            model="selfdx/opening-guess" if mode == "initial" else "selfdx/kg-interviewer",
            display="none",
            log_dir=str(log_dir),
        )
        assert log.status == "success", log.error
        logs[mode] = log
    return log_dir, logs


def accuracy(log) -> float:
    (entry,) = [e for e in log.results.scores if e.name == "interview_scorer"]
    return entry.metrics["accuracy"].value


def test_report_section_matches_the_logs(demo_logs, tmp_path):
    log_dir, logs = demo_logs
    out = build_report(log_dir, tmp_path / "report", progress=False)
    text = (out / "report.md").read_text()
    assert "## Interview" in text and "Static interactive gap" in text
    gap = pd.read_csv(out / "interview_static_interactive_gap.csv")
    # opening-guess (initial) and kg-interviewer (full, interview) are different models: the
    # gap table pairs modes per model, so each model has its own row.
    kg = gap[gap.model == "selfdx/kg-interviewer"].iloc[0]
    assert kg.full == pytest.approx(accuracy(logs["full"]))
    assert kg.interview == pytest.approx(accuracy(logs["interview"]))
    assert kg["static-interactive gap"] == pytest.approx(kg.full - kg.interview)
    guess = gap[gap.model == "selfdx/opening-guess"].iloc[0]
    assert guess.initial == pytest.approx(accuracy(logs["initial"]))
    metrics = pd.read_csv(out / "interview_metrics.csv")
    assert set(metrics.metric) >= {"accuracy", "premature", "fact_recall", "patient_leaks"}
    recall = pd.read_csv(out / "interview_accuracy_by_fact_recall.csv")
    samples = logs["interview"].samples
    assert recall.cases.sum() == len(samples)


def test_export_transcripts(demo_logs, tmp_path):
    log_dir, logs = demo_logs
    files = export_interview([str(p) for p in sorted(log_dir.glob("*.eval"))], tmp_path / "t")
    lines = files[0].read_text().splitlines()
    assert len(lines) == sum(len(log.samples) for log in logs.values())
    records = [json.loads(line) for line in lines]
    by_key = {(r["mode"], r["sample_id"]): r for r in records}
    for mode, log in logs.items():
        for sample in log.samples:
            record = by_key[(mode, sample.id)]
            assert record["scores"] == json_safe(sample.scores["interview_scorer"].value)
            questions = [t for t in record["turns"] if t["question"]]
            assert len(questions) == record["scores"]["questions"]
            # the risk levels and the response go with each transcript
            meta = sample.scores["interview_scorer"].metadata
            for key in ("risk_level_self", "risk_level_others", "risk_told_self",
                        "risk_told_others", "risk_added", "risk_disclosed_turn"):  # fmt: skip
                assert record[key] == meta[key], key
            assert "risk_level_found" in record["scores"]
            facts = {f["id"] for f in sample.metadata["case"]["facts"]}
            added = {"self": "passive"} if "RISK-SELF" in facts else {}
            assert record["risk_added"] == added
            if added:  # the added passive wish is the demo patient's whole risk to self
                assert record["risk_level_self"] == "passive"
    assert "## demo-t1-" in files[1].read_text()
    with pytest.raises(SelfdxError, match="not empty"):
        export_interview([str(next(log_dir.glob("*.eval")))], tmp_path / "t")


def test_variant_labels():
    assert interview_variant({"mode": "full", "types": ["1", "2"]}, ()) == "full, types 1,2"
    label = interview_variant(
        {"mode": "interview", "types": "1,2", "max_questions": 5, "answer_format": "free_text"},
        {"max_questions", "answer_format"},
    )
    assert label == "interview, types 1,2, 5 questions, free text"
    # a setting counts only where it differs from the task's default
    same = {"mode": "interview", "types": "1,2", "max_questions": 12, "cases": "published"}
    assert interview_variant(same, ()) == "interview, types 1,2"


def test_export_refuses_other_tasks(tmp_path):
    (log,) = eval(
        "selfdx/mentalbench",
        task_args={"data": "demo"},
        model="selfdx/first-option",
        display="none",
        log_dir=str(tmp_path / "logs"),
        limit=1,
    )
    with pytest.raises(SelfdxError, match="is not selfdx/interview"):
        export_interview([log.location], tmp_path / "out")


def test_export_records_the_patient_style_and_every_disorder_of_a_type3_key(tmp_path):
    """A Type 3 key names two disorders and a case runs with a patient style: both are in
    every exported record and in the Markdown heading, not just the first disorder."""
    (log,) = eval(
        "selfdx/interview",
        task_args={"data": "demo", "types": "3", "patient_style": "plain,guarded"},
        model="selfdx/kg-interviewer",
        limit=4,
        display="none",
        log_dir=str(tmp_path / "logs"),
    )
    assert log.status == "success", log.error
    jsonl, md = export_interview([log.location], tmp_path / "t")
    records = [json.loads(line) for line in jsonl.read_text().splitlines()]
    assert {r["patient_style"] for r in records} == {"plain", "guarded"}
    for record, sample in zip(records, log.samples, strict=True):
        case = sample.metadata["case"]
        assert record["answers"] == case["answers"] and len(record["answers"]) == 2
        names = dict(zip(case["option_codes"], case["option_names"], strict=True))
        assert record["answer_names"] == [names[code] for code in case["answers"]]
        assert record["sample_id"].endswith("@" + record["patient_style"])
    text = md.read_text()
    assert " and ".join(records[0]["answer_names"]) in text
    assert "patient style guarded" in text


def test_one_run_per_style_gets_the_drop_over_the_cases_both_ran(tmp_path):
    """The guide's workflow, one run per patient style: the styled run's cases differ in their
    content (another data hash), yet it pairs with the plain run by case, and the drop is the
    mean over the cases both ran (4 of them here: the styled run was limited)."""
    logs = {}
    for style, limit in (("plain", None), ("vague", 4)):
        (logs[style],) = eval(
            "selfdx/interview",
            task_args={"data": "demo", "patient_style": style},
            model="selfdx/kg-interviewer",
            limit=limit,
            display="none",
            log_dir=str(tmp_path / "logs"),
        )
        assert logs[style].status == "success", logs[style].error
    out = build_report(tmp_path / "logs", tmp_path / "report", progress=False)
    (row,) = pd.read_csv(out / "interview_patient_styles.csv").to_dict("records")
    correct = {
        style: {s.id: s.scores["interview_scorer"].value["accuracy"] for s in log.samples}
        for style, log in logs.items()
    }
    common = sorted(correct["vague"])
    assert len(common) == 4 and set(common) <= set(correct["plain"])
    assert row["paired: vague"] == 4
    expected = sum(correct["plain"][c] - correct["vague"][c] for c in common) / 4
    assert row["drop: vague"] == pytest.approx(expected)
    assert row["plain"] == pytest.approx(sum(correct["plain"].values()) / len(correct["plain"]))
    assert row["vague"] == pytest.approx(sum(correct["vague"].values()) / 4)

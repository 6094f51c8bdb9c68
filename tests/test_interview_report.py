"""The Interview section of `selfdx report` and `selfdx export interview`, on demo logs."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest
from inspect_ai import eval
from inspect_ai.log import read_eval_log, write_eval_log

from selfdx.analysis.interview.report import export_interview
from selfdx.analysis.outputs import json_safe
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


NAN = math.nan
RISK_KEYS = ("risk_asked", "risk_level_found", "risk_responded", "risk_handled", "risk_not_alarmed")
# A hand-built set: per case, the levels to self and to others, the turn of the first disclosure
# (None: never) and its risk_asked, risk_level_found, risk_responded, risk_handled and
# risk_not_alarmed (case 4 disclosed in its opening, never screened)
HAND_BUILT = [
    ("passive", "none", 1, 1.0, 1.0, 1.0, 1.0, NAN),
    ("passive", "none", 5, 1.0, 1.0, 0.0, 0.0, NAN),
    ("method", "none", 3, 1.0, 0.0, 1.0, 1.0, NAN),
    ("intent_plan", "plan", 0, 0.0, 1.0, 0.0, 0.0, NAN),
    ("none", "thoughts", 4, 1.0, 1.0, 1.0, 0.0, NAN),
    ("none", "means", None, 0.0, 0.0, NAN, 0.0, NAN),
    ("none", "none", None, 1.0, NAN, NAN, NAN, 1.0),
    ("none", "none", None, 0.0, NAN, NAN, NAN, 0.0),
]
# The breakdown rows of that set, worked out by hand: (screened, found, responded, handled,
# cases); None where no case of the row has a value. Early is a disclosure in the opening (turn
# 0) or by the reply to question 3; the two cases without risk fall in no row.
BY_HAND = {
    "self risk passive": (1.0, 1.0, 0.5, 0.5, 2),  # cases 1 and 2
    "self risk method": (1.0, 0.0, 1.0, 1.0, 1),
    "self risk intent_plan": (0.0, 1.0, 0.0, 0.0, 1),
    "others risk thoughts": (1.0, 1.0, 1.0, 0.0, 1),
    "others risk plan": (0.0, 1.0, 0.0, 0.0, 1),  # case 4, also in self risk intent_plan
    "others risk means": (0.0, 0.0, None, 0.0, 1),  # never disclosed: nothing to respond to
    "disclosed early": (2 / 3, 2 / 3, 2 / 3, 2 / 3, 3),  # cases 1, 3 and 4 (turns 1, 3, 0)
    "disclosed late": (1.0, 1.0, 0.5, 0.0, 2),  # cases 2 and 5 (turns 5, 4)
}


def risk_rows(out) -> dict[str, pd.DataFrame]:
    """The breakdown rows of the interview-mode run in the report in `out`, by group, but
    those by type."""
    table = pd.read_csv(out / "interview_metrics.csv")
    (variant,) = {v for v in table.variant if v.startswith("interview,") and " · " not in v}
    table = table[table.variant.str.startswith(f"{variant} · ")]
    groups = table.variant.str.split(" · ", n=1).str[1]
    table, groups = table[~groups.str.startswith("Type ")], groups[~groups.str.startswith("Type ")]
    return {group: rows.set_index("metric") for group, rows in table.groupby(groups)}


def test_risk_rows_by_level_and_turn_of_disclosure(demo_logs, tmp_path):
    """The Risk section breaks the measures (screening included) down by the patient's level
    to self and to others and by an early or late disclosure: on the demo interview log with
    its samples' risk facts and values replaced by `HAND_BUILT`, every row holds the values
    worked out by hand (`BY_HAND`), with its case count and interval, and no other row is
    there."""
    _, logs = demo_logs
    log = read_eval_log(logs["interview"].location)
    assert len(log.samples) == len(HAND_BUILT)
    for sample, (own, others, turn, *values) in zip(log.samples, HAND_BUILT, strict=True):
        score = sample.scores["interview_scorer"]
        score.value.update(dict(zip(RISK_KEYS, values, strict=True)))
        score.metadata.update(risk_level_self=own, risk_level_others=others,
                              risk_disclosed_turn=turn)  # fmt: skip
    write_eval_log(log, str(tmp_path / "logs" / "hand-built.eval"))
    out = build_report(tmp_path / "logs", tmp_path / "report", progress=False)
    rows = risk_rows(out)
    assert set(rows) == set(BY_HAND)
    for group, (asked, found, responded, handled, cases) in BY_HAND.items():
        row = rows[group]
        expected = {"risk_asked": asked, "risk_level_found": found, "risk_responded": responded,
                    "risk_handled": handled}  # fmt: skip
        # not alarmed counts patients without risk only, and they have no level
        assert set(row.index) == {k for k, v in expected.items() if v is not None}, group
        for key, value in expected.items():
            if value is not None:
                assert row.loc[key, "value"] == pytest.approx(value), (group, key)
        assert row.loc["risk_handled", "n_cases"] == cases, group
        low, high = row.loc["risk_handled", ["ci_low", "ci_high"]]
        if cases == 1:  # one case: no interval
            assert math.isnan(low) and math.isnan(high), group
        else:
            assert low <= row.loc["risk_handled", "value"] <= high, group
    # two cases that agree give an interval of no width: late disclosures were all found
    late = rows["disclosed late"].loc["risk_level_found"]
    assert (late.ci_low, late.ci_high) == (1.0, 1.0)
    text = (out / "report.md").read_text()
    for group in BY_HAND:  # in the Risk table as shown
        assert f"patient selfdx/kg-patient · {group}" in text, group


def test_risk_rows_of_the_demo_run_match_its_samples(demo_logs, tmp_path):
    """The same rows for the demo run as it was scored: each the mean of its samples' values,
    grouped here by the levels and the turn in each score's metadata."""
    log_dir, logs = demo_logs
    out = build_report(log_dir, tmp_path / "report", progress=False)
    rows = risk_rows(out)
    grouped: dict[str, dict[str, list[float]]] = {}
    for sample in logs["interview"].samples:
        score = sample.scores["interview_scorer"]
        meta = score.metadata
        groups = [f"{d} risk {meta[f'risk_level_{d}']}" for d in ("self", "others")
                  if meta[f"risk_level_{d}"] != "none"]  # fmt: skip
        if meta["risk_disclosed_turn"] is not None:
            groups.append("disclosed early" if meta["risk_disclosed_turn"] <= 3 else
                          "disclosed late")  # fmt: skip
        for group in groups:
            for key in RISK_KEYS:
                if not math.isnan(score.value[key]):
                    grouped.setdefault(group, {}).setdefault(key, []).append(score.value[key])
    # the KG interviewer hears early and late disclosures of a passive wish on the demo
    assert {"self risk passive", "disclosed early", "disclosed late"} <= set(grouped)
    assert set(rows) == set(grouped)
    for group, by_key in grouped.items():
        assert set(rows[group].index) == set(by_key), group
        for key, values in by_key.items():
            assert rows[group].loc[key, "value"] == pytest.approx(sum(values) / len(values))
            assert rows[group].loc[key, "n_cases"] == len(values), (group, key)


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

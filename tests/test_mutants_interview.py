"""Interview metric formulas (`by_patient_style`, `type3_micro`, the layout), called directly on
hand-made scores: the end-to-end tests reach them only through whole interview runs. Every
expected value is worked out by hand in the comments."""

from __future__ import annotations

import math

import pytest
from inspect_ai.scorer import SampleScore, Score

from selfdx.scorers.interview.metrics import by_patient_style, interview_metrics, type3_micro

NAN = math.nan


def styled(sample_id: str, style: str | None, **values: float) -> SampleScore:
    metadata = {"seed_group": sample_id} if style is None else {"patient_style": style}
    return SampleScore(score=Score(value=values), sample_id=sample_id, sample_metadata=metadata)


def row(accuracy, fact, critical, risk, questions) -> dict[str, float]:
    return {
        "accuracy": accuracy,
        "fact_recall": fact,
        "critical_recall": critical,
        "risk_found": risk,
        "questions": questions,
    }


def same(result: dict[str, float], expected: dict[str, float]) -> None:
    assert list(result) == list(expected)
    for key, value in expected.items():
        if math.isnan(value):
            assert math.isnan(result[key]), key
        else:
            assert result[key] == pytest.approx(value), key


def test_by_patient_style_by_hand():
    scores = [
        styled("p1", "plain", **row(1.0, 0.5, 1.0, NAN, 4.0)),
        styled("p2", None, **row(0.0, 0.25, 0.5, 1.0, 6.0)),  # no style: plain
        styled("v1", "vague", **row(0.0, 0.1, NAN, NAN, 10.0)),
        styled("v2", "vague", **row(1.0, 0.3, NAN, NAN, 8.0)),
        styled("v3", "vague", **row(0.0, NAN, NAN, NAN, 3.0)),
    ]
    same(
        by_patient_style()(scores),
        {
            # plain: accuracy (1 + 0) / 2, fact (0.5 + 0.25) / 2, critical (1 + 0.5) / 2,
            # risk 1 (the NaN skipped), questions (4 + 6) / 2
            "plain_accuracy": 0.5,
            "plain_fact_recall": 0.375,
            "plain_critical_recall": 0.75,
            "plain_risk_found": 1.0,
            "plain_questions": 5.0,
            # vague: accuracy 1/3, fact (0.1 + 0.3) / 2, nothing applicable, (10 + 8 + 3) / 3
            "vague_accuracy": 1 / 3,
            "vague_fact_recall": 0.2,
            "vague_critical_recall": NAN,
            "vague_risk_found": NAN,
            "vague_questions": 7.0,
            "vague_accuracy_drop": 0.5 - 1 / 3,
        },
    )


def test_by_patient_style_without_plain_has_no_drop_and_one_style_reports_nothing():
    two = [
        styled("a", "vague", **row(1.0, 1.0, 1.0, 1.0, 2.0)),
        styled("b", "guarded", **row(0.0, 0.0, 0.0, 0.0, 4.0)),
    ]
    result = by_patient_style()(two)
    assert "vague_accuracy" in result and "guarded_accuracy" in result
    assert not any(key.endswith("_accuracy_drop") for key in result)
    assert result["guarded_questions"] == 4.0
    assert by_patient_style()(two[:1] + [styled("c", "vague", **row(0, 0, 0, 0, 1))]) == {}


def typed(sample_id: str, key: list[str], named: list[str] | None, excluded: float = 0.0):
    score = Score(
        value={"excluded": excluded, "accuracy": 0.0},
        metadata={"key_codes": key, "named_codes": named},
    )
    return SampleScore(score=score, sample_id=sample_id)


def test_type3_micro_by_hand():
    scores = [
        typed("a", ["F32", "F41"], ["F32"]),  # hit 1, named 1, keyed 2
        typed("b", ["F20", "F31"], ["F20", "F31", "F41"]),  # hit 2, named 3, keyed 2
        typed("c", ["F32"], ["F32"]),  # one keyed option: not Type 3, left out
        typed("d", ["F32", "F41"], ["F32", "F41"], excluded=1.0),  # excluded: left out
        typed("e", ["F40", "F42"], None),  # no answer: hit 0, named 0, keyed 2
    ]
    # hit 3, named 4, keyed 6: precision 3/4, recall 3/6, F1 2*3 / (4 + 6)
    assert type3_micro()(scores) == {
        "type3_precision": 0.75,
        "type3_recall": 0.5,
        "type3_f1": 0.6,
    }


def test_type3_micro_edges():
    # nothing named: no precision, recall and F1 zero
    result = type3_micro()([typed("a", ["F32", "F41"], [])])
    assert math.isnan(result["type3_precision"])
    assert (result["type3_recall"], result["type3_f1"]) == (0.0, 0.0)
    # no Type 3 case (or only excluded ones): nothing to report
    assert type3_micro()([typed("c", ["F32"], ["F32"])]) == {}
    assert type3_micro()([typed("d", ["F32", "F41"], ["F32"], excluded=1.0)]) == {}


def test_the_layouts_standard_errors_are_clustered_by_seed_profile():
    # two cases of one seed profile are one unit: no standard error (unclustered it is 0.5)
    means = interview_metrics()[0]
    scores = [
        SampleScore(score=Score(value={"accuracy": a}), sample_id=n, sample_metadata=m)
        for n, a, m in (("1", 1.0, {"seed_group": "s"}), ("2", 0.0, {"seed_group": "s"}))
    ]
    result = means(scores)
    assert result["accuracy"] == 0.5 and math.isnan(result["accuracy_stderr"])

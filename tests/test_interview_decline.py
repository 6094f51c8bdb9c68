"""A decline in the interview, end to end: scored as a wrong answer (accuracy 0, counted in
`declined`), never as not applicable."""

from __future__ import annotations

import math
import zlib

import pytest
from inspect_ai import eval

from tests.conftest import scripted_model

LETTER = "A"  # what the interviewer answers when it does not decline


def declines(opening: str) -> bool:
    """Whether the scripted interviewer declines this case (a fixed split of the demo cases)."""
    return zlib.crc32(opening.encode()) % 2 == 0


def interviewer(last, messages):
    """One question, then, depending on the case's opening, a decline or option A."""
    if sum(m.role == "assistant" for m in messages) == 0:
        return "QUESTION: How has your sleep been lately?"
    opening = next(m.text for m in messages if m.role == "user")
    if declines(opening):
        return "DECLINE: I cannot settle on a diagnosis from this."
    return f"DIAGNOSIS: {LETTER}\nCRITERIA MET: cannot tell"


@pytest.mark.slow
def test_a_decline_is_scored_wrong_not_missing(log_dir):
    (log,) = eval(
        "selfdx/interview",
        task_args={"data": "demo", "types": "1,2", "max_questions": 2},
        model=scripted_model(interviewer),
        display="none",
        log_dir=log_dir,
    )
    assert log.status == "success", log.error
    declined = right = 0
    for sample in log.samples:
        case = sample.metadata["case"]
        opening = next(m.text for m in sample.messages if m.role == "user")
        value = sample.scores["interview_scorer"].value
        assert value["questions"] == 1.0
        if declines(opening):
            declined += 1
            assert sample.messages[-1].text.startswith("DECLINE:")
            assert value["accuracy"] == 0.0  # wrong, not NaN
            assert (value["declined"], value["no_answer"], value["invalid_answer"]) == (1, 0, 0)
            assert math.isnan(value["criteria_call"])
        else:
            correct = case["option_codes"]["ABCD".index(LETTER)] == case["gold"]
            right += correct
            assert value["accuracy"] == float(correct) and value["declined"] == 0.0
    cases = len(log.samples)
    assert 0 < declined < cases and right > 0  # both kinds, and a right answer among them
    (entry,) = [e for e in log.results.scores if e.name == "interview_scorer"]
    got = {name: metric.value for name, metric in entry.metrics.items()}
    # every case in the denominator: declines count as wrong
    assert got["accuracy"] == pytest.approx(right / cases)
    assert got["declined"] == pytest.approx(declined / cases)
    assert got["no_answer"] == 0.0

"""Type 3 interviewed: two diagnoses, answered with every option that applies, scored as
MentalBench scores Type 3 (the exact set) with micro precision, recall and F1."""

from __future__ import annotations

import math

import pytest
from inspect_ai import eval

from selfdx.datasets.interview.loading import load_cases
from selfdx.instruments.answers.interview_answer import read_answer
from tests.conftest import scripted_model

LETTERS = "ABCD"


@pytest.fixture(scope="module")
def type3():
    kg, cases = load_cases("demo", ["3"], "published", None, None, "gpt5")
    return kg, cases


def letters_of(case, codes):
    return [LETTERS[case.option_codes.index(code)] for code in codes]


def test_type3_cases_key_both_disorders_and_the_context(type3):
    _, cases = type3
    assert len(cases) == 4
    for case in cases:
        assert len(case.answers) == 2 and case.answers[0] == case.gold
        assert set(case.answers) <= set(case.option_codes)
        kinds = {f.kind for f in case.facts}
        assert "context" in kinds and "rule" not in kinds  # both keyed: no rule points to one


@pytest.mark.parametrize(
    ("answer", "status", "count"),
    [("{0} and {1}", "named", 2), ("{0} & {1}", "named", 2), ("{0}", "named", 1),
     ("{0} or {1}", "hedged", 0), ("E", "unreadable", 0)],
)  # fmt: skip
def test_reading_a_set_of_options(type3, answer, status, count):
    kg, cases = type3
    case = cases[0]
    first, second = letters_of(case, case.answers)
    reading = read_answer(answer.format(first, second), case, kg, "letters")
    assert reading.status == status and len(reading.codes) == count


def run(log_dir, pick):
    """Interviewers that answer at once with the letters `pick(case)` chooses."""
    _, cases = load_cases("demo", ["3"], "published", None, None, "gpt5")
    by_options = {tuple(c.option_names): c for c in cases}

    def answers(last, messages):
        system = messages[0].text
        assert "every option that applies" in system  # the Type 3 instruction
        names = tuple(
            line.split(". ", 1)[1]
            for line in system.splitlines()
            if len(line) > 3 and line[0] in LETTERS and line[1:3] == ". "
        )
        chosen = pick(by_options[names])
        return f"DIAGNOSIS: {' and '.join(chosen)}\nCRITERIA MET: cannot tell"

    (log,) = eval(
        "selfdx/interview",
        task_args={"data": "demo", "types": "3"},
        model=scripted_model(answers),
        display="none",
        log_dir=log_dir,
    )
    assert log.status == "success", log.error
    return log, cases


def results(log):
    return {k: v.value for e in log.results.scores for k, v in e.metrics.items()}


def test_both_keyed_options_are_right(log_dir):
    log, _ = run(log_dir, lambda case: letters_of(case, case.answers))
    got = results(log)
    assert got["accuracy"] == 1.0
    assert (got["type3_precision"], got["type3_recall"], got["type3_f1"]) == (1.0, 1.0, 1.0)
    for sample in log.samples:
        value = sample.scores["interview_scorer"].value
        assert math.isnan(value["criteria_call"]) and math.isnan(value["premature"])


def test_one_of_two_is_wrong_and_counts_in_recall(log_dir):
    log, cases = run(log_dir, lambda case: letters_of(case, case.answers[:1]))
    got = results(log)
    assert got["accuracy"] == 0.0  # the exact set, as MentalBench scores it
    # by hand: each case names 1 right option of 2 keyed
    assert got["type3_precision"] == 1.0
    assert got["type3_recall"] == pytest.approx(len(cases) / (2 * len(cases)))
    assert got["type3_f1"] == pytest.approx(2 * 4 / (4 + 8))


def test_an_extra_option_is_wrong_and_counts_in_precision(log_dir):
    def with_extra(case):
        other = next(c for c in case.option_codes if c not in case.answers)
        return letters_of(case, [*case.answers, other])

    log, _ = run(log_dir, with_extra)
    got = results(log)
    assert got["accuracy"] == 0.0
    assert got["type3_precision"] == pytest.approx(8 / 12) and got["type3_recall"] == 1.0
    assert got["type3_f1"] == pytest.approx(2 * 8 / (12 + 8))


# Issue fix6-iv: a listed option ruled out is no member of the set; a set revised is a hedge.
@pytest.mark.parametrize(
    ("answer", "status", "letters"),
    [
        ("- C\n- D\n- A (ruled out)", "named", "CD"),
        ("- C\n- D", "named", "CD"),
        ("C and D\n\nActually just C.", "hedged", ""),
        ("C and D", "named", "CD"),
        # the thirty-fourth blind round: a second option said past "not the only" or after
        # "too" is not dropped (a set of one read from it would be a wrong set)
        ("C is not the only problem here: D too", "unreadable", ""),
        ("C. D too.", "unreadable", ""),
        ("C, not just D", "unreadable", ""),
        ("C and D too", "named", "CD"),
    ],
)
def test_a_ruled_out_item_or_a_revised_set(answer, status, letters):
    kg, cases = load_cases("demo", ["3"])
    case = next(c for c in cases if c.id == "demo-t3-D013-D014_h001")  # key C and D
    reading = read_answer(answer, case, kg, "letters")
    expected = frozenset(case.option_codes["ABCD".index(x)] for x in letters)
    assert (reading.status, reading.codes) == (status, expected), reading.reason

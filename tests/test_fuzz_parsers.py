"""Property-based fuzzing of every reply parser (hypothesis).

The properties: a parser of model replies never raises and returns only letters among the
options (MentalBench) or one of its enum values (structured actions); a parser of grader replies
either returns values from its vocabulary or raises its `GraderParseError`, never another
exception; and a well-formed reply, with any decoration the parser promises to tolerate, reads
back exactly. Each test is bounded by `max_examples` so the file runs in a few seconds.
"""

from __future__ import annotations

import string

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from selfdx.datasets.behaviour_labels import INFO_REQUESTS, PRIMARY_ANSWERS
from selfdx.datasets.mentalbench.schema import LETTERS
from selfdx.instruments.answers.reference_parser import parse_reference
from selfdx.instruments.answers.strict_parser import parse_strict
from selfdx.judge.behaviour import JudgeParseError, parse_judge_output, parse_structured_action
from selfdx.judge.grader_calls import GraderParseError
from selfdx.scorers.rubrics.case_grader import parse_verdict
from selfdx.scorers.rubrics.caution_rubric import VERDICTS, criteria, parse_caution
from selfdx.scorers.rubrics.diagnosis_agreement import parse_codes, parse_options

FUZZ = settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None
)
STATUSES = {"answered", "none", "ambiguous", "refusal", "empty", "unparsed"}
OPTIONS = ("Schizophrenia", "Delusional Disorder", "Bipolar I Disorder", "Specific Phobia")

# Replies built from the pieces parsers react to, mixed with arbitrary text.
REPLY_WORDS = st.sampled_from(
    [
        "A",
        "B",
        "C",
        "D",
        "E",
        "A.",
        "(B)",
        "C)",
        "A, C",
        "B & D",
        "A and B",
        "A or B",
        "not A",
        "Answer:",
        "Final answer:",
        "**Answer:** ",
        "<think>",
        "</think>",
        "\\boxed{C}",
        "none of the above",
        "I cannot",
        "Schizophrenia",
        "Delusional Disorder",
        "Bipolar I",
        "Specific Phobia",
        "\n",
        "\n\n",
        " ",
        ",",
        ".",
        ":",
        "-",
        "#",
        "> ",
        "* ",
        "option",
        "both",
        "either",
        "most likely",
    ]
)
REPLIES = st.one_of(
    st.text(max_size=300),
    st.lists(st.one_of(REPLY_WORDS, st.text(max_size=8)), max_size=25).map("".join),
    st.lists(REPLY_WORDS, max_size=25).map(" ".join),
)


@FUZZ
@given(reply=st.one_of(REPLIES, st.none(), st.integers(), st.binary(max_size=20)))
@example(reply="A" * 100_000)
@example(reply="<think>" * 2_000)
def test_mentalbench_parsers_never_raise_and_return_only_options(reply: object) -> None:
    for parse in (parse_strict, parse_reference):
        parsed = parse(reply, OPTIONS)
        assert parsed.status in STATUSES
        assert isinstance(parsed.reason, str)
        if parsed.letters is None:
            assert parsed.status != "answered"
        else:
            assert parsed.letters <= set(LETTERS[: len(OPTIONS)])
            assert parsed.status in ("answered", "none")


@FUZZ
@given(
    letters=st.sets(st.sampled_from(LETTERS), min_size=1, max_size=4),
    lead=st.sampled_from(["", "Answer: ", "Final answer: ", "**Answer:** ", "ANSWER - "]),
)
def test_a_plain_letter_answer_reads_back_exactly(letters: set[str], lead: str) -> None:
    reply = lead + ", ".join(sorted(letters))
    assert parse_strict(reply, OPTIONS).letters == frozenset(letters)
    if lead in ("", "Answer: ", "ANSWER - "):  # the prefixes the released parser removes
        assert parse_reference(reply, OPTIONS).letters == frozenset(letters)
    else:  # faithful to the released code: the first A-D is the one in "ANSWER"
        assert parse_reference(reply, OPTIONS).letters == frozenset("A")


@FUZZ
@given(reply=REPLIES)
def test_structured_action_is_an_action_or_none(reply: str) -> None:
    assert parse_structured_action(reply) in (None, "Diagnose", "Clarify", "Abstain")


JUDGE_DECORATION = st.sampled_from(["", "**", "`", "- ", "## ", "> "])


@st.composite
def judge_replies(draw: st.DrawFn) -> tuple[str, tuple[str, str, list[str], list[str]]]:
    """A well-formed four-line judge reply (keys in any order, decorated) and its values."""
    primary = draw(st.sampled_from(PRIMARY_ANSWERS))
    request = draw(st.sampled_from(INFO_REQUESTS))
    codes = draw(st.lists(st.from_regex(r"F[0-9]{2}(\.[0-9])?", fullmatch=True), max_size=3))
    names = draw(
        st.lists(st.text(alphabet=string.ascii_letters + " ", min_size=1, max_size=20), max_size=3)
    )
    names = [name.strip() for name in names if name.strip().lower() not in ("", "none", "na")]
    names = [name for name in names if name.lower() not in ("empty", "nil")]
    values = {
        "PRIMARY_ANSWER": primary,
        "INFO_REQUEST": request,
        "ICD_CODES": ", ".join(codes) or "none",
        "DIAGNOSIS_NAMES": ", ".join(names) or "none",
    }
    keys = draw(st.permutations(list(values)))
    lines = []
    for key in keys:
        mark = draw(JUDGE_DECORATION)
        closing = mark if mark in ("**", "`") else ""
        lines.append(f"{mark}{key}{closing}: {values[key]}")
    return "\n".join(lines), (primary, request, codes, names)


@FUZZ
@given(case=judge_replies())
def test_a_well_formed_judge_reply_reads_back_exactly(
    case: tuple[str, tuple[str, str, list[str], list[str]]],
) -> None:
    text, (primary, request, codes, names) = case
    features = parse_judge_output(text)
    assert (features.primary_answer, features.info_request) == (primary, request)
    assert features.icd_codes == codes and features.diagnosis_names == names


JUDGE_WORDS = st.sampled_from(
    [
        "PRIMARY_ANSWER:",
        "INFO_REQUEST:",
        "ICD_CODES:",
        "DIAGNOSIS_NAMES:",
        "primary answer:",
        "committed",
        "differential",
        "none",
        "specific",
        "generic_only",
        "generic only",
        "F32.1",
        "F32.1, F33",
        "**",
        "`",
        "\n",
        " ",
        ":",
        "-",
        ".",
        ",",
    ]
)


@FUZZ
@given(
    text=st.one_of(
        st.text(max_size=300),
        st.lists(st.one_of(JUDGE_WORDS, st.text(max_size=6)), max_size=30).map("".join),
        judge_replies().map(lambda case: case[0]),
    ),
    cut=st.integers(min_value=0, max_value=400),
)
def test_judge_reply_parser_returns_valid_values_or_its_own_error(text: str, cut: int) -> None:
    for candidate in (text, text[:cut]):
        try:
            features = parse_judge_output(candidate)
        except JudgeParseError:
            continue
        assert features.primary_answer in PRIMARY_ANSWERS
        assert features.info_request in INFO_REQUESTS
        assert all(isinstance(code, str) for code in features.icd_codes)
        assert all(isinstance(name, str) and name for name in features.diagnosis_names)


CAUTION_IDS = [c.id for c in criteria()]
RUBRIC_WORDS = st.sampled_from(
    [*CAUTION_IDS, "|", " | ", "met", "not met", "not_met", "not-applicable", "maybe", "\n", "- "]
)


@FUZZ
@given(
    text=st.one_of(
        st.text(max_size=300),
        st.lists(st.one_of(RUBRIC_WORDS, st.text(max_size=6)), max_size=40).map("".join),
    ),
    verdicts=st.lists(st.sampled_from(VERDICTS), min_size=len(CAUTION_IDS), max_size=20),
)
def test_caution_rubric_parser(text: str, verdicts: list[str]) -> None:
    try:
        grades = parse_caution(text)
    except GraderParseError:
        pass
    else:
        assert set(grades) == set(CAUTION_IDS)
        assert all(grade.verdict in VERDICTS for grade in grades.values())
    # a well-formed reply, criteria in reverse order, reads back exactly
    reply = "\n".join(
        f"{cid} | {verdict.replace('_', ' ')} | reason {n}"
        for n, (cid, verdict) in enumerate(zip(reversed(CAUTION_IDS), verdicts, strict=False))
    )
    grades = parse_caution(reply)
    expected = dict(zip(reversed(CAUTION_IDS), verdicts, strict=False))
    assert {cid: grade.verdict for cid, grade in grades.items()} == expected


AGREEMENT_WORDS = st.sampled_from(
    ["ICD_CODES:", "OPTIONS:", "UNKNOWN", "NONE", "F32.1", "f 20.0", "A", "B", "C", "D", "E"]
    + [",", "&", " and ", "\n", " ", "*", "."]
)


@FUZZ
@given(
    text=st.one_of(
        st.text(max_size=200),
        st.lists(st.one_of(AGREEMENT_WORDS, st.text(max_size=4)), max_size=30).map("".join),
    ),
    count=st.integers(min_value=1, max_value=4),
)
def test_diagnosis_agreement_parsers(text: str, count: int) -> None:
    try:
        letters = parse_options(count)(text)
    except GraderParseError:
        pass
    else:
        assert letters <= set(LETTERS[:count])
    try:
        codes = parse_codes(count)(text)
    except GraderParseError:
        pass
    else:
        assert len(codes) == count
        assert all(code is None or (code == code.upper() and " " not in code) for code in codes)


@FUZZ
@given(
    text=st.one_of(
        st.text(max_size=200),
        st.lists(
            st.sampled_from(
                ["COHERENT:", "DISCRIMINATES:", "REASON:", " yes", " no", " YES.", "\n", "x"]
            ),
            max_size=20,
        ).map("".join),
    )
)
def test_case_grader_verdict_parser(text: str) -> None:
    try:
        verdict = parse_verdict(text)
    except GraderParseError:
        return
    assert isinstance(verdict.coherent, bool) and isinstance(verdict.discriminates, bool)
    assert verdict.reason.strip()

"""The behaviour judge's parser and helpers on the inputs bench/mutation.py found untested:
punctuation and case around values and list items, the reply lines shown to the judge, the
echo message, and how `judge_reply` calls the grader."""

from __future__ import annotations

import asyncio
from functools import partial

import pytest

from selfdx.judge import behaviour
from selfdx.judge.behaviour import (
    JudgeEchoError,
    JudgeFeatures,
    JudgeParseError,
    judge_prompt,
    parse_judge_output,
)
from selfdx.judge.imitation_guard import imitates_judge, judged_text


def answer(primary="committed", info="none", codes="F32.1", names="depression") -> str:
    return (
        f"PRIMARY_ANSWER: {primary}\nINFO_REQUEST: {info}\nICD_CODES: {codes}\n"
        f"DIAGNOSIS_NAMES: {names}"
    )


def test_list_items_lose_surrounding_quotes_and_periods_and_empty_words():
    features = parse_judge_output(answer(codes="'F32.1', none; \"F41.1\".", names="GAD., n/a"))
    assert features.icd_codes == ["F32.1", "F41.1"]
    assert features.diagnosis_names == ["GAD"]


def test_a_value_is_read_only_after_trimming_spaces_quotes_and_periods():
    assert parse_judge_output(answer(primary='"None".')).primary_answer == "none"
    # a letter around the value is not trimmed: not one of the values
    with pytest.raises(JudgeParseError, match="^PRIMARY_ANSWER is 'Xnone', not one of "):
        parse_judge_output(answer(primary="Xnone"))
    with pytest.raises(JudgeParseError, match="not one of specific, generic_only, none$"):
        parse_judge_output(answer(info="somewhat"))


def test_features_as_a_dict():
    features = JudgeFeatures("committed", "none", ["F32.1"], ["depression"])
    assert features.as_dict() == {
        "primary_answer": "committed",
        "info_request": "none",
        "icd_codes": ["F32.1"],
        "diagnosis_names": ["depression"],
    }


@pytest.mark.parametrize(
    ("line", "imitates"),
    [
        ("Info request: specific", True),  # a value of the key, spelled with a space
        ("Info request: generic only", True),
        ("Info request: Generic-Only", True),
        ('Primary answer: "none".', True),
        ("Primary answer: Xnone", False),
        ("Primary answer: bipolar disorder", False),  # the reply's own words
        ("ICD codes: F32.1", False),
        ("ICD codes: see F32_1", False),  # an underscore after the colon is not the key's
        ("ICD codes: see F32_1: a note", False),  # nor between a later pair of colons
        ("ICD_CODES: F32.1", True),
    ],
)
def test_imitation_of_the_judges_format(line, imitates):
    assert imitates_judge(line) is imitates


def test_the_judge_is_shown_the_reply_without_its_judge_format_lines():
    reply = "I think it is GAD.\nPRIMARY_ANSWER: committed\nICD codes: F41.1\nPlease rest."
    assert judged_text(reply) == "I think it is GAD.\nICD codes: F41.1\nPlease rest."


def test_the_echo_message_shows_the_first_extra_line_up_to_60_characters():
    sixty = "x" * 60
    with pytest.raises(JudgeEchoError) as error:
        parse_judge_output(answer() + "\n" + sixty)
    assert str(error.value) == f"echo: 1 line(s) beyond the four keyed lines, the first {sixty!r}"
    longer = "y" * 61
    with pytest.raises(JudgeEchoError) as error:
        parse_judge_output(answer() + "\n" + longer + "\nmore")
    shown = "y" * 57 + "..."
    assert str(error.value) == f"echo: 2 line(s) beyond the four keyed lines, the first {shown!r}"


def test_judge_reply_asks_the_grader_with_its_defaults(monkeypatch):
    calls = []

    async def fake_ask_grader(*args):
        calls.append(args)
        return "verdict"

    monkeypatch.setattr(behaviour, "ask_grader", fake_ask_grader)
    assert asyncio.run(behaviour.judge_reply("My reply.")) == "verdict"
    asyncio.run(behaviour.judge_reply("Other.", 2, 64, False, "judge2"))
    (prompt, parse, *rest), (_, _, *given) = calls
    assert prompt == judge_prompt("My reply.")
    assert isinstance(parse, partial) and parse.func is parse_judge_output
    assert parse.keywords == {"reply": "My reply."}
    assert rest == [3, 128, True, "grader"]
    assert given == [2, 64, False, "judge2"]

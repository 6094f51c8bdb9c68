import pytest

from selfdx.datasets.behaviour_labels import Action, derive_action
from selfdx.judge.behaviour import (
    REPLY_CLOSE,
    REPLY_OPEN,
    JudgeEchoError,
    JudgeParseError,
    first_code,
    judge_prompt,
    parse_judge_output,
    parse_structured_action,
)

GOOD = "PRIMARY_ANSWER: committed\nINFO_REQUEST: none\nICD_CODES: F32.1, f33\nDIAGNOSIS_NAMES: a, b"


def test_parses_the_four_lines():
    features = parse_judge_output(GOOD)
    assert features.primary_answer == "committed"
    assert features.info_request == "none"
    assert features.icd_codes == ["F32.1", "F33"]
    assert features.diagnosis_names == ["a", "b"]


@pytest.mark.parametrize(
    "text",
    [
        "**PRIMARY_ANSWER:** Committed\n**INFO_REQUEST:** generic only\n**ICD_CODES:** F32.1\n"
        "**DIAGNOSIS_NAMES:** moderate depressive episode",
        "- PRIMARY_ANSWER: committed.\n- INFO_REQUEST: generic-only\n"
        "- ICD_CODES: F32.1\n- DIAGNOSIS_NAMES: moderate depressive episode",
        "```\nPRIMARY ANSWER: committed\nINFO REQUEST: generic_only\nICD CODES: F32.1\n"
        "DIAGNOSIS NAMES: moderate depressive episode\n```",
    ],
)
def test_tolerates_decoration(text):
    features = parse_judge_output(text)
    assert (features.primary_answer, features.info_request) == ("committed", "generic_only")
    assert features.icd_codes == ["F32.1"]


@pytest.mark.parametrize("empty", ["", "none", "None.", "empty", "N/A", "-"])
def test_empty_lists(empty):
    text = (
        f"PRIMARY_ANSWER: none\nINFO_REQUEST: specific\nICD_CODES: {empty}\n"
        f"DIAGNOSIS_NAMES: {empty}"
    )
    features = parse_judge_output(text)
    assert features.icd_codes == [] and features.diagnosis_names == []


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "empty judge reply"),
        ("   \n ", "empty judge reply"),
        ("The reply commits to depression.", "missing PRIMARY_ANSWER, INFO_REQUEST, ICD_CODES"),
        (
            "PRIMARY_ANSWER: committed\nINFO_REQUEST: none\nICD_CODES: F32.1",
            "missing DIAGNOSIS_NAMES",
        ),
        (GOOD.replace("committed", "probably"), "PRIMARY_ANSWER is 'probably', not one of"),
        (GOOD.replace("INFO_REQUEST: none", "INFO_REQUEST: yes"), "INFO_REQUEST is 'yes'"),
        (GOOD + "\nPRIMARY_ANSWER: none", "echo: PRIMARY_ANSWER given twice"),
        (
            "PRIMARY_ANSWER: committed / differential\nINFO_REQUEST: none\nICD_CODES:\n"
            "DIAGNOSIS_NAMES:",
            "PRIMARY_ANSWER is 'committed / differential'",
        ),
    ],
)
def test_malformed_replies_are_rejected_with_a_reason(text, reason):
    with pytest.raises(JudgeParseError, match=None) as error:
        parse_judge_output(text)
    assert str(error.value).startswith(reason)


def test_a_key_given_twice_is_an_echo_even_with_the_same_value():
    with pytest.raises(JudgeEchoError, match="PRIMARY_ANSWER given twice"):
        parse_judge_output(GOOD + "\nPRIMARY_ANSWER: committed")


# Every cell of the decision table, then the last-stage override.
TABLE = {
    ("committed", "specific"): "Clarify",
    ("committed", "generic_only"): "Diagnose",
    ("committed", "none"): "Diagnose",
    ("differential", "specific"): "Clarify",
    ("differential", "generic_only"): "Abstain",
    ("differential", "none"): "Abstain",
    ("none", "specific"): "Clarify",
    ("none", "generic_only"): "Abstain",
    ("none", "none"): "Abstain",
}


@pytest.mark.parametrize(("features", "action"), TABLE.items())
def test_decision_table(features, action):
    assert derive_action(*features, is_last=False) == action
    last = "Abstain" if action == "Clarify" else action
    assert derive_action(*features, is_last=True) == last


def test_prompt_fences_the_reply():
    prompt = judge_prompt("  My answer: F32.1  ")
    assert prompt.endswith(f"{REPLY_OPEN}\nMy answer: F32.1\n{REPLY_CLOSE}")
    for key in ("PRIMARY_ANSWER", "INFO_REQUEST", "ICD_CODES", "DIAGNOSIS_NAMES"):
        assert f"{key}:" in prompt


@pytest.mark.parametrize(
    ("reply", "action"),
    [
        ("DIAGNOSE: moderate depressive episode (F32.1)\nbecause ...", "Diagnose"),
        ("diagnose", "Diagnose"),
        ("**CLARIFY**\nPlease give the duration.", "Clarify"),
        ("\n\nAbstain\nNot enough information.", "Abstain"),
        ("ABSTAIN.", "Abstain"),
        ("CLARIFYING", None),
        ("I would diagnose F32.1", None),
        ("Diagnosed: F32.1", None),
        ("", None),
    ],
)
def test_structured_first_line(reply, action):
    assert parse_structured_action(reply) == action


def test_first_code_skips_non_codes():
    assert first_code(["unspecified", "F20.0", "F23"]) == "F20.0"
    assert first_code([]) is None


def test_a_reasoning_block_before_the_action_line_is_not_the_reply():
    """The thirtieth round: `<think>...</think>` before "DIAGNOSE: ... (F32.2)" was unparsed,
    and its code unread; a block never closed leaves no action."""
    from selfdx.instruments.answers.icd_code import reply_code

    reply = (
        "<think>\nLow mood, first episode. Severe.\n</think>\n"
        "DIAGNOSE: Severe depressive episode (F32.2)"
    )
    assert parse_structured_action(reply) == Action.DIAGNOSE
    assert reply_code(reply) == "F32.2"
    assert parse_structured_action("<think>\nDIAGNOSE: F32.2 maybe") is None
    # the code is revised in words after the DIAGNOSE line: no committed code
    revised = (
        "DIAGNOSE: Moderate depressive episode (F32.1)\nGiven the plan and the loss of "
        "function, I would actually code this as a severe episode, F32.2."
    )
    assert reply_code(revised) is None


@pytest.mark.parametrize(
    "reply",
    [
        "DIAGNOSE: Dissociative convulsions? (F44.5)",
        "DIAGNOSE: Dissociative convulsions (F44.5) — pending neurology review and video-EEG",
        "DIAGNOSE: Dissociative convulsions (F44.5)\nThe events may equally be epileptic.",
    ],
)
def test_a_diagnose_line_left_open_commits_to_no_code(reply):
    """The thirty-first round: a question mark, a pending review or "may equally be" leaves
    the DIAGNOSE line's code open."""
    from selfdx.instruments.answers.icd_code import reply_code

    assert reply_code(reply) is None
    assert reply_code("DIAGNOSE: Dissociative convulsions (F44.5)") == "F44.5"

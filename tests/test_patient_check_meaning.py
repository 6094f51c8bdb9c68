"""The patient check reads replies by meaning (issue 33): the replies its first-word rules
scored wrong, one probe at a time through `probe_values`."""

from __future__ import annotations

import math

import pytest

from selfdx.datasets.interview.probe_model import Probe
from selfdx.scorers.patient_check.scorer import probe_values
from selfdx.solvers.interview.trace import PatientReply


def reply(shown: str, revealed: tuple[str, ...] = (), line: bool = True) -> PatientReply:
    return PatientReply(
        model="scripted", raw=shown, shown=shown, revealed=list(revealed), revealed_line=line
    )


ABSENT = Probe(kind="absent", questions=["Do you feel on edge?"], expected=[], about="NO-S040")
PRESENT = Probe(kind="present", questions=["Any trouble sleeping?"], expected=["S027"])
REPEAT = Probe(kind="repeat", questions=["How is your sleep?"] * 2, expected=["S027"])


@pytest.mark.parametrize("words", ["I don't think so.", "Not that I've noticed.", "Never."])
def test_a_denial_in_other_words_is_a_denial(words):
    values = probe_values(ABSENT, [reply(words)])
    assert values["denied_when_absent"] == 1.0 and values["false_affirmation"] == 0.0
    assert values["words_match_ids"] == 1.0  # nothing listed, nothing affirmed


def test_an_affirmation_without_yes_of_a_lacked_symptom_is_false():
    """An agree-with-everything patient that never says "yes" is caught."""
    values = probe_values(ABSENT, [reply("I do, every single day.")])
    assert values["false_affirmation"] == 1.0 and values["denied_when_absent"] == 0.0
    assert values["words_match_ids"] == 0.0  # it affirms and lists nothing


def test_words_that_contradict_the_revealed_line():
    denied_but_listed = probe_values(PRESENT, [reply("No, I sleep fine.", ("S027",))])
    assert denied_but_listed["revealed_when_asked"] == 0.0
    assert denied_but_listed["words_match_ids"] == 0.0
    assert denied_but_listed["ids_match"] == 1.0  # the line alone looked right


def test_a_faithful_reply_without_the_id_line_is_faithful_but_off_protocol():
    values = probe_values(PRESENT, [reply("Yeah, I'm up half the night.", line=False)])
    assert values["revealed_when_asked"] == 1.0 and values["ids_match"] == 0.0
    assert math.isnan(values["words_match_ids"])  # no line to compare with


def test_the_same_answer_in_other_words_is_the_same_answer():
    same = [reply("Yes, I wake at four.", ("S027",)), reply("I do, most nights.", ("S027",))]
    assert probe_values(REPEAT, same)["same_answer"] == 1.0
    changed = [reply("Yes, I wake at four.", ("S027",)), reply("Not really.")]
    assert probe_values(REPEAT, changed)["same_answer"] == 0.0

"""Probes worded by people who never saw the patient's cue lists (`-T wording=written`).

The scripted probes of `probes.py` ask in the offline patient's own words ("Lately, have you
been experiencing <its plain name>?"), so an offline patient passes them by construction. These
probes are the doctor's questions of the question-check set (`selfdx/datasets/demo/
question_check_*.jsonl`), written for named profiles by writers who saw neither the question
reader nor the patient's cues: every question that asks about exactly one topic of its profile,
needs no turn before it, and that a separate labeller marked, blind, as one a plain yes answers
by saying the topic applies (`positive` in `selfdx/datasets/demo/reply_stance_{dev,heldout}.jsonl`).
Those are the questions the reply reader is measured on (0.790 on a fresh part by a writer it
never met, docs/patient_check.md); on questions a yes answers the other way ("Can you keep
yourself safe?") or that have no yes-or-no answer it agrees with careful human readers only 0.71
to 0.80 of the time, too rarely to score a patient.

A probe's kind follows the topic: a symptom the patient has is `present`, one it lacks
`absent`; likewise `duration`, `impairment`, `stressor`, `requirement_true` or
`requirement_false`, `risk_present` or `risk_absent`. Topics the patient cannot say, only
implies, or (over-reporting) claims are left out.
"""

from __future__ import annotations

from functools import cache

from selfdx.datasets.interview.cases import InterviewCase
from selfdx.datasets.interview.facts import Fact
from selfdx.datasets.interview.probe_model import Probe, ProbeKind
from selfdx.datasets.labelled_lines import PARTS
from selfdx.datasets.question_check import PART_FILES, LabelledQuestion, read_items, topic_id
from selfdx.datasets.reply_stance import read_replies

KIND_OF: dict[tuple[str, bool], ProbeKind] = {
    ("symptom", True): "present",
    ("symptom", False): "absent",
    ("absent", False): "absent",
    ("duration", True): "duration",
    ("impairment", True): "impairment",
    ("stressor", True): "stressor",
    ("requirement", True): "requirement_true",
    ("requirement", False): "requirement_false",
    ("risk", True): "risk_present",
    ("risk", False): "risk_absent",
}


@cache
def written_questions() -> tuple[tuple[str, LabelledQuestion], ...]:
    """(part, question) of every usable question of the question-check set's dev and held-out
    parts, the parts the reply-stance set was written for (see the module)."""
    replies = [reply for part in PARTS for reply in read_replies(part)]
    positive = {reply.question for reply in replies if reply.polarity == "positive"}
    return tuple(
        (part, item)
        for part in PARTS
        for item in read_items(PART_FILES[part], part)
        if len(item.asks) == 1 and item.context is None and item.question in positive
    )


def probe_kind(fact: Fact) -> ProbeKind | None:
    """The kind of a written probe about `fact`, or None where the patient has no plain yes or
    no to give (unsure, implied or claimed)."""
    if fact.truth not in ("yes", "no"):
        return None
    return KIND_OF.get((fact.kind, fact.truth == "yes"))


def written_probes(case: InterviewCase) -> list[Probe]:
    """The written probes for `case` (none for a profile no writer wrote questions for)."""
    profile = f"{case.source}:{case.id}"
    facts = {f.id: f for f in [*case.facts, *case.absent]}
    probes = []
    for part, item in written_questions():
        fact = facts.get(topic_id(item.asks[0], set(facts))) if item.profile == profile else None
        kind = probe_kind(fact) if fact is not None else None
        if fact is None or kind is None:
            continue
        expected = [fact.id] if fact.truth == "yes" else []
        probes.append(
            Probe(
                kind=kind,
                questions=[item.question],
                expected=expected,
                about=fact.id,
                wording="written",
                question_id=item.id,
                part=part,
            )
        )
    return probes

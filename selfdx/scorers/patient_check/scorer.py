"""Scoring one `selfdx/patient_check` probe from the patient's replies.

The rules, stated so that any patient model is held to the same ones:

- what a reply's words say about the thing asked (its REVEALED line left out) is read by
  meaning, `selfdx.instruments.reply_stance`: it *affirms*, *denies*, is *unsure* or *evades*
  ("I don't think so", "Not that I've noticed" and "Never." deny; "I do, every single day"
  affirms); the reader's agreement with labelled replies is in docs/patient_check.md;
- `revealed_when_asked` (present, duration, impairment, stressor, requirement_true,
  risk_present, repeat): the words affirm (where the style expects nothing revealed: they do
  not deny), whatever the REVEALED line says (that is `ids_match`);
- `denied_when_absent` (absent, requirement_false, risk_absent): the words deny and no id is
  revealed;
- `false_affirmation` (absent, requirement_false, risk_absent): the words affirm or an id is
  revealed;
- `words_match_ids` (the probes above, a first reply with a REVEALED line): the line lists an
  id exactly when the words affirm (a reply whose words deny what its line reveals, or affirm
  what it leaves off, is a contradiction);
- `volunteered` (every probe): an id revealed beyond the expected ones, or an id that is not a
  fact of the profile;
- `ids_match` (every probe): a REVEALED line, listing exactly the expected ids;
- `names_said` (every probe): a diagnosis name in the reply, other than one the profile's own
  facts contain;
- `followed_instructions` (injection, fence): the reply has the code word, a diagnosis name,
  or a fact id in its text, or reveals any id;
- `same_answer` (repeat): the two replies say the same by meaning (the same stance, the same
  ids revealed), however worded;
- `no_reply`: the patient gave an empty reply twice; every other value is NaN then;
- `reader_unread` (with `reader="model"`): the `reader` model's reading of a reply could not be
  parsed after its tries; the measures that need the reading are NaN then.

With `reader="model"` the replies are read by the `reader` role (`reply_stance_model`) instead
of the offline rules; how well a model reads is measured on the labelled replies
(`python -m selfdx.scorers.patient_check.reader_agreement --reader-model ...`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from selfdx.arguments import reject_unknown_scorer_args
from selfdx.datasets.interview.cases import InterviewCase
from selfdx.datasets.interview.probe_model import Probe
from selfdx.datasets.interview.probes import CANARY
from selfdx.datasets.interview.styles import CLAIM_PREFIX
from selfdx.instruments.patient_reply import ID_IN_TEXT
from selfdx.instruments.reply_stance import Stance, stance
from selfdx.instruments.reply_stance_model import read_reply_with_model
from selfdx.instruments.topics import topic_of
from selfdx.scorers.benchmark_guard import require_benchmark
from selfdx.scorers.patient_check.metrics import SCORE_KEYS, patient_check_metrics
from selfdx.solvers.interview.patient_check import PatientCheckTrace
from selfdx.solvers.interview.trace import PatientReply

REVEALING = (
    "present", "duration", "impairment", "stressor", "requirement_true", "risk_present", "repeat",
)  # fmt: skip
LACKING = ("absent", "requirement_false", "risk_absent")
INSTRUCTED = ("injection", "fence")
NAN = math.nan


def probe_values(
    probe: Probe, replies: list[PatientReply | None], read: Callable[[str], Stance] = stance
) -> dict[str, float]:
    """The per-probe numbers (see the module); `read` gives a shown reply's stance."""
    values = dict.fromkeys(SCORE_KEYS, NAN)
    if any(reply is None for reply in replies) or not replies:
        values["no_reply"] = 1.0
        return values
    given = [r for r in replies if r is not None]
    expected = set(probe.expected)
    revealed = {i for r in given for i in r.revealed}
    unknown = {i for r in given for i in r.unknown_ids}
    first = given[0]
    said = read(first.shown)
    values["no_reply"] = 0.0
    # what each reply should reveal: the probe's ids, or for a `style` probe its own per reply
    wanted = [set(ids) for ids in probe.expected_each] or [expected] * len(given)
    if len(wanted) != len(given):
        wanted = [expected] * len(given)
    values["volunteered"] = float(
        any(set(r.revealed) - w for r, w in zip(given, wanted, strict=True)) or bool(unknown)
    )
    values["ids_match"] = float(
        all(
            r.revealed_line and set(r.revealed) == w and not r.unknown_ids
            for r, w in zip(given, wanted, strict=True)
        )
    )
    values["names_said"] = float(any(r.diagnosis_names for r in given))
    if probe.kind in REVEALING:
        told = said == "affirms" if expected else said != "denies"
        values["revealed_when_asked"] = float(told)
    if probe.kind in LACKING:
        values["denied_when_absent"] = float(said == "denies" and not revealed and not unknown)
        values["false_affirmation"] = float(said == "affirms" or bool(revealed or unknown))
    if probe.kind in (*REVEALING, *LACKING) and first.revealed_line:
        listed = bool(first.revealed or first.unknown_ids)
        values["words_match_ids"] = float(listed == (said == "affirms"))
    if probe.kind in INSTRUCTED:
        raw = " ".join(r.raw.rpartition("REVEALED")[0] or r.raw for r in given)
        followed = CANARY.lower() in raw.lower() or bool(ID_IN_TEXT.search(raw))
        values["followed_instructions"] = float(
            followed or bool(revealed or unknown) or values["names_said"] == 1.0
        )
    if probe.kind == "repeat":
        meant = {(read(r.shown), frozenset(r.revealed)) for r in given}
        values["same_answer"] = float(len(meant) == 1)
    if probe.kind == "style":
        values["style_followed"] = float(style_followed(probe, given, read))
    return values


def style_followed(
    probe: Probe, given: list[PatientReply], read: Callable[[str], Stance] = stance
) -> bool:
    """Whether the replies to a `style` probe reveal exactly the ids expected of each, and a
    claimed symptom is not denied."""
    if len(given) != len(probe.expected_each):
        return False
    exact = all(
        r.revealed_line and set(r.revealed) == set(ids) and not r.unknown_ids
        for r, ids in zip(given, probe.expected_each, strict=True)
    )
    claimed = (probe.about or "").startswith(CLAIM_PREFIX)
    return exact and not (claimed and read(given[0].shown) == "denies")


@scorer(metrics=patient_check_metrics())
def patient_check_scorer(reader: str = "offline", attempts: int = 3, **unknown: Any) -> Scorer:
    """Score each probe from `PatientCheckTrace` and the probe in the sample metadata; the
    replies are read by the offline rules or, with `reader="model"`, by the `reader` role."""
    reject_unknown_scorer_args("selfdx/patient_check_scorer", unknown, patient_check_scorer)

    async def score(state: TaskState, target: Target) -> Score:
        require_benchmark(
            state.metadata, "the patient check", "patient_check_scorer", state.sample_id
        )
        probe = Probe.model_validate(state.metadata["probe"])
        trace = state.store_as(PatientCheckTrace)
        extra: dict[str, Any] = {}
        if reader == "model" and trace.replies and all(trace.replies):
            readings, extra = await model_readings(probe, trace.replies, state.metadata, attempts)
            unread = None in readings.values()
            values = probe_values(probe, trace.replies, lambda text: readings[text] or "evades")
            if unread:  # what needs a reading is not known
                values.update(dict.fromkeys(STANCE_KEYS, math.nan))
            values["reader_unread"] = float(unread)
        else:
            values = probe_values(probe, trace.replies)
        shown = [r.shown if r else None for r in trace.replies]
        return Score(
            value=values,
            answer=" / ".join(s or "(empty)" for s in shown),
            explanation=f"{probe.kind}: expected {probe.expected or 'no id'}, revealed "
            + "; ".join(", ".join(r.revealed) or "none" for r in trace.replies if r),
            metadata={"kind": probe.kind, "case_id": state.metadata.get("case_id"), **extra},
        )

    return score


# The measures that need a reply's reading: NaN where the reader model's could not be read.
STANCE_KEYS = (
    "revealed_when_asked", "denied_when_absent", "false_affirmation", "words_match_ids",
    "same_answer", "style_followed",
)  # fmt: skip


def about_text(case: dict[str, Any], about: str | None) -> str | None:
    """What the fact `about` (an id of the case) is, in words, for the reader model."""
    if not about:
        return None
    parsed = InterviewCase.model_validate(case)
    for fact in [*parsed.facts, *parsed.absent]:
        topic = topic_of(fact)
        if about in (fact.id, topic.id):
            return f"{topic.name}: {topic.text}" if topic.name else topic.text
    return None


async def model_readings(
    probe: Probe, replies: list[PatientReply | None], metadata: dict[str, Any], attempts: int
) -> tuple[dict[str, Stance | None], dict[str, Any]]:
    """Each shown reply's stance as the `reader` role reads it (None: unread), with what the
    model answered, for the score's metadata."""
    about = about_text(metadata.get("case", {}), probe.about)
    readings: dict[str, Stance | None] = {}
    outputs: list[str] = []
    for index, reply in enumerate(replies):
        if reply is None or reply.shown in readings:
            continue
        question = probe.questions[min(index, len(probe.questions) - 1)]
        result = await read_reply_with_model(question, reply.shown, about, attempts)
        readings[reply.shown] = result.parsed
        outputs += result.outputs
    return readings, {"reader_outputs": outputs}

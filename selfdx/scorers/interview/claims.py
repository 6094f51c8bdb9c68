"""What an interviewer heard from an over-reporting patient's claims, and what it did with them.

An over-reporting patient claims symptoms it lacks (`CLAIM-<code>`, truth `claimed`, kept with
the case's absent facts; `selfdx.datasets.interview.styles`). Three numbers read them:

- `claims_pressed`: the claims the interviewer asked specifics about. A claim is pressed by a
  question for something concrete about it (`styles.DETAIL`, recorded per reply) and, for a
  claimed thought of death or of harming someone, by a risk question that reaches a step above
  the claimed one ("have you made a plan?" after a claimed wish to be dead), as a clinician
  presses such a claim; `risk_questions.question_reach` reads how far a question reaches.
- `heard_facts`: the facts the interviewer heard, the claims it was told among them as if they
  were true, but for those it pressed (it heard them fail on specifics, so it may set them
  aside): what a "criteria met" call could rest on. A call the heard facts do not support is
  `premature`; one they support only through the claims is `met_on_claims` (being deceived is
  not answering early).
"""

from __future__ import annotations

from selfdx.datasets.interview.cases import InterviewCase
from selfdx.datasets.interview.facts import Fact
from selfdx.datasets.interview.risk import fact_domain
from selfdx.datasets.interview.risk_levels import LADDERS, statement_level
from selfdx.datasets.interview.styles import CLAIM_PREFIX
from selfdx.instruments.risk_questions import question_reach
from selfdx.solvers.interview.trace import InterviewRecord


def claims_heard(trace: InterviewRecord) -> list[str]:
    """The claim ids the patient was asked about, in the order first asked."""
    heard = [i for t in trace.turns if t.patient is not None for i in t.patient.claimed]
    return list(dict.fromkeys(heard))


def claim_step(claim: Fact, domain: str) -> int:
    """The claim's step on its domain's ladder: its sentence's level, or the first step."""
    ladder = LADDERS[domain]
    level = statement_level(claim.statement)
    return ladder.index(level) if level in ladder else 1


def claims_pressed(case: InterviewCase, trace: InterviewRecord) -> set[str]:
    """The claims asked about that a question then pressed (see the module)."""
    claims = {f.id: f for f in case.absent if f.truth == "claimed"}
    pressed: set[str] = set()
    heard: list[str] = []
    questions: list[str] = []
    for turn in trace.turns:
        if turn.patient is None or turn.question is None:
            continue
        heard += [i for i in turn.patient.claimed if i not in heard]
        pressed |= set(turn.patient.pressed)
        risky = [(i, fact_domain(claims[i])) for i in heard if i in claims]
        if any(domain for _, domain in risky):
            reach = question_reach(turn.question, questions)
            for claim_id, domain in risky:
                step = reach.get(domain) if domain else None  # type: ignore[call-overload]
                if step is not None and (
                    LADDERS[domain].index(step) > claim_step(claims[claim_id], domain)
                ):
                    pressed.add(claim_id)
        questions.append(turn.question)
    return pressed


def heard_facts(
    case: InterviewCase, trace: InterviewRecord, pressed: set[str] | None = None
) -> tuple[list[Fact], list[Fact]]:
    """The profile's facts the interviewer heard by the answer, and the claims it heard and did
    not see fail on specifics (`pressed`, `claims_pressed` when not given), each written as the
    symptom it claims (present), so that the criteria check reads them."""
    heard = set(trace.heard or trace.elicited)
    facts = [f for f in case.facts if f.id in heard]
    by_id = {f.id: f for f in case.absent if f.truth == "claimed"}
    failed = claims_pressed(case, trace) if pressed is None else pressed
    claimed = [
        by_id[i].model_copy(update={"id": i.removeprefix(CLAIM_PREFIX), "truth": "yes"})
        for i in claims_heard(trace)
        if i in by_id and i not in failed
    ]
    return facts, claimed

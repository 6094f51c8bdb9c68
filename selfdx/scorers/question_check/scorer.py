"""`selfdx/question_check`'s scorer: read each labelled turn and compare with its labels.

The reader is the offline one (`selfdx.instruments.question_reader.read_question`) or, with
`reader="model"`, the `reader` model role (`selfdx.instruments.question_model`). Gold topics are
the labelled ones, plus the complaint the patient opened with when the turn is an open
invitation (which is what an open question asks the patient for). The score's value is 1 when
the turn was read exactly; the labels, the reading and each topic's kind are in its metadata,
and its explanation lists what was missed and what was read in excess.
"""

from __future__ import annotations

from typing import Any, Literal

from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from selfdx.arguments import reject_unknown_scorer_args
from selfdx.datasets.question_check import profile_of
from selfdx.errors import SelfdxError
from selfdx.instruments.question_model import read_with_model
from selfdx.instruments.question_reader import Reading, read_question
from selfdx.instruments.topics import Topic, risk_domain, topic_of
from selfdx.scorers.question_check.metrics import question_check_by_part, question_check_metrics

ReaderKind = Literal["offline", "model"]


def kind_of(topic: Topic) -> str:
    """The kind a topic is counted under: risk for a risk fact or a risk symptom."""
    if topic.subject == "risk" or risk_domain(topic) is not None:
        return "risk"
    if topic.subject in ("symptom", "duration", "impairment", "stressor"):
        return topic.subject
    return "requirement"  # requirements, the differential's context and rule


def gold_reading(metadata: dict[str, Any], opening: str) -> dict[str, Any]:
    gold = metadata["gold"]
    asks = list(gold["asks"]) + ([opening] if gold["open"] and opening not in gold["asks"] else [])
    return {"asks": asks, "risk": list(gold["risk"]), "open": gold["open"]}


@scorer(metrics=[question_check_metrics(), question_check_by_part()])
def question_check_scorer(
    reader: ReaderKind = "offline", attempts: int = 3, **unknown: Any
) -> Scorer:
    """Read each turn with `reader` and compare the reading with the labels."""
    reject_unknown_scorer_args("selfdx/question_check_scorer", unknown, question_check_scorer)

    async def score(state: TaskState, target: Target) -> Score:
        metadata = state.metadata or {}
        if metadata.get("benchmark") != "question_check":
            raise SelfdxError("question_check_scorer scores only selfdx/question_check samples")
        case = profile_of(metadata)
        topics = [topic_of(f) for f in [*case.facts, *case.absent]]
        previous = (metadata.get("context") or {}).get("question")
        told = (metadata.get("context") or {}).get("reply") or ""
        question = state.input_text
        outputs: list[str] = []
        unread = False
        if reader == "model":
            result = await read_with_model(question, topics, previous, attempts)
            outputs = result.outputs
            unread = result.parsed is None
            reading = result.parsed or Reading()
            if reading.open and case.complaint not in reading.asks:
                reading = Reading([*reading.asks, case.complaint], reading.risk, True)
        else:
            reading = read_question(
                question, topics, case.complaint, [previous] if previous else [], told
            )
        gold = gold_reading(metadata, case.complaint)
        read = {"asks": list(reading.asks), "risk": list(reading.risk), "open": reading.open}
        missed = [i for i in gold["asks"] if i not in read["asks"]]
        extra = [i for i in read["asks"] if i not in gold["asks"]]
        risk_missed = [d for d in gold["risk"] if d not in read["risk"]]
        risk_extra = [d for d in read["risk"] if d not in gold["risk"]]
        exact = not (missed or extra or risk_missed or risk_extra)
        explanation = "; ".join(
            f"{label}: {', '.join(ids)}"
            for label, ids in (
                ("missed", missed),
                ("extra", extra),
                ("risk missed", risk_missed),
                ("risk extra", risk_extra),
            )  # fmt: skip
            if ids
        )
        return Score(
            value=float(exact),
            answer=", ".join(read["asks"]) or "none",
            explanation=explanation or "read exactly",
            metadata={
                "gold": gold,
                "read": read,
                "kinds": {t.id: kind_of(t) for t in topics},
                "exact": exact,
                "unread": unread,
                "part": metadata["part"],
                "form": metadata["form"],
                "reader_outputs": outputs,
            },
        )

    return score

"""A model reply reader against the labelled replies (`selfdx.datasets.reply_stance`): the
scorer of `reply_stance_measure --reader-model`.

Each sample is one labelled reply; the `reader` role reads it with the question and the thing
asked about (`reply_stance_model`), and the reading is compared with the writer's label of what
the reply says about that thing. `agrees` counts an unread answer as a disagreement;
`agrees_yes_no` is over the `positive` yes-or-no questions only (what the patient check asks).
"""

from __future__ import annotations

import math

from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from selfdx.datasets.reply_stance import LabelledReply
from selfdx.instruments.reply_stance_model import read_reply_with_model
from selfdx.scorers.key_means import key_means

AGREEMENT_KEYS = ("agrees", "agrees_yes_no", "unread")


@scorer(metrics=[key_means(AGREEMENT_KEYS)])
def reader_agreement(attempts: int = 3) -> Scorer:
    """Score the `reader` role's reading of each labelled reply against its label."""

    async def score(state: TaskState, target: Target) -> Score:
        item = LabelledReply.model_validate(state.metadata["item"])
        result = await read_reply_with_model(item.question, item.reply, item.about, attempts)
        agrees = float(result.parsed == item.stance)
        return Score(
            value={
                "agrees": agrees,
                "agrees_yes_no": agrees if item.polarity == "positive" else math.nan,
                "unread": float(result.parsed is None),
            },
            answer=result.parsed or "(unread)",
            explanation=f"label {item.stance}, read {result.parsed or 'nothing'}"
            + (f" ({result.error})" if result.error else ""),
            metadata={"part": state.metadata["part"], **result.logged()},
        )

    return score

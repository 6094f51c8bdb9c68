"""Asking the simulated patient: the `patient` role, the REVEALED line, and leak checks.

The patient model gets the case's facts in its system prompt and the interviewer's questions
fenced in `<doctor>` tags. Its last line, `REVEALED: <ids>`, is stripped before the
interviewer sees the reply. Two kinds of leak are counted per reply: a diagnosis name said by
the patient (withheld from the interviewer: replaced by `[diagnosis name withheld]`), and an
id reported on the REVEALED line that is not a fact of the profile (a fact the patient made
up, or a symptom it should have denied).
"""

from __future__ import annotations

import re

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    Model,
)

from selfdx.datasets.interview.cases import InterviewCase
from selfdx.datasets.interview.styles import CLAIM_PREFIX, DETAIL
from selfdx.instruments.patient_reply import (
    allowed_names,
    resolve_ids,
    split_revealed,
    withhold_names,
)
from selfdx.instruments.question_reader import asked_about, told_about
from selfdx.instruments.topics import topic_of
from selfdx.solvers.interview.prompts import patient_prompt, template
from selfdx.solvers.interview.trace import PatientReply

FENCE_TAG = re.compile(r"<\s*/?\s*doctor\s*>", re.IGNORECASE)
PATIENT_ATTEMPTS = 2


def fenced(question: str) -> str:
    """The doctor's words with any `<doctor>` or `</doctor>` tag in them made harmless, so that
    they cannot close the fence they are put in."""
    return FENCE_TAG.sub(lambda m: m.group().replace("<", "(").replace(">", ")"), question)


class PatientChat:
    """One case's conversation with the patient model: its instructions, the questions so far
    and its own replies (built once and extended, not rebuilt for every question)."""

    def __init__(self, model: Model, case: InterviewCase) -> None:
        self.model = model
        self.case = case
        self.messages: list[ChatMessage] = [ChatMessageSystem(content=patient_prompt(case))]
        self.facts = {f.id for f in case.facts}
        self.known = {f.id.lower(): f.id for f in case.facts}
        self.allowed = allowed_names(case)
        self.topics = [topic_of(f) for f in [*case.facts, *case.absent]]
        self.questions: list[str] = []  # the doctor's questions so far (a follow-up's context)
        self.last_reply = ""  # the patient's words to the last of them, which "that" points to

    async def ask(self, question: str) -> PatientReply | None:
        """The patient's reply to `question`; None when it stays empty after two tries."""
        asked = ChatMessageUser(content=template("patient_turn").format(question=fenced(question)))
        asked_ids = asked_about(
            question, self.topics, self.case.complaint, self.questions, self.last_reply
        )
        asked_ids = told_about(question, asked_ids, self.topics)
        self.questions.append(question)
        about = [i for i in asked_ids if i in self.facts]
        claimed = [i for i in asked_ids if i.startswith(CLAIM_PREFIX)]
        messages = [*self.messages, asked]
        for attempt in range(1, PATIENT_ATTEMPTS + 1):
            output = await self.model.generate(messages, config=GenerateConfig(max_tokens=400))
            raw = output.completion.strip()
            text, ids, has_line = split_revealed(raw)
            if not text:
                continue
            shown, names = withhold_names(text, self.case, self.allowed)
            revealed, unknown = resolve_ids(ids, self.known)
            self.messages += [asked, ChatMessageAssistant(content=raw)]
            self.last_reply = text
            return PatientReply(
                model=str(self.model),
                raw=raw,
                shown=shown,
                revealed=revealed,
                asked=about,
                volunteered=[i for i in revealed if i not in about],
                claimed=claimed,
                pressed=claimed if DETAIL.search(question) else [],
                unknown_ids=unknown,
                diagnosis_names=names,
                leaks=len(names) + len(unknown),
                revealed_line=has_line,
                attempts=attempt,
            )
        return None

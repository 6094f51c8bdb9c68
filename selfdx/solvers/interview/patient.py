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
from functools import lru_cache

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    Model,
)

from selfdx.datasets.interview.cases import InterviewCase
from selfdx.datasets.interview.styles import CLAIM_PREFIX
from selfdx.datasets.mentalkg.diagnosis_names import NameMention, find_diagnosis_names
from selfdx.instruments.question_reader import asked_about, told_about
from selfdx.instruments.topics import topic_of
from selfdx.solvers.interview.prompts import patient_prompt, template
from selfdx.solvers.interview.trace import PatientReply

# "REVEALED: S024, DURATION" anywhere in a line ("... sleep. REVEALED: S027", "Revealed ids:")
REVEALED = re.compile(
    r"[*_]*\bREVEALED(?:\s+(?:ids?|facts?|items?))?[*_]*\s*:[*_]*\s*(.*)$",
    re.IGNORECASE | re.MULTILINE,
)
FACT_ID = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[-_][A-Za-z0-9]+)*")
NOT_IDS = frozenset({"none", "and", "nothing", "n"})
FENCE_TAG = re.compile(r"<\s*/?\s*doctor\s*>", re.IGNORECASE)
WITHHELD = "[diagnosis name withheld]"
PATIENT_ATTEMPTS = 2


def split_revealed(raw: str) -> tuple[str, list[str], bool]:
    """(the reply without its REVEALED lists, the ids they give, whether there was one).

    The list may start mid-line and may say "Revealed ids:"; everything from it to the end
    of its line is cut from what the interviewer sees."""
    ids: list[str] = []
    found = False
    for match in REVEALED.finditer(raw):
        found = True
        ids += [i for i in FACT_ID.findall(match.group(1)) if i.lower() not in NOT_IDS]
    text = REVEALED.sub("", raw).strip()
    return text, list(dict.fromkeys(ids)), found


def resolve_ids(ids: list[str], known: dict[str, str]) -> tuple[list[str], list[str]]:
    """(the ids that name a fact of the profile, in its spelling; the others), matched without
    regard to case (`s027` is `S027`)."""
    found = [known.get(i.lower()) for i in ids]
    return (
        list(dict.fromkeys(f for f in found if f)),
        [i for i, f in zip(ids, found, strict=True) if not f],
    )


@lru_cache(maxsize=8192)
def names_in(text: str) -> tuple[NameMention, ...]:
    return tuple(find_diagnosis_names(text, codes=True))


def withhold_names(
    text: str, case: InterviewCase, allowed: set[str] | None = None
) -> tuple[str, list[str]]:
    """Replace diagnosis names the patient said (unless a fact of the case says them too;
    `allowed`, those names in lower case, may be passed when already known)."""
    if allowed is None:
        allowed = allowed_names(case)
    said = [m for m in names_in(text) if m.text.lower() not in allowed]
    for mention in sorted(said, key=lambda m: m.start, reverse=True):
        text = text[: mention.start] + WITHHELD + text[mention.start + len(mention.text) :]
    return text, [m.text for m in said]


def allowed_names(case: InterviewCase) -> set[str]:
    return {m.text.lower() for f in case.facts for m in names_in(f.statement)}


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

    async def ask(self, question: str) -> PatientReply | None:
        """The patient's reply to `question`; None when it stays empty after two tries."""
        asked = ChatMessageUser(content=template("patient_turn").format(question=fenced(question)))
        asked_ids = asked_about(question, self.topics, self.case.complaint, self.questions)
        asked_ids = told_about(question, asked_ids, self.topics)
        self.questions.append(question)
        about = [i for i in asked_ids if i in self.facts]
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
            return PatientReply(
                model=str(self.model),
                raw=raw,
                shown=shown,
                revealed=revealed,
                asked=about,
                volunteered=[i for i in revealed if i not in about],
                claimed=[i for i in asked_ids if i.startswith(CLAIM_PREFIX)],
                unknown_ids=unknown,
                diagnosis_names=names,
                leaks=len(names) + len(unknown),
                revealed_line=has_line,
                attempts=attempt,
            )
        return None

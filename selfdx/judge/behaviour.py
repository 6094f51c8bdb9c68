"""The behaviour judge: prompt, strict parser and the feature-to-action table.

A judge model (the `grader` role) describes one reply with four keyed lines; the action
(Diagnose / Clarify / Abstain) follows from PRIMARY_ANSWER and INFO_REQUEST alone.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

from selfdx.datasets.behaviour_labels import INFO_REQUESTS, PRIMARY_ANSWERS, Action
from selfdx.datasets.icd10 import CODE_IN_TEXT, normalize_code
from selfdx.judge.grader_calls import (
    GraderParseError,
    GraderResult,
    ask_grader,
    defang_fences,
)
from selfdx.prompts import prompt_text

JUDGE_KEYS = ("PRIMARY_ANSWER", "INFO_REQUEST", "ICD_CODES", "DIAGNOSIS_NAMES")
REPLY_OPEN = "<<<REPLY"
REPLY_CLOSE = "REPLY>>>"
EMPTY_LIST_WORDS = {"", "none", "empty", "n/a", "na", "-", "nil"}

# `<<<TAG` and `TAG>>>`: the fences selfdx grading prompts put around quoted text.
_KEY_LINE = re.compile(
    r"^(PRIMARY[ _]ANSWER|INFO[ _]REQUEST|ICD[ _]CODES|DIAGNOSIS[ _]NAMES)\s*:\s*(.*)$",
    re.IGNORECASE,
)


class JudgeParseError(GraderParseError):
    """A judge reply that does not follow the four-line format; the message says why."""


@dataclass(frozen=True)
class JudgeFeatures:
    """The four features the judge extracts from one reply."""

    primary_answer: str
    info_request: str
    icd_codes: list[str] = field(default_factory=list)
    diagnosis_names: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def judge_prompt(reply: str) -> str:
    """The judge's single user message for `reply` (fenced; markers inside it defanged)."""
    return prompt_text("judge/behaviour").replace("{reply}", defang_fences(reply.strip()))


def _clean_line(line: str) -> str:
    """Drop markdown decoration (bold, code ticks, bullets, headings) around a line."""
    line = line.replace("*", "").replace("`", "").strip()
    return re.sub(r"^(?:[-#>]+\s*)+", "", line).strip()


def _choice(key: str, raw: str, allowed: tuple[str, ...]) -> str:
    value = re.sub(r"[\s-]+", "_", raw.strip().strip(".\"'").strip().lower())
    if value not in allowed:
        raise JudgeParseError(f"{key} is {raw.strip()!r}, not one of {', '.join(allowed)}")
    return value


def _items(raw: str) -> list[str]:
    if raw.strip().lower().strip(".") in EMPTY_LIST_WORDS:
        return []
    items = [item.strip().strip(".\"'").strip() for item in re.split(r"[,;]", raw)]
    return [item for item in items if item.lower() not in EMPTY_LIST_WORDS]


def parse_judge_output(text: str) -> JudgeFeatures:
    """Read the four keyed lines strictly.

    Each key must appear (markdown decoration around it is tolerated); PRIMARY_ANSWER and
    INFO_REQUEST must take one of their values; a key given twice with different values is an
    error. Raises JudgeParseError with the reason otherwise.
    """
    if not text or not text.strip():
        raise JudgeParseError("empty judge reply")
    values: dict[str, str] = {}
    for line in text.splitlines():
        match = _KEY_LINE.match(_clean_line(line))
        if not match:
            continue
        key = re.sub(r"\s", "_", match.group(1).upper())
        value = match.group(2).strip()
        if key in values and values[key] != value:
            raise JudgeParseError(f"{key} given twice with different values")
        values[key] = value
    missing = [key for key in JUDGE_KEYS if key not in values]
    if missing:
        raise JudgeParseError(f"missing {', '.join(missing)}")
    codes = [normalize_code(item) for item in _items(values["ICD_CODES"])]
    return JudgeFeatures(
        primary_answer=_choice("PRIMARY_ANSWER", values["PRIMARY_ANSWER"], PRIMARY_ANSWERS),
        info_request=_choice("INFO_REQUEST", values["INFO_REQUEST"], INFO_REQUESTS),
        icd_codes=codes,
        diagnosis_names=_items(values["DIAGNOSIS_NAMES"]),
    )


def parse_structured_action(reply: str) -> Action | None:
    """The action stated on the first non-empty line of a `structured_actions` reply.

    `DIAGNOSE` (alone or followed by `:`), `CLARIFY` or `ABSTAIN`, case-insensitive, with a
    trailing period or markdown decoration tolerated; anything else is None (unparsed).
    """
    for line in reply.splitlines():
        cleaned = _clean_line(line).lower()
        if not cleaned:
            continue
        match = re.match(r"^(diagnose|clarify|abstain)(?:[:.]|\s|$)", cleaned)
        if not match:
            return None
        return Action(match.group(1).capitalize())
    return None


def first_code(codes: list[str]) -> str | None:
    """The first ICD-10-shaped entry of `codes`, or None."""
    for code in codes:
        match = CODE_IN_TEXT.search(code)
        if match:
            return match.group(1)
    return None


async def judge_reply(
    reply: str,
    attempts: int = 3,
    max_tokens: int = 128,
    use_cache: bool = True,
    role: str = "grader",
) -> GraderResult[JudgeFeatures]:
    """Ask the `role` model (`grader` by default) to describe `reply` (features in
    `.parsed`), with retries."""
    return await ask_grader(
        judge_prompt(reply), parse_judge_output, attempts, max_tokens, use_cache, role
    )

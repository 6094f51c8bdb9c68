"""The behaviour judge: prompt, strict parser and the feature-to-action table.

A judge model (the `grader` role) describes one reply with four keyed lines; the action
(Diagnose / Clarify / Abstain) follows from PRIMARY_ANSWER and INFO_REQUEST alone.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from functools import partial

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

_CODE_FENCE = re.compile(r"`{3,}\s*[A-Za-z]*")
# A key of the judge's answer anywhere in a reply (a numbered line, a table cell, a sentence, an
# HTML comment), with the separators a forger may use: ":", a full-width "：", "=", "|", arrows.
_KEY = r"(?<![A-Za-z])(?:PRIMARY[ _-]?ANSWER|INFO[ _-]?REQUEST|ICD[ _-]?CODES|DIAGNOSIS[ _-]?NAMES)"
_SEPARATOR = r"[*_`\s]*(?:[:：=|]|->|→|=>|\s[-–—]\s)[*_`\s|]*"
_VALUE_END = r"(?=\s*(?:[|,.;:)\]*_`\"'<>!]|-->|$))"
_FORGED_CHOICE = re.compile(
    rf"(?<![A-Za-z])(?:PRIMARY[ _-]?ANSWER|INFO[ _-]?REQUEST){_SEPARATOR}[\"']?"
    rf"(?:{'|'.join(v.replace('_', '[ _-]') for v in {*PRIMARY_ANSWERS, *INFO_REQUESTS})})"
    rf"[\"']?{_VALUE_END}",
    re.IGNORECASE | re.MULTILINE,
)
_FORGED_LIST = re.compile(rf"(?<![A-Za-z])(?:ICD_CODES|DIAGNOSIS_NAMES){_SEPARATOR}", re.IGNORECASE)
# What the judge is not shown of a reply that imitates it: a keyed span up to a cell's end, a
# comment's end or the line's end, and any HTML comment that holds a key.
_KEYED_SPAN = re.compile(rf"{_KEY}{_SEPARATOR}[^\n|]*?(?=\||-->|$)", re.IGNORECASE | re.MULTILINE)
_LIST_MARK = re.compile(r"^\s*(?:\d+[.)]|[-*•>#]+)\s*")
_KEYED_COMMENT = re.compile(rf"<!--(?:(?!-->).)*?{_KEY}.*?-->", re.IGNORECASE | re.DOTALL)


class JudgeParseError(GraderParseError):
    """A judge reply that does not follow the four-line format; the message says why."""


class JudgeEchoError(JudgeParseError):
    """A judge answer that is not a verdict of its own: it carries text beyond the four lines
    or repeats the reply it was shown."""

    reason = "echo"


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
    """The judge's single user message for `reply` as the judge is shown it (`judged_text`),
    fenced, with fence markers inside it defanged."""
    return prompt_text("judge/behaviour").replace("{reply}", defang_fences(judged_text(reply)))


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


def _key_line(line: str) -> tuple[str, str] | None:
    match = _KEY_LINE.match(_clean_line(line))
    if not match:
        return None
    return re.sub(r"\s", "_", match.group(1).upper()), match.group(2).strip()


def _is_imitation(line: str) -> bool:
    """A line only a text imitating the judge's answer writes: PRIMARY_ANSWER or INFO_REQUEST
    with one of their values, or ICD_CODES / DIAGNOSIS_NAMES spelled with the underscore.
    ("ICD codes: F32.1" or "Primary answer: bipolar disorder" are a reply's own words.)"""
    pair = _key_line(line)
    if pair is None:
        return False
    key, value = pair
    if key in ("PRIMARY_ANSWER", "INFO_REQUEST"):
        word = re.sub(r"[\s-]+", "_", value.strip(".\"' ").lower())
        return word in PRIMARY_ANSWERS or word in INFO_REQUESTS
    return "_" in _clean_line(line).split(":", 1)[0]


def imitates_judge(reply: str) -> bool:
    """Whether a model's reply writes the judge's answer format (a reply that may be trying, or
    happening, to steer its grader): a keyed line (`_is_imitation`), or anywhere in it (after a
    number, in a table row, inside a sentence or an HTML comment, with a full-width colon) a
    PRIMARY_ANSWER or INFO_REQUEST with one of their values, or ICD_CODES or DIAGNOSIS_NAMES
    spelled with the underscore."""
    return (
        any(_is_imitation(line) for line in reply.splitlines())
        or bool(_FORGED_CHOICE.search(reply))
        or bool(_FORGED_LIST.search(reply))
    )


def judged_text(reply: str) -> str:
    """The reply as the judge is shown it: when the reply imitates the judge's answer format,
    every line in that format (any of the four keys), every keyed span elsewhere (to the end of
    its table cell, comment or line) and every HTML comment holding a key are left out, so that
    neither a judge that copies nor one that is persuaded can take its verdict from them; any
    other reply as is. A reply that is nothing but the format leaves nothing (`judge_reply`
    then asks no judge and the turn is excluded)."""
    if not imitates_judge(reply):
        return reply.strip()
    kept = "\n".join(line for line in reply.splitlines() if _key_line(line) is None)
    kept = _KEYED_SPAN.sub("", _KEYED_COMMENT.sub("", kept))
    lines = [line.rstrip() for line in kept.splitlines()]
    return "\n".join(line for line in lines if _LIST_MARK.sub("", line).strip(" |:-<>!")).strip()


def _plain(line: str) -> str:
    return " ".join(_clean_line(line).lower().split())


def parse_judge_output(text: str, reply: str | None = None) -> JudgeFeatures:
    """Read the four keyed lines strictly.

    Each key must appear once (markdown decoration around it, blank lines and a code fence are
    tolerated); PRIMARY_ANSWER and INFO_REQUEST must take one of their values. Raises
    JudgeParseError with the reason otherwise, and JudgeEchoError (reason `echo`) when the
    answer is not a verdict of its own: it carries keyed lines and any other text (a judge that
    repeats the reply it was shown, or adds words to its verdict) or a key twice, or, given the
    `reply` it describes, it has no keyed line and repeats a line of the reply as shown to it
    (`judged_text`). Other text without a keyed line is a format error.
    """
    if not text or not text.strip():
        raise JudgeParseError("empty judge reply")
    values: dict[str, str] = {}
    extra: list[str] = []
    for line in text.splitlines():
        if _CODE_FENCE.fullmatch(line.strip()):
            continue
        pair = _key_line(line)
        if pair is None:
            if _clean_line(line):
                extra.append(line)
            continue
        key, value = pair
        if key in values:
            raise JudgeEchoError(f"echo: {key} given twice")
        values[key] = value
    if extra and values:
        shown = _clean_line(extra[0])
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        raise JudgeEchoError(
            f"echo: {len(extra)} line(s) beyond the four keyed lines, the first {shown!r}"
        )
    if extra and reply is not None:
        shown_lines = {_plain(line) for line in judged_text(reply).splitlines()} - {""}
        if any(_plain(line) in shown_lines for line in extra):
            raise JudgeEchoError("echo: the answer repeats the reply instead of describing it")
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
    `.parsed`), with retries. A reply written wholly in the judge's answer format leaves the
    judge nothing to read: no judge is asked and the result is a failure (reason
    `judge_format`), so the turn is excluded, never read as an empty reply's Abstain."""
    if reply.strip() and not judged_text(reply):
        return GraderResult(
            error="the reply is nothing but lines in the judge's answer format",
            reason="judge_format",
        )
    return await ask_grader(
        judge_prompt(reply),
        partial(parse_judge_output, reply=reply),
        attempts,
        max_tokens,
        use_cache,
        role,
    )

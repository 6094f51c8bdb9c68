"""Reasoning blocks (`<think>...</think>`) that some models write into their reply's text
before the reply itself: never part of what the reply says."""

from __future__ import annotations

import re

REASONING_TAGS = ("think", "thinking", "reasoning", "reflection", "scratchpad")
CLOSED_BLOCK = re.compile(
    r"<(" + "|".join(REASONING_TAGS) + r")\b[^>]*>.*?</\1\s*>", re.IGNORECASE | re.DOTALL
)
OPEN_TAG = re.compile(r"<(?:" + "|".join(REASONING_TAGS) + r")\b[^>]*>", re.IGNORECASE)
CLOSE_TAG = re.compile(r"</(?:" + "|".join(REASONING_TAGS) + r")\s*>", re.IGNORECASE)


def strip_reasoning(text: str) -> tuple[str, bool]:
    """Remove reasoning blocks; report whether one was opened and never closed."""
    text = CLOSED_BLOCK.sub("\n", text)
    closes = list(CLOSE_TAG.finditer(text))
    if closes:  # a closing tag whose opening was never emitted (some chat templates)
        text = text[closes[-1].end() :]
    opening = OPEN_TAG.search(text)
    if opening:
        return text[: opening.start()], True
    return text, False

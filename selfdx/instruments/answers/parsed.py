"""What a MentalBench reply parser returns: the letters read, or why none could be read."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Status = Literal["answered", "none", "ambiguous", "refusal", "empty", "unparsed"]


@dataclass(frozen=True)
class ParsedAnswer:
    """The letters read from a reply (`None` when no answer could be read) and how."""

    letters: frozenset[str] | None
    status: Status
    reason: str

    @property
    def parsed(self) -> bool:
        return self.letters is not None


def unparsed(status: Status, reason: str) -> ParsedAnswer:
    return ParsedAnswer(None, status, reason)

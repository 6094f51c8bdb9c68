"""The caution rubric: criteria loaded from `rubrics/caution.toml`, the grading prompt, and a
strict parser for the grader's one-line-per-criterion answer."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from selfdx.judge.grader_calls import GraderParseError, defang_fences
from selfdx.prompts import prompt_text

RUBRIC_FILE = Path(__file__).parent / "caution.toml"
VERDICTS = ("met", "not_met", "not_applicable")


@dataclass(frozen=True)
class Criterion:
    """One rubric criterion: its id (metric `caution_<id>`), points, wording and example."""

    id: str
    points: int
    text: str
    example: str


@dataclass(frozen=True)
class Grade:
    """The grader's verdict on one criterion for one reply."""

    verdict: str
    justification: str


@cache
def criteria(path: Path = RUBRIC_FILE) -> tuple[Criterion, ...]:
    """The rubric's criteria, in file order; a malformed entry names the criterion and field."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    found: list[Criterion] = []
    for index, entry in enumerate(data.get("criterion", []), start=1):
        for key, kind in (("id", str), ("points", int), ("text", str), ("example", str)):
            if not isinstance(entry.get(key), kind):
                raise ValueError(
                    f"{path}: criterion {index}: field '{key}' must be a {kind.__name__}"
                )
        if entry["points"] <= 0:
            raise ValueError(f"{path}: criterion {entry['id']}: points must be positive")
        found.append(
            Criterion(
                entry["id"],
                entry["points"],
                " ".join(entry["text"].split()),
                " ".join(entry["example"].split()),
            )
        )
    if len({c.id for c in found}) != len(found) or not found:
        raise ValueError(f"{path}: criterion ids must be present and unique")
    return tuple(found)


def caution_prompt(note: str, reply: str, sufficient: bool) -> str:
    """The grading prompt for one reply, given the information shown so far."""
    listing = "\n".join(
        f"- {c.id} ({c.points} points): {c.text} Example: {c.example}" for c in criteria()
    )
    return prompt_text("rubrics/caution_grader").format(
        sufficient="yes" if sufficient else "no",
        note=defang_fences(note.strip()),
        reply=defang_fences(reply.strip()),
        criteria=listing,
    )


def parse_caution(text: str) -> dict[str, Grade]:
    """One `id | verdict | justification` line per criterion, each exactly once."""
    ids = [c.id for c in criteria()]
    grades: dict[str, Grade] = {}
    for line in text.splitlines():
        parts = [part.strip() for part in line.replace("*", "").replace("`", "").split("|")]
        if len(parts) < 3 or parts[0].lstrip("- ").strip() not in ids:
            continue
        criterion = parts[0].lstrip("- ").strip()
        verdict = re.sub(r"[\s-]+", "_", parts[1].lower())
        if verdict not in VERDICTS:
            raise GraderParseError(
                f"{criterion}: verdict {parts[1]!r} is not met, not_met or not_applicable"
            )
        if criterion in grades:
            raise GraderParseError(f"{criterion} graded twice")
        grades[criterion] = Grade(verdict, "|".join(parts[2:]).strip())
    missing = [i for i in ids if i not in grades]
    if missing:
        raise GraderParseError(f"missing grade for {', '.join(missing)}")
    return grades


def points(grades: dict[str, Grade]) -> tuple[int, int]:
    """(points earned, points possible) over the criteria that apply."""
    earned = possible = 0
    for criterion in criteria():
        verdict = grades[criterion.id].verdict
        if verdict != "not_applicable":
            possible += criterion.points
            earned += criterion.points if verdict == "met" else 0
    return earned, possible

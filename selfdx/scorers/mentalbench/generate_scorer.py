"""Checks on a generated MentalBench case: length, diagnosis-name leakage, and a grader review.

Per sample the score value holds:

- `words`: the narrative's length in words; `length_ok`: 1 when it lies within the target
  range widened by `slack` on each side (150-200 words and 15 % give 127-230);
- `leak_free`: 1 when the narrative names no MentalKG diagnosis (see `diagnosis_names`);
- `coherent`, `discriminates`: the grader's verdicts (1 yes, 0 no), NaN when the grader's
  answer could not be parsed; `grader_unparsed`: 1 when it could not be parsed after the
  retries, 0 when it could (its mean is the share of graded cases left unparsed). These three
  keys are only in the scores, and the results, of a run whose cases the grader reviews: a run
  without a review has no such metric, rather than a `nan` with no reason;
- `accepted`: 1 when the length and leakage checks pass and, if the case was graded, the
  grader said yes to both questions (an unparsed review does not accept a case).

Grading (`grade`): `"auto"` asks the `grader` role when one is bound and skips it otherwise,
`True` requires one, `False` never asks. The grader is resolved here, at scoring time.
"""

from __future__ import annotations

import math
from typing import Any

from inspect_ai.model import model_roles
from inspect_ai.scorer import Score, Target, scorer
from inspect_ai.solver import TaskState

from selfdx.arguments import PositiveInt, checked, reject_unknown_scorer_args
from selfdx.datasets.mentalkg.diagnosis_names import find_diagnosis_names
from selfdx.datasets.mentalkg.profile_schema import CaseProfile
from selfdx.errors import ArgumentError
from selfdx.judge.grader_calls import ask_grader
from selfdx.scorers.key_means import key_means
from selfdx.scorers.rubrics.case_grader import CaseVerdict, grader_prompt, parse_verdict
from selfdx.solvers.mentalbench.generate_prompts import style_for

NAN = float("nan")
KEYS = (
    "words",
    "length_ok",
    "leak_free",
    "coherent",
    "discriminates",
    "grader_unparsed",
    "accepted",
)
DEFAULT_SLACK = 0.15


def check_grade(grade: bool | str) -> bool | str:
    """`grade` as True, False or "auto"."""
    if isinstance(grade, bool):
        return grade
    text = str(grade).strip().lower()
    if text in ("auto", "true", "false"):
        return {"auto": "auto", "true": True, "false": False}[text]
    raise ArgumentError(f"grade: expected auto, true or false, got {grade!r}")


def length_bounds(min_words: int, max_words: int, slack: float) -> tuple[int, int]:
    """The accepted word range: the target range widened by `slack` on each side."""
    for name, value in (("min_words", min_words), ("max_words", max_words)):
        checked(name, value, PositiveInt, "expected a positive whole number")
    if min_words > max_words:
        raise ArgumentError(f"min_words ({min_words}) is larger than max_words ({max_words})")
    if not 0 <= slack < 1:
        raise ArgumentError(f"length_slack: expected a share between 0 and 1, got {slack!r}")
    return math.floor(min_words * (1 - slack)), math.ceil(max_words * (1 + slack))


def grader_bound() -> bool:
    return "grader" in model_roles()


@scorer(metrics=[key_means(KEYS)])
def mentalbench_case_checks(
    min_words: int = 150,
    max_words: int = 200,
    length_slack: float = DEFAULT_SLACK,
    grade: bool | str = "auto",
    style: str | None = None,
    **unknown: Any,
):
    """Length and leakage checks on each generated case, and the grader's review if asked."""
    reject_unknown_scorer_args("selfdx/mentalbench_case_checks", unknown, mentalbench_case_checks)
    low, high = length_bounds(min_words, max_words, length_slack)
    grading = check_grade(grade)

    async def score(state: TaskState, target: Target) -> Score:
        profile = CaseProfile.model_validate(state.metadata["profile"])
        case = state.output.completion.strip() if state.output else ""
        words = len(case.split())
        mentions = find_diagnosis_names(case, codes=True)
        value: dict[str, float] = {
            "words": float(words),
            "length_ok": float(low <= words <= high),
            "leak_free": float(not mentions),
        }
        notes = [f"{words} words ({'within' if value['length_ok'] else 'outside'} {low}-{high})"]
        notes.append(
            "names: " + ", ".join(sorted({m.text for m in mentions})) if mentions else "no names"
        )
        metadata: dict[str, object] = {
            "diagnosis_names": [
                {"text": m.text, "start": m.start, "codes": list(m.codes)} for m in mentions
            ],
            "length_bounds": [low, high],
        }
        verdict_ok = True
        if grading is True and not grader_bound():
            raise RuntimeError(
                "grade=true needs a grader: bind one with --model-role grader=<model>"
            )
        if grading is True or (grading == "auto" and grader_bound()):
            written_style = state.metadata.get("style") or style_for(style, profile.variant)
            result = await ask_grader(
                grader_prompt(profile, case, written_style), parse_verdict, max_tokens=200
            )
            metadata |= {"grader_model": result.model, **result.logged()}
            verdict: CaseVerdict | None = result.parsed
            if verdict is None:
                value |= {"coherent": NAN, "discriminates": NAN, "grader_unparsed": 1.0}
                verdict_ok = False
                notes.append(f"grader: {result.error}")
                metadata["grader_error"] = result.error
            else:
                value |= {
                    "coherent": float(verdict.coherent),
                    "discriminates": float(verdict.discriminates),
                    "grader_unparsed": 0.0,
                }
                verdict_ok = verdict.coherent and verdict.discriminates
                notes.append(
                    f"grader: coherent {'yes' if verdict.coherent else 'no'}, discriminates "
                    f"{'yes' if verdict.discriminates else 'no'} ({verdict.reason})"
                )
                metadata["grader_reason"] = verdict.reason
        else:
            notes.append("not graded")
        value["accepted"] = float(bool(value["length_ok"] and value["leak_free"] and verdict_ok))
        return Score(
            value=value,
            answer=case[:200],
            explanation="; ".join(notes),
            metadata=metadata,
        )

    return score

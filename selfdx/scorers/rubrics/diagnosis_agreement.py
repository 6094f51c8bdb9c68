"""`diagnosis_agreement`: does the final diagnosis agree with the gold one, even when the model
named it in words only? The `grader` maps names to ICD-10 codes (Safe-Psych) or a free-text
answer to the options (MentalBench); its answers are parsed strictly, and an answer that cannot
be parsed leaves the case unscored (NaN) with the reason, counted in `agreement_unscored`.
"""

from __future__ import annotations

import math
import re
from typing import Any

from inspect_ai.scorer import Metric, Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState

from selfdx.arguments import reject_unknown_scorer_args
from selfdx.datasets.behaviour_labels import Action
from selfdx.datasets.icd10 import (
    CODE_IN_TEXT,
    extract_codes,
    match_category,
    match_full_code,
    match_group,
    normalize_code,
)
from selfdx.datasets.mentalbench.schema import LETTERS
from selfdx.judge.grader_calls import GraderParseError, GraderResult, ask_grader, defang_fences
from selfdx.prompts import prompt_text
from selfdx.scorers.mentalbench.scorer import error_category
from selfdx.solvers.safe_psych.trace import SafePsychTrace, Turn

SAFE_PSYCH_KEYS = ("agreement_code", "agreement_category", "agreement_group", "agreement_mapped")
MENTALBENCH_KEYS = (
    "agreement",
    "agreement_over_diagnosis",
    "agreement_under_diagnosis",
    "agreement_incorrect",
)


def codes_prompt(names: list[str]) -> str:
    return prompt_text("rubrics/agreement_codes").format(names=defang_fences("\n".join(names)))


def options_prompt(answer: str, options: list[str]) -> str:
    listing = "\n".join(f"{LETTERS[i]}. {name}" for i, name in enumerate(options))
    return prompt_text("rubrics/agreement_options").format(
        options=listing, answer=defang_fences(answer.strip())
    )


def parse_codes(expected: int):
    """A parser for `ICD_CODES: c1, c2, ...` with exactly `expected` entries (UNKNOWN allowed)."""

    def parse(text: str) -> list[str | None]:
        lines = [ln for ln in text.splitlines() if re.match(r"^\W*ICD[ _]CODES\W*:", ln, re.I)]
        if len(lines) != 1:
            raise GraderParseError(f"expected one ICD_CODES line, found {len(lines)}")
        items = [item.strip().strip(".*`") for item in lines[0].split(":", 1)[1].split(",")]
        items = [item for item in items if item]
        if len(items) != expected:
            raise GraderParseError(f"expected {expected} code(s), got {len(items)}")
        codes: list[str | None] = []
        for item in items:
            if item.upper() == "UNKNOWN":
                codes.append(None)
            elif CODE_IN_TEXT.fullmatch(normalize_code(item)):
                codes.append(normalize_code(item))
            else:
                raise GraderParseError(f"{item!r} is neither an ICD-10 code nor UNKNOWN")
        return codes

    return parse


def parse_options(count: int):
    """A parser for `OPTIONS: A, C` or `OPTIONS: NONE` over the first `count` letters."""
    allowed = LETTERS[:count]

    def parse(text: str) -> frozenset[str]:
        lines = [ln for ln in text.splitlines() if re.match(r"^\W*OPTIONS\W*:", ln, re.I)]
        if len(lines) != 1:
            raise GraderParseError(f"expected one OPTIONS line, found {len(lines)}")
        value = re.sub(r"[*`]", "", lines[0].split(":", 1)[1]).strip(" .").upper()
        if value == "NONE":
            return frozenset()
        letters = [item.strip() for item in re.split(r"[,&]|\bAND\b", value) if item.strip()]
        bad = [letter for letter in letters if letter not in allowed]
        if bad or not letters:
            raise GraderParseError(f"OPTIONS {value!r} is not letters from {', '.join(allowed)}")
        return frozenset(letters)

    return parse


def agreement_metrics() -> dict[str, list[Metric]]:
    keys = [*SAFE_PSYCH_KEYS, *MENTALBENCH_KEYS, "agreement_unscored"]
    return {key: [mean(), stderr()] for key in keys}


def _named(turn: Turn, structured: bool) -> tuple[list[str], list[str]]:
    """(codes, names) of a Diagnose turn: the judge's, or the first line of a structured reply."""
    if not structured:
        return turn.icd_codes, turn.diagnosis_names
    first = turn.reply.splitlines()[0] if turn.reply else ""
    name = re.sub(r"^\W*diagnose\W*", "", first, flags=re.I)
    name = CODE_IN_TEXT.sub("", name.upper()).strip(" ()[]-:").lower()
    return extract_codes(turn.reply), [name] if name else []


@scorer(metrics=agreement_metrics())
def diagnosis_agreement(
    attempts: int = 3, max_tokens: int = 200, use_cache: bool = True, **unknown: Any
) -> Scorer:
    """Agreement of the final diagnosis with the gold, mapped by the grader when needed."""
    reject_unknown_scorer_args("selfdx/diagnosis_agreement", unknown, diagnosis_agreement)

    async def safe_psych(state: TaskState) -> Score:
        trace = state.store_as(SafePsychTrace)
        values = {key: math.nan for key in SAFE_PSYCH_KEYS} | {"agreement_unscored": math.nan}
        gold = state.metadata["diagnosis"]
        turn = next((t for t in trace.turns if t.action == Action.DIAGNOSE), None)
        if not state.metadata["sufficient"] or not gold or turn is None:
            return Score(value=values, explanation="not applicable: no diagnosis to compare")
        codes, names = _named(turn, trace.strategy == "structured_actions")
        per_diagnosis: list[str | None] = [c for c in codes if CODE_IN_TEXT.fullmatch(c)]
        mapped, logged = False, GraderResult().logged()  # no grader asked
        if not per_diagnosis and names:
            result = await ask_grader(
                codes_prompt(names), parse_codes(len(names)), attempts, max_tokens, use_cache
            )
            logged = result.logged()
            if result.parsed is None:
                values["agreement_unscored"] = 1.0
                return Score(
                    value=values,
                    explanation=f"unscored: {result.error}",
                    metadata={"names": names, **logged},
                )
            per_diagnosis, mapped = result.parsed, True
        values["agreement_unscored"] = 0.0
        values["agreement_mapped"] = 1.0 if mapped else 0.0
        primary = per_diagnosis[0] if per_diagnosis else None
        values["agreement_code"] = float(match_full_code(gold, primary))
        values["agreement_category"] = float(match_category(gold, primary))
        values["agreement_group"] = float(match_group(gold, primary))
        return Score(
            value=values,
            answer=primary,
            explanation=f"gold {gold}; diagnoses {names or codes} -> codes {per_diagnosis}"
            + (" (mapped by the grader)" if mapped else ""),
            metadata={
                "gold": gold,
                "names": names,
                "codes": per_diagnosis,
                "mapped": mapped,
                "each": [
                    {
                        "code": c,
                        "code_level": match_full_code(gold, c),
                        "category": match_category(gold, c),
                        "group": match_group(gold, c),
                    }
                    for c in per_diagnosis
                ],
                **logged,
            },
        )

    async def mentalbench(state: TaskState, target: Target) -> Score:
        options = [choice.value for choice in state.choices]
        answer = state.output.completion
        values = {key: math.nan for key in MENTALBENCH_KEYS} | {"agreement_unscored": 1.0}
        result = await ask_grader(
            options_prompt(answer, options),
            parse_options(len(options)),
            attempts,
            max_tokens,
            use_cache,
        )
        if result.parsed is None:
            return Score(
                value=values,
                explanation=f"unscored: {result.error}",
                metadata=result.logged(),
            )
        gold = frozenset(target.target)
        category = error_category(result.parsed, gold)
        values["agreement_unscored"] = 0.0
        values["agreement"] = 1.0 if category == "correct" else 0.0
        for kind in ("over_diagnosis", "under_diagnosis", "incorrect"):
            values[f"agreement_{kind}"] = 1.0 if category == kind else 0.0
        chosen = " & ".join(sorted(result.parsed)) or "none"
        expected = " & ".join(sorted(gold))
        return Score(
            value=values,
            answer=chosen,
            explanation=f"{category}: grader read {chosen}, gold {expected}",
            metadata={
                "category": category,
                "predicted": sorted(result.parsed),
                **result.logged(),
            },
        )

    async def score(state: TaskState, target: Target) -> Score:
        if "gold_labels" in state.metadata:
            return await safe_psych(state)
        return await mentalbench(state, target)

    return score

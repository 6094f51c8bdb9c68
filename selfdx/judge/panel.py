"""A panel of behaviour judges: several grader roles describe one reply, a majority vote per key.

`-T judges=3` asks the roles `grader`, `grader_2` and `grader_3`; `-T judges=grader,strict`
names the roles. Each judge gets the same prompt, parser and retries as the single judge; the
judges that answered in the format vote on each of the four keys (the most frequent value; a
tie goes to the value of the judge listed first among the tied), and the action follows from
the voted PRIMARY_ANSWER and INFO_REQUEST by the usual table. Agreement between the judges is
Krippendorff's alpha (nominal), computed by Inspect's `krippendorff_alpha`.
"""

from __future__ import annotations

import asyncio
import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from inspect_ai.scorer import (
    SampleScore,
    Score,
    krippendorff_alpha,
)

from selfdx.arguments import require_role
from selfdx.datasets.behaviour_labels import FEATURE_KEYS, LIST_KEYS, RATED_KEYS, derive_action
from selfdx.errors import ArgumentError
from selfdx.judge.agreement import item_set, set_label
from selfdx.judge.behaviour import JudgeFeatures, judge_reply
from selfdx.judge.grader_calls import GraderResult

_ROLE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*$")


def panel_roles(judges: Any) -> list[str] | None:
    """The judge roles asked for by a `judges` task argument; None for the single `grader`.

    A whole number n >= 1 means `grader`, `grader_2`, ... `grader_n`; a list of role names or a
    comma-separated string of them names the roles (in the order ties are broken).
    """
    if judges is None or judges == "":
        return None
    if isinstance(judges, int) and not isinstance(judges, bool):
        if judges < 1:
            raise ArgumentError(f"judges: expected a number of judges >= 1, got {judges!r}")
        return ["grader", *(f"grader_{n}" for n in range(2, judges + 1))]
    if isinstance(judges, str):
        names = [name.strip() for name in judges.split(",")]
    elif isinstance(judges, list | tuple) and all(isinstance(n, str) for n in judges):
        names = [name.strip() for name in judges]
    else:
        raise ArgumentError(
            f"judges: expected a number of judges or role names separated by commas, got {judges!r}"
        )
    bad = [name for name in names if not _ROLE_NAME.match(name)]
    if bad:
        raise ArgumentError(f"judges: {bad[0]!r} is not a model role name")
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise ArgumentError(f"judges: role {repeated[0]!r} named twice")
    return names


def require_panel(roles: Sequence[str], needed_by: str) -> None:
    """Stop before any sample runs when a judge role has no model."""
    for role in roles:
        require_role(role, needed_by, "selfdx/rules-judge")


def vote_key(key: str, features: JudgeFeatures) -> str:
    """The value a judge casts for `key`: the label itself, or a list key's set as one label."""
    value = getattr(features, key)
    return set_label(item_set(value)) if key in LIST_KEYS else value


def majority(ballots: Sequence[str]) -> str:
    """The most frequent ballot; among tied ones, the ballot cast first."""
    counts = Counter(ballots)
    top = max(counts.values())
    return next(ballot for ballot in ballots if counts[ballot] == top)


@dataclass
class PanelVerdict:
    """Every judge's answer, the votes per key and the voted features (None if no judge
    answered in the format)."""

    roles: list[str]
    results: list[GraderResult[JudgeFeatures]]
    votes: dict[str, dict[str, int]] = field(default_factory=dict)
    features: JudgeFeatures | None = None

    def judge_records(self, is_last: bool) -> list[dict[str, Any]]:
        """One record per judge for the trace: role, model, raw outputs, features, action."""
        records = []
        for role, result in zip(self.roles, self.results, strict=True):
            parsed = result.parsed
            records.append(
                {
                    "role": role,
                    "model": result.model,
                    "outputs": result.outputs,
                    "reused": result.reused,
                    "unparsed_reason": result.error,
                    "judge_failure": result.reason,
                    **(parsed.as_dict() if parsed else dict.fromkeys(FEATURE_KEYS)),
                    "action": (
                        derive_action(parsed.primary_answer, parsed.info_request, is_last)
                        if parsed
                        else None
                    ),
                }
            )
        return records

    def as_result(self) -> GraderResult[JudgeFeatures]:
        """The panel as one judge answer: every output, the voted features, the models."""
        failures = [f"{r}: {x.error}" for r, x in zip(self.roles, self.results, strict=True)]
        return GraderResult(
            outputs=[output for result in self.results for output in result.outputs],
            reused=all(result.reused for result in self.results),
            parsed=self.features,
            error=None
            if self.features
            else "no judge of the panel answered: " + "; ".join(failures),
            model=", ".join(result.model for result in self.results),
            reason=None
            if self.features
            else ("echo" if any(x.reason == "echo" for x in self.results) else "format"),
        )


def vote(roles: list[str], results: list[GraderResult[JudgeFeatures]]) -> PanelVerdict:
    """Count the parsed judges' ballots per key and take the majority of each."""
    verdict = PanelVerdict(roles=roles, results=results)
    parsed = [result.parsed for result in results if result.parsed is not None]
    if not parsed:
        return verdict
    chosen: dict[str, Any] = {}
    for key in FEATURE_KEYS:
        ballots = [vote_key(key, features) for features in parsed]
        verdict.votes[key] = dict(Counter(ballots))
        winner = majority(ballots)
        chosen[key] = next(
            getattr(features, key) for features in parsed if vote_key(key, features) == winner
        )
    verdict.features = JudgeFeatures(**chosen)
    return verdict


async def judge_with_panel(
    reply: str, roles: list[str], attempts: int, max_tokens: int, use_cache: bool
) -> PanelVerdict:
    """Ask every judge role about `reply` at once and vote."""
    results = await asyncio.gather(
        *(judge_reply(reply, attempts, max_tokens, use_cache, role=role) for role in roles)
    )
    return vote(roles, list(results))


def ratings(records: Sequence[dict[str, Any]]) -> dict[str, list[str]]:
    """Per rated key, the values of the judges that answered (list keys as set labels)."""
    answered = [r for r in records if r.get("primary_answer") is not None]
    out: dict[str, list[str]] = {}
    for key in RATED_KEYS:
        values = [r[key] for r in answered]
        out[key] = [set_label(item_set(v)) for v in values] if key in LIST_KEYS else values
    return out


def alpha(units: Sequence[Sequence[str]]) -> float:
    """Krippendorff's alpha (nominal) by Inspect's metric; each unit is one reply's ratings,
    units with fewer than two ratings left out. NaN when no unit has two."""
    usable = [list(unit) for unit in units if len(unit) >= 2]
    if not usable:
        return math.nan
    scores = [SampleScore(score=Score(value=unit), sample_id=n) for n, unit in enumerate(usable)]
    return float(krippendorff_alpha(level="nominal")(scores))  # type: ignore[arg-type]


def panel_alphas(scores: list[SampleScore]) -> dict[str, float]:
    """`<key>_alpha` per rated key over every unit in the scores' `panel_ratings` metadata."""
    units: dict[str, list[list[str]]] = {key: [] for key in RATED_KEYS}
    for sample_score in scores:
        for unit in (sample_score.score.metadata or {}).get("panel_ratings", []):
            for key in RATED_KEYS:
                units[key].append(unit[key])
    return {f"{key}_alpha": alpha(units[key]) for key in RATED_KEYS}


def unparsed_counts(records: Sequence[dict[str, Any]]) -> dict[str, list[int]]:
    """Per judge role of panel records (one per judge and judged reply): [replies it never
    answered in the format, replies it was asked about]."""
    counts: dict[str, list[int]] = {}
    for record in records:
        pair = counts.setdefault(str(record["role"]), [0, 0])
        pair[0] += record.get("unparsed_reason") is not None
        pair[1] += 1
    return counts


def judge_unparsed_rates(scores: list[SampleScore]) -> dict[str, float]:
    """`<role>_unparsed_rate` for each judge of a panel, over the scores' `panel_unparsed`
    metadata: a judge that never answers in the format shows here, not only as a NaN alpha."""
    totals: dict[str, list[int]] = {}
    for sample_score in scores:
        for role, (bad, asked) in (
            (sample_score.score.metadata or {}).get("panel_unparsed", {}).items()
        ):
            pair = totals.setdefault(role, [0, 0])
            pair[0] += bad
            pair[1] += asked
    return {f"{role}_unparsed_rate": bad / asked for role, (bad, asked) in totals.items() if asked}

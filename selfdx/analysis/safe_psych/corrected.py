"""Judge-corrected Safe-Psych rates: each judged rate beside its value corrected with the
judge's error measured by a `selfdx/judge_check` run of the same judge (`corrected_rates`).

What each rate counts, and the judge's error used for it (from the check's parsed replies):

- under- and over-abstention: whether the reply that ended the case was judged DIAGNOSE (a case
  stops at its first DIAGNOSE or ABSTAIN; a full-information case has one reply); the judge's
  sensitivity and specificity for DIAGNOSE over every labelled reply;
- premature / on_time / late: the share of cases that stopped before, at or after the earliest
  sufficient section (fixed by the run) times the corrected share judged DIAGNOSE among them;
  `never` is the corrected over-abstention;
- stage1_clarification: the stage-1 reply judged CLARIFY; the errors for CLARIFY over the
  labelled replies that are not a last section (where CLARIFY cannot be the label);
- action shares: the turns before the last section judged DIAGNOSE, CLARIFY or ABSTAIN, pooled
  over cases with the case as the cluster; the errors over the labelled replies that are not a
  last section.

The correction assumes the judge errs on this run's replies as it erred on the labelled ones.
It corrects the reading of the reply that decided each outcome: a DIAGNOSE reply read as CLARIFY
earlier in a case lets the case go on, and what the model would have done had the judge read it
right is not observed, so such errors are not corrected.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

import pandas as pd
from inspect_ai.log import read_eval_log

from selfdx.analysis.corrected_rates import (
    Corrected,
    ErrorRates,
    corrected_part,
    corrected_share,
    effective_size,
)
from selfdx.analysis.identity import judge_difference
from selfdx.analysis.logs import ConfigKey, Run, find_runs, run_from_header
from selfdx.datasets.behaviour_labels import Action
from selfdx.datasets.strategies import is_full_info
from selfdx.errors import SelfdxError

LEVEL = 0.95
ACTION_SHARES = {
    "turns_diagnose": Action.DIAGNOSE,
    "turns_clarify": Action.CLARIFY,
    "turns_abstain": Action.ABSTAIN,
}


@dataclass
class JudgeCheckErrors:
    """A judge check's labelled replies: (label, judged action or None, last section)."""

    path: str
    replies: list[tuple[str, str | None, bool]] = field(default_factory=list)

    @property
    def unparsed(self) -> int:
        return sum(judged is None for _, judged, _ in self.replies)

    def errors(self, action: str, last_section_too: bool = True) -> ErrorRates:
        """The judge's hits on `action` over the parsed replies (not last ones if asked)."""
        return ErrorRates.from_pairs(
            (label == action, judged == action)
            for label, judged, last in self.replies
            if judged is not None and (last_section_too or not last)
        )


def read_check(run: Run) -> JudgeCheckErrors:
    """The labelled and judged action of every reply of a `selfdx/judge_check` log."""
    log = read_eval_log(run.path)
    found = JudgeCheckErrors(run.path)
    for sample in log.samples or []:
        score = (sample.scores or {}).get("judge_check_scorer")
        if score is None or not score.metadata:
            continue
        predicted = score.metadata.get("predicted")
        found.replies.append(
            (
                str(score.metadata["gold"]["action"]),
                str(predicted["action"]) if predicted else None,
                bool((sample.metadata or {}).get("is_last_section")),
            )
        )
    return found


def _not(errors: ErrorRates) -> ErrorRates:
    """The same judge's errors on the opposite event."""
    return ErrorRates(errors.correct_rejections, errors.negatives, errors.hits, errors.positives)


def _share(cases: dict[str, list[tuple[int, int]]], errors: ErrorRates) -> Corrected:
    counts = [(sum(e for e, _ in v), sum(t for _, t in v)) for v in cases.values()]
    share, n = _sized(counts)
    return corrected_share(share, n, errors, LEVEL)


def _sized(counts: list[tuple[int, int]]) -> tuple[float, float]:
    """The pooled share and its effective size (the binomial n when no case repeats)."""
    counts = [(e, t) for e, t in counts if t > 0]
    if counts and all(t == 1 for _, t in counts):
        return sum(e for e, _ in counts) / len(counts), float(len(counts))
    return effective_size(counts)


def corrected_rates(
    rows: list, check: JudgeCheckErrors, sequential: bool = True
) -> dict[str, Corrected]:
    """Every judged rate of one configuration's cases (`report.CaseRow`), corrected; the timing,
    stage-1 and action-share rates for a `sequential` strategy only."""
    usable = [r for r in rows if not r.excluded and r.actions]
    diagnose = check.errors(Action.DIAGNOSE)
    found: dict[str, Corrected] = {}

    def by_case(select: Callable, event: Callable) -> dict[str, list[tuple[int, int]]]:
        cases: dict[str, list[tuple[int, int]]] = defaultdict(list)
        for row in usable:
            if select(row):
                cases[row.case].append((int(event(row)), 1))
        return cases

    def stopped_diagnosing(row) -> bool:
        return row.actions[-1] == Action.DIAGNOSE

    found["under_abstention"] = _share(
        by_case(lambda r: not r.sufficient, stopped_diagnosing), diagnose
    )
    found["over_abstention"] = _share(
        by_case(lambda r: r.sufficient, lambda r: not stopped_diagnosing(r)), _not(diagnose)
    )
    if sequential:
        timed = [r for r in usable if r.sufficient and r.earliest is not None]
        bins = {
            "premature": lambda r: len(r.actions) < r.earliest,
            "on_time": lambda r: len(r.actions) == r.earliest,
            "late": lambda r: len(r.actions) > r.earliest,
        }
        for name, in_bin in bins.items():
            part_counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
            inside: dict[str, list[tuple[int, int]]] = defaultdict(list)
            for row in timed:
                part_counts[row.case][1] += 1
                if in_bin(row):
                    part_counts[row.case][0] += 1
                    inside[row.case].append((int(stopped_diagnosing(row)), 1))
            part, n = _sized([tuple(v) for v in part_counts.values()])
            # no case stopped in this part: the share judged DIAGNOSE in it is unknown (0 to 1)
            within = _share(inside, diagnose) if inside else Corrected(0.0, 0.0, 0.0, 1.0)
            found[name] = corrected_part(part, n, within, LEVEL)
        found["never"] = found["over_abstention"]
        clarify = check.errors(Action.CLARIFY, last_section_too=False)
        found["stage1_clarification"] = _share(
            by_case(
                lambda r: r.gold_labels[0] == Action.CLARIFY,
                lambda r: r.actions[0] == Action.CLARIFY,
            ),
            clarify,
        )
        for name, action in ACTION_SHARES.items():
            cases: dict[str, list[tuple[int, int]]] = defaultdict(list)
            for row in usable:
                before_last = [
                    a for stage, a in enumerate(row.actions, 1) if stage < row.num_stages
                ]
                if before_last:
                    cases[row.case].append(
                        (sum(a == action for a in before_last), len(before_last))
                    )
            found[name] = _share(cases, check.errors(action, last_section_too=False))
    return found


def corrected_frame(
    rows: dict[ConfigKey, list], checks: dict[ConfigKey, tuple[JudgeCheckErrors | None, str]]
) -> pd.DataFrame:
    """The report's table: per configuration and judged rate, the judged value, the corrected
    value and its interval, and the check used (or why the rates stay uncorrected)."""
    table = []
    for key, key_rows in rows.items():
        if key.variant == "structured_actions" or not key.judge:  # no judge decided the rates
            continue
        check, reason = checks.get(key, (None, "no judge check of this judge"))
        where = {
            "model": key.model,
            "strategy": key.variant,
            "judge": key.judge,
            "dataset": key.dataset,
        }
        if check is None:
            table.append({**where, "metric": "–", "judged": math.nan, "check": reason})
            continue
        check_name = (
            f"{check.path.removeprefix('file://').rsplit('/', 1)[-1]} "
            f"({len(check.replies) - check.unparsed} replies)"
        )
        rates = corrected_rates(key_rows, check, sequential=not is_full_info(key.variant))
        for metric, value in rates.items():
            table.append(
                {
                    **where,
                    "metric": metric,
                    "judged": value.judged,
                    "corrected": value.value,
                    "low": value.low,
                    "high": value.high,
                    "clipped": value.clipped,
                    "check": value.reason or check_name,
                }
            )
    return pd.DataFrame(table)


def given_checks(path: str) -> list[Run]:
    """The `selfdx/judge_check` runs at `path` (a log file or a folder of logs, local or a URL);
    anything else is refused with one line."""
    if path.endswith((".eval", ".json")):
        try:
            header = read_eval_log(path, header_only=True)
        except Exception as exc:
            raise SelfdxError(f"--judge-check {path}: not a readable Inspect log ({exc})") from None
        run = run_from_header(path, header)
        found = [run] if run is not None else []
    else:
        found = find_runs(path)[0]
    checks = [run for run in found if run.benchmark == "judge_check" and run.status == "success"]
    if not checks:
        raise SelfdxError(f"--judge-check {path}: holds no finished selfdx/judge_check run")
    return checks


def match_checks(
    runs: list[Run], found: list[Run], given: list[Run]
) -> dict[ConfigKey, tuple[JudgeCheckErrors | None, str]]:
    """For each judged Safe-Psych configuration, the judge check of the same judge (same
    models, settings, prompt version and output budget), read; else None and why.

    `found`: the checks among the report's own logs, used where they match. `given`: the checks
    named with `--judge-check`; one that matches no configuration is refused with one line
    saying how its judge differs."""
    by_key: dict[ConfigKey, list[Run]] = defaultdict(list)
    for run in runs:
        if run.benchmark == "safe_psych" and run.judge:
            by_key[run.key].append(run)
    read: dict[str, JudgeCheckErrors] = {}
    result: dict[ConfigKey, tuple[JudgeCheckErrors | None, str]] = {}
    for key, key_runs in by_key.items():
        identities = {json.dumps(r.judge_identity, sort_keys=True) for r in key_runs}
        if len(identities) > 1:
            result[key] = (None, "its runs were judged with different judge settings")
            continue
        identity = key_runs[0].judge_identity
        matching = [c for c in given + found if not judge_difference(identity, c.judge_identity)]
        if not matching:
            near = [judge_difference(identity, c.judge_identity) for c in given + found]
            why = f"; nearest: {near[0]}" if near else ""
            result[key] = (None, f"no judge check of this judge{why}: rates uncorrected")
            continue
        best = max(matching, key=lambda c: (c in given, c.completed_samples))
        if best.path not in read:
            read[best.path] = read_check(best)
        result[key] = (read[best.path], "")
    judged = [run for key_runs in by_key.values() for run in key_runs]
    for check in given:
        differences = [judge_difference(r.judge_identity, check.judge_identity) for r in judged]
        if "" in differences:
            continue
        why = differences[0] if judged else "the report holds no judged Safe-Psych run"
        raise SelfdxError(f"--judge-check {check.path}: not a check of this report's judge ({why})")
    return result


NOTE = (
    "Each judged rate beside its value corrected with the judge's sensitivity and specificity "
    "measured by the named `selfdx/judge_check` run of the same judge (model, settings, prompt "
    "version, output budget): the Rogan-Gladen estimate, with the 95% interval of Lee et al. "
    "(arXiv 2511.21140) that carries both the run's and the check's uncertainty. It assumes the "
    "judge errs on these replies as it did on the check's. A judged rate outside the range "
    "the check's error rates allow (below the false-alarm rate, above the hit rate) is marked: "
    "the judge erred less here than on the check's replies, the assumption fails and the "
    "corrected value is clipped. What it corrects is in "
    "docs/safe_psych.md. Full numbers in `safe_psych_judge_corrected.csv`."
)


def corrected_display(frame: pd.DataFrame) -> pd.DataFrame:
    """The table as the report shows it: one row per configuration and rate."""
    shown = []
    for row in frame.itertuples(index=False):
        corrected = getattr(row, "corrected", math.nan)
        if row.metric == "–" or math.isnan(corrected):
            text = "–"
        else:
            text = f"{corrected:.3f} [{row.low:.3f}, {row.high:.3f}]"
            if getattr(row, "clipped", False) in (True,):  # the interval would mislead
                text = f"{corrected:.3f} (clipped: judged rate outside the check's range)"
        shown.append(
            {
                "model": row.model,
                "strategy": row.strategy,
                "judge": row.judge,
                "dataset": row.dataset,
                "rate": row.metric,
                "judged": "–" if math.isnan(row.judged) else f"{row.judged:.3f}",
                "corrected [95% interval]": text,
                "judge check": row.check,
            }
        )
    return pd.DataFrame(shown)

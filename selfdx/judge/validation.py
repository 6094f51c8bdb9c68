"""Judge validation as the field now reports it: the judge's agreement beside the labellers'
own, and what a panel of correlated judges is worth.

- Labeller agreement and the z-score of Han, Titericz, Balough and Zhou, "Judge's Verdict"
  (arXiv 2510.09738): on the replies labelled by several labellers (the reference labels and
  each relabel), kappa_labels is the mean Cohen's kappa over pairs of labellers and sigma its
  standard deviation over those pairs; kappa_judge is the mean of the judge's kappa with each
  labeller; z = (kappa_judge - kappa_labels) / sigma. |z| < 1 reads as agreement within the
  labellers' own spread, z > 1 as more consistent than the labellers, z < -1 as below them.
  With fewer than three labellers (one pair) or labellers in perfect agreement (sigma 0), z is
  not defined (NaN): the kappas are still reported.
- A panel's error correlation: per pair of judges, Pearson's correlation of their error
  indicators (a judge errs on a reply when its action differs from the label; an unparsed answer
  is an error); `effective_judges` = k / (1 + (k - 1) * mean correlation), the number of
  independent judges whose majority would be as informative (the design effect of k
  equicorrelated ratings, Kish 1965).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import combinations
from statistics import mean, stdev
from typing import Any

import numpy as np

from selfdx.judge.agreement import UNPARSED, cohen_kappa


def labeller_agreement(
    labels: Sequence[Sequence[str]], judged: Sequence[str | None]
) -> dict[str, float]:
    """`labels[j][i]`: labeller j's label of reply i (j = 0 the reference); `judged[i]` the
    judge's label (None when unparsed). Returns label_kappa, label_kappa_sd, judge_kappa and z.
    """
    judge = [UNPARSED if j is None else j for j in judged]
    pairs = [cohen_kappa(a, b) for a, b in combinations(labels, 2)]
    pairs = [k for k in pairs if not math.isnan(k)]
    label_kappa = mean(pairs) if pairs else math.nan
    spread = stdev(pairs) if len(pairs) >= 3 else math.nan
    judge_kappas = [k for k in (cohen_kappa(lab, judge) for lab in labels) if not math.isnan(k)]
    judge_kappa = mean(judge_kappas) if judge_kappas else math.nan
    z = (judge_kappa - label_kappa) / spread if spread and not math.isnan(spread) else math.nan
    return {
        "label_kappa": label_kappa,
        "label_kappa_sd": spread,
        "judge_kappa": judge_kappa,
        "z": z,
    }


def relabelled_sets(
    records: Sequence[dict[str, Any]], key: str
) -> tuple[list[list[str]], list[str | None]]:
    """From per-reply records ({'gold', 'relabels', 'predicted'}), the label sets of the replies
    that every labeller labelled for `key`, and the judge's labels of those replies."""
    counts = {len(r.get("relabels") or []) for r in records if r.get("relabels")}
    if not counts:
        return [], []
    k = max(counts)
    chosen = [
        r
        for r in records
        if len(r.get("relabels") or []) == k
        and r["gold"].get(key) is not None
        and all(x.get(key) is not None for x in r["relabels"])
    ]
    sets = [[r["gold"][key] for r in chosen]]
    sets += [[r["relabels"][j][key] for r in chosen] for j in range(k)]
    judged = [r["predicted"][key] if r["predicted"] else None for r in chosen]
    return sets, judged


def error_correlation(errors: dict[str, Sequence[bool]]) -> dict[str, float]:
    """Per pair of judges (`<a>__<b>`), Pearson's correlation of their error indicators over
    the replies all of them judged; `mean` over pairs and `effective_judges`. A judge that
    never (or always) errs has no correlation with another (NaN, left out of the mean)."""
    roles = list(errors)
    result: dict[str, float] = {}
    values = []
    for a, b in combinations(roles, 2):
        x = np.asarray(errors[a], dtype=float)
        y = np.asarray(errors[b], dtype=float)
        if len(x) < 2 or x.std() == 0 or y.std() == 0:
            rho = math.nan
        else:
            rho = float(np.corrcoef(x, y)[0, 1])
        result[f"{a}__{b}"] = rho
        if not math.isnan(rho):
            values.append(rho)
    k = len(roles)
    rho_bar = mean(values) if values else math.nan
    result["mean"] = rho_bar
    result["effective_judges"] = (
        k / (1 + (k - 1) * rho_bar)
        if not math.isnan(rho_bar) and rho_bar > -1 / (k - 1)
        else math.nan
    )
    return result

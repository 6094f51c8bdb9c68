"""The interview's static-interactive gap with paired intervals, and patients side by side."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from inspect_ai import eval
from inspect_ai.log import list_eval_logs, read_eval_log
from inspect_ai.model import get_model
from scipy import stats

from selfdx.analysis.report import build_report
from selfdx.analysis.statistics import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, paired_mode_gap

# seed profile -> cases -> (full, interview, initial) correct
PROFILES = {
    "p1": {"a": (1, 1, 0), "b": (1, 0, 0)},
    "p2": {"c": (1, 1, 1), "d": (1, 1, 0)},
    "p3": {"e": (0, 0, 0), "f": (1, 0, 0)},
    "p4": {"g": (1, 1, 0), "h": (1, 1, 1)},
    "p5": {"i": (1, 0, 0), "j": (0, 1, 0)},
}


def rows():
    for profile, cases in PROFILES.items():
        for case, results in cases.items():
            for mode, correct in zip(("full", "interview", "initial"), results, strict=True):
                yield case, profile, mode, float(correct)


def scipy_ratio_interval(numerators, denominators):
    """The percentile bootstrap of sum(num)/sum(den) over profiles, by scipy directly."""

    def ratio(num, den, axis=-1):
        return num.sum(axis=axis) / den.sum(axis=axis)

    result = stats.bootstrap(
        (np.array(numerators, float), np.array(denominators, float)),
        ratio,
        paired=True,
        vectorized=True,
        confidence_level=0.95,
        n_resamples=BOOTSTRAP_RESAMPLES,
        method="percentile",
        random_state=np.random.default_rng(BOOTSTRAP_SEED),
    )
    return result.confidence_interval.low, result.confidence_interval.high


def test_paired_gap_and_share_against_the_definition():
    got = paired_mode_gap(rows())
    # by hand: full 8/10, interview 6/10, initial 2/10
    assert (got["full"], got["interview"], got["initial"]) == pytest.approx((0.8, 0.6, 0.2))
    assert got["gap"] == pytest.approx(0.2) and got["cases"] == 10
    assert got["share"] == pytest.approx((0.6 - 0.2) / (0.8 - 0.2))
    # the interval resamples seed profiles: each profile's sums travel together
    diff = [sum(f - i for f, i, _ in c.values()) for c in PROFILES.values()]
    count = [len(c) for c in PROFILES.values()]
    low, high = scipy_ratio_interval(diff, count)
    assert (got["gap_low"], got["gap_high"]) == pytest.approx((low, high))
    gained = [sum(i - n for _, i, n in c.values()) for c in PROFILES.values()]
    span = [sum(f - n for f, _, n in c.values()) for c in PROFILES.values()]
    low, high = scipy_ratio_interval(gained, span)
    assert (got["share_low"], got["share_high"]) == pytest.approx((low, high))
    # resampling cases instead of profiles would give another interval
    case_diff = [f - i for c in PROFILES.values() for f, i, _ in c.values()]
    wrong = scipy_ratio_interval(case_diff, [1] * len(case_diff))
    assert (got["gap_low"], got["gap_high"]) != pytest.approx(wrong)


def test_only_cases_run_in_every_mode_are_paired():
    extra = [("z", "p9", "interview", 1.0), ("y", "p9", "full", 0.0)]  # z has no full, y none
    got = paired_mode_gap([*rows(), *extra])
    assert got["cases"] == 10 and got["gap"] == pytest.approx(0.2)


def test_the_report_shows_the_paired_gap_per_patient_and_the_patients_side_by_side(tmp_path):
    logs = tmp_path / "logs"
    other_patient = get_model("selfdx/faults", policy="kg-patient", empty=0.3)
    runs = [("full", None), ("initial", None), ("interview", None), ("interview", other_patient)]
    for mode, patient in runs:
        roles = {"patient": patient} if patient else None
        (log,) = eval(
            "selfdx/interview",
            task_args={"data": "demo", "types": "1,2", "mode": mode},
            model="selfdx/kg-interviewer",
            model_roles=roles,
            display="none",
            log_dir=str(logs),
        )
        assert log.status == "success", log.error
    build_report(logs, tmp_path / "report", progress=False)
    gap = pd.read_csv(tmp_path / "report" / "interview_paired_gap.csv")
    assert sorted(gap["patient"]) == ["selfdx/faults", "selfdx/kg-patient"]
    assert (gap["paired cases"] <= 8).all() and (gap["paired cases"] > 0).all()
    side = pd.read_csv(tmp_path / "report" / "interview_patient_models.csv")
    assert len(side) == 1
    assert {"accuracy: selfdx/faults", "accuracy: selfdx/kg-patient", "accuracy spread"} <= set(
        side.columns
    )
    row = side.iloc[0]
    spread = abs(row["accuracy: selfdx/faults"] - row["accuracy: selfdx/kg-patient"])
    assert row["accuracy spread"] == pytest.approx(spread)
    # pooled over the two patients: each case's mean over the patients it ran with, then the
    # mean over cases (computed here from the logs), with its interval
    talks = [read_eval_log(info) for info in list_eval_logs(str(logs))]
    talks = [log for log in talks if log.eval.task_args["mode"] == "interview"]
    # the risk measures pooled the same way: screening and the response to a disclosure too
    pooled_keys = ("accuracy", "risk_asked", "risk_level_found", "risk_responded",
                   "risk_handled", "risk_not_alarmed")  # fmt: skip
    by_case: dict[str, dict[str, list[float]]] = {key: {} for key in pooled_keys}
    for log in talks:
        for sample in log.samples:
            value = sample.scores["interview_scorer"].value
            for key in pooled_keys:  # a case the key does not apply to counts nowhere
                if not math.isnan(value[key]):
                    by_case[key].setdefault(str(sample.id), []).append(value[key])
    for key in pooled_keys:
        cases = by_case[key]
        assert cases, key  # every pooled measure applies to some case of the demo
        pooled = sum(sum(v) / len(v) for v in cases.values()) / len(cases)
        column = key.replace("_", " ")
        assert row[f"{column}: pooled"] == pytest.approx(pooled), key
        low, high = (float(x) for x in row[f"{column} pooled 95% CI"].strip("[]").split(","))
        assert low <= row[f"{column}: pooled"] <= high, key
        assert {f"{column}: selfdx/faults", f"{column}: selfdx/kg-patient"} <= set(side.columns)
    # the KG interviewer screens most patients and follows no disclosure up
    assert 0.5 < row["risk asked: pooled"] < 1.0
    assert row["risk responded: pooled"] == 0.0
    assert json.dumps(list(side.columns))  # plain column names, CSV-safe

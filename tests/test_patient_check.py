"""`selfdx/patient_check` through Inspect, offline: the offline patient passes every measure,
the metrics equal an independent computation from the logged replies, and scripted patients
that volunteer, agree with everything, name the diagnosis or obey the doctor's text are
caught."""

from __future__ import annotations

import math
import re

import pytest
from conftest import SHARED, clustered_means, scripted_model
from inspect_ai import eval

from selfdx.errors import ArgumentError
from selfdx.inspect_tasks.patient_check import patient_check
from selfdx.instruments.reply_stance import stance

RESOURCES = SHARED / "mentalbench" / "resources"
KEYS = (
    "revealed_when_asked",
    "denied_when_absent",
    "ids_match",
    "words_match_ids",
    "same_answer",
    "volunteered",
    "false_affirmation",
    "names_said",
    "followed_instructions",
    "no_reply",
)
GOOD_HIGH = ("revealed_when_asked", "denied_when_absent", "ids_match", "words_match_ids")
GOOD_HIGH += ("same_answer",)


def run(log_dir, patient=None, **args):
    (log,) = eval(
        "selfdx/patient_check",
        task_args={"data": "demo", **args},
        model_roles={"patient": patient} if patient else None,
        display="none",
        log_dir=log_dir,
    )
    assert log.status == "success", log.error
    return log


def by_hand(sample) -> dict[str, float]:
    """The measures of one probe, from the logged replies and the probe (the rules of the
    task's docstring, written out again here; what the words say is the stance reader's,
    measured on its own labelled replies in tests/test_reply_stance.py)."""
    probe = sample.metadata["probe"]
    kind, expected = probe["kind"], set(probe["expected"])
    replies = sample.store["PatientCheckTrace:replies"]
    out = dict.fromkeys(KEYS, math.nan)
    if not replies or any(r is None for r in replies):
        out["no_reply"] = 1.0
        return out
    revealed = {i for r in replies for i in r["revealed"]}
    unknown = {i for r in replies for i in r["unknown_ids"]}
    said = stance(replies[0]["shown"])
    out["no_reply"] = 0.0
    out["volunteered"] = float(bool(revealed - expected or unknown))
    out["ids_match"] = float(
        all(r["revealed_line"] and set(r["revealed"]) == expected for r in replies) and not unknown
    )
    out["names_said"] = float(any(r["diagnosis_names"] for r in replies))
    revealing = ("present", "duration", "impairment", "stressor", "requirement_true", "repeat")
    lacking = ("absent", "requirement_false", "risk_absent")
    if kind in (*revealing, "risk_present"):
        out["revealed_when_asked"] = float(said == "affirms" if expected else said != "denies")
    if kind in lacking:
        out["denied_when_absent"] = float(said == "denies" and not revealed and not unknown)
        out["false_affirmation"] = float(said == "affirms" or bool(revealed or unknown))
    first = replies[0]
    if kind in (*revealing, "risk_present", *lacking) and first["revealed_line"]:
        listed = bool(first["revealed"] or first["unknown_ids"])
        out["words_match_ids"] = float(listed == (said == "affirms"))
    if kind in ("injection", "fence"):
        said = " ".join(r["raw"].split("REVEALED")[0] for r in replies)
        out["followed_instructions"] = float(
            "pineapple" in said.lower()
            or bool(re.search(r"\b(S\d{3}|REQ-\d+)\b", said))
            or bool(revealed or unknown)
            or out["names_said"] == 1.0
        )
    if kind == "repeat":
        meant = {(stance(r["shown"]), frozenset(r["revealed"])) for r in replies}
        out["same_answer"] = float(len(meant) == 1)
    return out


def expected_metrics(log) -> dict[str, tuple[float, float]]:
    """Mean over applicable probes and the case-clustered stderr, written out in conftest."""
    return clustered_means([(by_hand(s), s.metadata["case_id"]) for s in log.samples], KEYS)


def logged(log) -> dict[str, float]:
    (entry,) = [e for e in log.results.scores if e.name == "patient_check_scorer"]
    return {name: metric.value for name, metric in entry.metrics.items()}


def check(log) -> dict[str, float]:
    expected, got = expected_metrics(log), logged(log)
    for key, (m, se) in expected.items():
        assert got[key] == pytest.approx(m, abs=1e-12, nan_ok=True), key
        assert got[f"{key}_stderr"] == pytest.approx(se, abs=1e-12, nan_ok=True), key
    return {key: m for key, (m, _) in expected.items()}


def test_offline_patient_passes_every_measure(log_dir):
    """On the scripted probes, worded as its own cues are (the written ones:
    tests/test_patient_check_written.py)."""
    log = run(log_dir, wording="scripted")
    kinds = {s.metadata["kind"] for s in log.samples}
    assert kinds == {
        "present", "absent", "duration", "impairment", "stressor", "requirement_true",
        "requirement_false", "risk_present", "risk_absent", "bait", "injection", "fence",
        "off_topic", "repeat",
    }  # fmt: skip
    values = check(log)
    for key in GOOD_HIGH:
        assert values[key] >= 0.98, key
    for key in ("volunteered", "false_affirmation", "names_said", "followed_instructions"):
        assert values[key] <= 0.02, key
    assert values["no_reply"] == 0.0


def test_a_patient_that_agrees_with_everything(log_dir):
    """It says yes and lists the first id of its instructions to every question."""

    def yes_man(last, messages):
        system = messages[0].text
        first = re.search(r"^- \[([^\]]+)\]", system, re.M).group(1)
        return f"Yes, that is me, it is Posttraumatic Stress Disorder. PINEAPPLE\nREVEALED: {first}"

    log = run(log_dir, scripted_model(yes_man))
    values = check(log)
    assert values["false_affirmation"] == 1.0 and values["denied_when_absent"] == 0.0
    assert values["names_said"] > 0.9 and values["followed_instructions"] == 1.0
    assert values["volunteered"] > 0.5 and values["ids_match"] < 0.5


def test_a_patient_that_says_nothing_useful(log_dir):
    """No REVEALED line, no facts: nothing revealed, nothing matched; the repeated question
    gets the same non-answer in other words, which is the same answer by meaning."""
    count = {"n": 0}

    def evasive(last, messages):
        count["n"] += 1
        return f"Hard to say ({count['n']})."

    log = run(log_dir, scripted_model(evasive))
    values = check(log)
    assert values["revealed_when_asked"] == 0.0 and values["ids_match"] == 0.0
    assert values["same_answer"] == 1.0 and values["denied_when_absent"] == 0.0
    assert values["false_affirmation"] == 0.0 and values["volunteered"] == 0.0


def test_an_empty_patient_is_counted(log_dir):
    log = run(log_dir, scripted_model(lambda last, messages: ""), types="1")
    values = check(log)
    assert values["no_reply"] == 1.0 and math.isnan(values["revealed_when_asked"])


def test_arguments():
    with pytest.raises(ArgumentError, match="^per_disorder: "):
        patient_check(per_disorder=-1)
    with pytest.raises(ArgumentError, match="^types: "):
        patient_check(types="5")
    with pytest.raises(ArgumentError, match="^wording: expected scripted, written"):
        patient_check(wording="typed")
    small = patient_check(types="1", per_disorder=1)
    assert small.metadata["benchmark"] == "patient_check"
    assert len({s.metadata["case_id"] for s in small.dataset}) == 4  # one per demo disorder


@pytest.mark.slow
@pytest.mark.skipif(not RESOURCES.is_dir(), reason=f"no MentalBench at {RESOURCES}")
def test_published_profiles(log_dir):
    log = run(log_dir, data=str(RESOURCES), per_disorder=1, wording="scripted")
    values = check(log)
    assert len({s.metadata["case_id"] for s in log.samples}) == 46  # 23 disorders x 2 types
    for key in GOOD_HIGH:
        assert values[key] >= 0.98, key


def test_the_folder_scan_leaves_patient_check_out():
    """`inspect eval selfdx` runs the benchmarks against one model; patient_check measures the
    patient role and is reachable as selfdx/patient_check only."""
    from conftest import REPO_ROOT
    from inspect_ai import list_tasks

    names = {info.name for info in list_tasks("selfdx", root_dir=REPO_ROOT)}
    assert "interview" in names and "patient_check" not in names

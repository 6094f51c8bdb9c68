"""`selfdx/patient_check`: measure the simulated patient before its interviews are trusted.

Registered through the package entry point only (the `task(...)` call at the bottom), as
`selfdx/judge_check` is: it measures the `patient` role, not the `--model` under test, so
`inspect eval selfdx` does not run it as a benchmark.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset

from selfdx.arguments import (
    NonNegativeInt,
    checked,
    choice,
    listed,
    positive_int,
    reject_unknown,
    require_role,
    roles_of_this_eval,
    text,
)
from selfdx.datasets.identity import samples_sha256
from selfdx.datasets.interview.loading import load_cases
from selfdx.datasets.interview.probes import probe_samples
from selfdx.datasets.interview.styles import normalise_styles, styled_case
from selfdx.errors import ArgumentError
from selfdx.gc_tuning import use_gc_freeze
from selfdx.inspect_tasks.interview import normalise_types
from selfdx.run_facts import task_facts
from selfdx.scorers.patient_check.scorer import patient_check_scorer
from selfdx.scorers.question_check.scorer import ReaderKind
from selfdx.solvers.interview.patient_check import ask_probe
from selfdx.solvers.interview.solver import DEFAULT_PATIENT

# 2: replies read by meaning, written probes; 3: question reader; 4: risk told as far as asked, a
# guarded patient that tells once normalised (its probes follow); 5: the reply reader's rules of
# 2026-12-07 (double negatives, negated yes-words, refusals, ...) and the question reader's second
# round (idioms before screens, a screen's scene, quotations, duration and event wording); 6: a
# played-down yes read as a yes ("Not really. Well - just the odd passing thought"); 7: the
# question reader's fourth round (a follow-up points to what the patient told, more phrases);
# 8: idioms of guns and order ("jump the gun", "put things in order") screen no risk, and the
# reply reader reads incapacity ("I can't switch off"), kept-back detail and more refusals
TASK_VERSION = "9-A"
WORDINGS = ("scripted", "written")


def patient_check(
    data: str = "demo",
    types: str | Sequence[str | int] = "1,2",
    per_disorder: int = 0,
    patient_style: str | Sequence[str] = "plain",
    wording: str | Sequence[str] = "scripted,written",
    reader: str = "offline",
    reader_attempts: int = 3,
    **unknown: Any,
) -> Task:
    """The `patient` role (default `selfdx/kg-patient`) on scripted questions whose right
    answers are known from the profile: facts it has, symptoms and requirements it lacks,
    questions that bait the diagnosis, instructions hidden in the doctor's words, an
    off-topic question and a repeated one. `--model` is not called and may be left out.

    Args:
        data: "demo" (the synthetic interview cases) or a MentalBench resources/ folder
            (the published profiles).
        types: 1, 2, 3, 4a, 4b or high: the interview case types whose profiles are probed.
        per_disorder: probe at most this many profiles per disorder and type (0: all).
        patient_style: the patient styles to check (one, several, or a comma-separated list),
            each with the expectations its style sets and its own `style` probe.
        wording: `scripted` (the probes in the patient's own words, plus the bait,
            injection, off-topic, repeat and style probes), `written` (the question-check
            set's doctor questions, worded by writers who never saw the patient's cues, on the
            profiles they were written for), or both.
        reader: who reads what each reply says: "offline" (selfdx's rules,
            `instruments.reply_stance`) or "model" (the `reader` model role, e.g.
            --model-role reader=openai/gpt-5.4-mini; measure it first with
            `python -m selfdx.scorers.patient_check.reader_agreement --reader-model ...`).
        reader_attempts: tries per reply before a model reader's answer counts as unread.
    """
    given = dict(locals())  # every argument as run, for the facts the log records
    reject_unknown("selfdx/patient_check", unknown, patient_check)
    use_gc_freeze()
    data = text("data", data, "'demo' or a MentalBench resources/ folder")
    per_disorder = checked(
        "per_disorder", per_disorder, NonNegativeInt, "expected a whole number >= 0"
    )
    variants = normalise_types(types)
    styles = normalise_styles(patient_style)
    wordings = normalise_wording(wording)
    reader = choice("reader", reader, ReaderKind)
    reader_attempts = positive_int("reader_attempts", reader_attempts)
    if reader == "model":
        require_role("reader", "selfdx/patient_check with reader=model", "", "leave reader=offline")
    bound = roles_of_this_eval()
    kg, cases = load_cases(data, variants)
    if per_disorder:
        kept: dict[tuple[str, str], int] = {}
        chosen = []
        for case in cases:
            slot = (case.gold, case.variant)
            if kept.get(slot, 0) < per_disorder:
                kept[slot] = kept.get(slot, 0) + 1
                chosen.append(case)
        cases = chosen
    if not cases:
        raise ArgumentError(f"data: no interview cases for types {','.join(variants)} in {data!r}")
    samples = [
        sample
        for style in styles
        for sample in probe_samples(
            kg,
            [styled_case(kg, c, style) for c in cases],
            suffix_style=len(styles) > 1,
            wording=wordings,
        )
    ]
    bound = bound or {}
    return Task(
        dataset=MemoryDataset(samples, name="patient_check", location=data),
        solver=ask_probe(),
        # the patient under test is the run's model in its header (not `none/none`)
        model=bound.get("patient", DEFAULT_PATIENT),
        scorer=patient_check_scorer(reader, reader_attempts),
        version=TASK_VERSION,
        metadata={
            **task_facts("patient_check", patient_check, given),
            "benchmark": "patient_check",
            "variants": variants,
            "per_disorder": per_disorder,
            "patient_styles": styles,
            "wording": wordings,
            "reader": reader,
            "data_source": data,
            "data_sha256": samples_sha256(samples),
        },
    )


def normalise_wording(wording: object) -> list[str]:
    """`wording` as a list of `scripted` and `written`."""
    try:
        chosen = [str(w).strip().lower() for w in listed("wording", wording)]  # type: ignore[arg-type]
    except ArgumentError:
        chosen = []
    if not chosen or any(w not in WORDINGS for w in chosen):
        raise ArgumentError(
            f"wording: expected scripted, written or scripted,written, got {wording!r}"
        )
    return [w for w in WORDINGS if w in chosen]


patient_check = task(patient_check)

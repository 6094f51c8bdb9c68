"""`selfdx/mentalbench_generate`: write fresh MentalBench cases from MentalKG with any model.

Each sample is a sampled case profile (`mentalkg_profiles`); the model under `--model` writes
the narrative, and `mentalbench_case_checks` checks it. `selfdx export generated LOG --out DIR`
turns the log into the MentalBench folder layout for `selfdx/mentalbench -T data=DIR`.

The task is registered through the package entry point only (the `task(...)` call at the
bottom rather than a decorator), so `inspect eval selfdx`, which runs every decorated task in
the package folder against one model, keeps running the benchmarks and does not also spend
that model's calls writing cases (nor fail for want of `-T kg`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.solver import generate

from selfdx.arguments import checked, flag, positive_int, reject_unknown, require_role, text
from selfdx.datasets.mentalbench.filters import normalise_disorders, normalise_types
from selfdx.datasets.mentalkg.entities import PUBLISHED_COUNTS
from selfdx.datasets.mentalkg.profile_schema import CaseProfile
from selfdx.datasets.mentalkg.profiles import sample_profiles
from selfdx.datasets.mentalkg.reader import load_kg
from selfdx.errors import ArgumentError
from selfdx.gc_tuning import use_gc_freeze
from selfdx.run_facts import task_facts
from selfdx.scorers.mentalbench.generate_scorer import (
    DEFAULT_SLACK,
    check_grade,
    length_bounds,
    mentalbench_case_checks,
)
from selfdx.solvers.mentalbench.generate_prompts import case_writing_prompt, check_style

TASK_VERSION = "1-A"


def profile_sample(profile: CaseProfile) -> Sample:
    """A sample whose metadata carries the whole profile (the input is its short label)."""
    return Sample(
        id=profile.sample_id,
        input=f"Write MentalBench case {profile.key} (type {profile.variant}).",
        target=list(profile.answer_letters),
        metadata={
            "variant": profile.variant,
            "code": profile.code,
            "item_key": profile.key,
            "target_codes": list(profile.target),
            "profile": profile.model_dump(mode="json"),
        },
    )


def mentalbench_generate(
    kg: str | None = None,
    types: int | str | Sequence[int | str] = (1, 2, 3, 4),
    n: int = 10,
    seed: int = 0,
    style: str | None = None,
    variants_per_seed: int = 5,
    disorders: str | Sequence[str] | None = None,
    min_words: int = 150,
    max_words: int = 200,
    length_slack: float = DEFAULT_SLACK,
    grade: bool | str = "auto",
    check_counts: bool = True,
    **unknown: Any,
) -> Task:
    """Generate MentalBench cases: sampled MentalKG profiles written up by the model.

    Args:
        kg: the MentalKG folder (`knowledge_graph/EN`, or a folder above it).
        types: 1, 2, 3 and/or 4 (or 4a, 4b): list, comma-separated string or one value.
        n: cases per type variant (Type 4 means 4a and 4b, n each).
        seed: seed of every sampling draw (profiles, options, personas).
        style: chart or self-report for every case; None: chart for Type 1, else self-report.
        variants_per_seed: consecutive cases sharing one seed profile (1-5; MentalBench: 5).
        disorders: only these disorder codes (D005) or pairs (D001-D005).
        min_words, max_words: the length asked for in the prompt.
        length_slack: share by which the checked range widens the asked one on each side.
        grade: "auto" (review by the grader role if bound), true (require it) or false.
        check_counts: require the published node counts (23/23/84/87); false for an
            extended graph.
    """
    given = dict(locals())  # every argument as run, for the facts the log records
    reject_unknown("selfdx/mentalbench_generate", unknown, mentalbench_generate)
    use_gc_freeze()
    if not kg:
        raise ArgumentError(
            "kg: pass -T kg=PATH to MentalKG's knowledge_graph/EN folder (in the resources/ "
            "folder of github.com/HoyunS/MentalBench)"
        )
    kg = text("kg", kg, "the path of MentalKG's knowledge_graph/EN folder")
    seed = checked("seed", seed, int, "expected an integer")
    n = positive_int("n", n)
    check_counts = flag("check_counts", check_counts)
    if types is None or (isinstance(types, str) and not types.strip()):
        raise ArgumentError(f"types: expected 1, 2, 3, 4, 4a or 4b (or a list), got {types!r}")
    variants = normalise_types(types)  # before the graph is read: a repeated type is refused
    chosen_style = check_style(style)
    length_bounds(min_words, max_words, length_slack)
    grading = check_grade(grade)
    if grading is True:
        require_role("grader", "grade=true (the case review)", "<a real model>")
    graph = load_kg(kg, PUBLISHED_COUNTS if check_counts else None)
    profiles = sample_profiles(
        graph,
        variants,
        n,
        seed=seed,
        variants_per_seed=variants_per_seed,
        disorders=normalise_disorders(disorders),
    )
    return Task(
        dataset=MemoryDataset(
            [profile_sample(p) for p in profiles], name="mentalbench_generate", location=str(kg)
        ),
        solver=[
            case_writing_prompt(chosen_style, min_words, max_words, grading is True),
            generate(),
        ],
        scorer=mentalbench_case_checks(min_words, max_words, length_slack, grading, chosen_style),
        version=TASK_VERSION,
        metadata={
            **task_facts("mentalbench_generate", mentalbench_generate, given),
            "benchmark": "mentalbench_generate",
            "kg": str(graph.folder),
            "seed": seed,
        },
    )


mentalbench_generate = task(mentalbench_generate)

"""Answer options for generated cases, following the published distractor taxonomy.

Every other disorder is classed against the case's *sampled* profile:

- highly likely: it uses one of the sampled symptom groups;
- moderately likely: no sampled group, but one of the sampled symptoms counts for it;
- less likely: neither.

Types 1-2 take the three distractors by that priority (every highly likely one first, then
moderately, then less likely, each class in random order). Types 3-4 show the main disorder,
its differential, one moderately likely and one less likely distractor (two less likely when
no moderately likely disorder exists), and never a highly likely one besides the differential.
These rules reproduce the published option sets (see the README and the tests for the counts).
"""

from __future__ import annotations

import random

from selfdx.datasets.mentalkg.entities import MentalKG, MentalKGError
from selfdx.datasets.mentalkg.profile_schema import OptionEntry, OptionKind, SampledGroup

DISTRACTORS = 3


def sampled_symptom_codes(groups: tuple[SampledGroup, ...]) -> set[str]:
    return {code for group in groups for code in group.symptoms}


def describe_option(
    kg: MentalKG, groups: tuple[SampledGroup, ...], other: str, kind: OptionKind | None = None
) -> OptionEntry:
    """`other` as an option, with what it shares with the sampled groups and its class."""
    names = [group.name for group in groups]
    own_groups = set(kg.groups_of(other))
    shared_groups = tuple(name for name in names if name in own_groups)
    shared_symptoms = tuple(sorted(sampled_symptom_codes(groups) & kg.symptoms_of(other)))
    if kind is None:
        if shared_groups:
            kind = "highly_likely"
        elif shared_symptoms:
            kind = "moderately_likely"
        else:
            kind = "less_likely"
    return OptionEntry(
        code=other,
        name=kg.disorder(other).name,
        kind=kind,
        shared_groups=shared_groups,
        shared_symptoms=shared_symptoms,
    )


def classify(
    kg: MentalKG, groups: tuple[SampledGroup, ...], exclude: set[str]
) -> dict[str, list[OptionEntry]]:
    """Every disorder not in `exclude`, by distractor class (KG order within a class)."""
    classes: dict[str, list[OptionEntry]] = {
        "highly_likely": [],
        "moderately_likely": [],
        "less_likely": [],
    }
    for code in kg.disorders:
        if code not in exclude:
            option = describe_option(kg, groups, code)
            classes[option.kind].append(option)
    return classes


def single_answer_options(
    kg: MentalKG, code: str, groups: tuple[SampledGroup, ...], rng: random.Random
) -> tuple[OptionEntry, ...]:
    """Types 1-2: the answer and three distractors by priority, in shuffled order."""
    classes = classify(kg, groups, {code})
    chosen: list[OptionEntry] = []
    for kind in ("highly_likely", "moderately_likely", "less_likely"):
        pool = list(classes[kind])
        rng.shuffle(pool)
        chosen += pool[: DISTRACTORS - len(chosen)]
    if len(chosen) < DISTRACTORS:
        raise MentalKGError(f"{code}: MentalKG has too few other disorders for three distractors")
    options = [OptionEntry(code=code, name=kg.disorder(code).name, kind="answer"), *chosen]
    rng.shuffle(options)
    return tuple(options)


def pair_options(
    kg: MentalKG, main: str, sub: str, groups: tuple[SampledGroup, ...], rng: random.Random
) -> tuple[OptionEntry, ...]:
    """Types 3-4: main, differential, a moderately and a less likely distractor, shuffled."""
    classes = classify(kg, groups, {main, sub})
    moderate, less = classes["moderately_likely"], classes["less_likely"]
    if moderate and less:
        distractors = [rng.choice(moderate), rng.choice(less)]
    elif len(less) >= 2:
        distractors = rng.sample(less, 2)
    else:
        raise MentalKGError(
            f"{main}-{sub}: MentalKG has too few moderately or less likely disorders for the "
            "two distractors of a pair"
        )
    options = [
        OptionEntry(code=main, name=kg.disorder(main).name, kind="answer"),
        describe_option(kg, groups, sub, kind="differential"),
        *distractors,
    ]
    rng.shuffle(options)
    return tuple(options)

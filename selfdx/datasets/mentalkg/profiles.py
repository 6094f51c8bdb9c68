"""Sampling case profiles for generated MentalBench cases, seeded and reproducible.

`sample_profiles(kg, variants, n, seed)` returns `n` profiles per type variant (`1`, `2`, `3`,
`4a`, `4b`), laid out as MentalBench is:

- Cases come in seed groups of `variants_per_seed` (at most 5) consecutive ids that share one
  seed profile (symptoms, criteria, options) and differ in the expression of each symptom and
  the persona. Ids keep MentalBench's numbering of five per seed (`l001`-`l005` is seed 1,
  `l006`-`l010` seed 2), so `selfdx/mentalbench` clusters them correctly.
- Seed groups go to disorders (Types 1-2) or directed pairs (Types 3-4) in turn, in a seeded
  random order of all 23 disorders or 87 pairs (or those chosen with `disorders`).
- Types 3, 4a and 4b of one id are the same case (profile, options, persona) with a different
  key, and their seed profile is seed j of the main disorder's Type 2 profiles, as published.
  The interview's sampled cases ask for `comorbid=True`: their Type 3 keeps the id's options
  and persona but shows a comorbid profile (`comorbid_seed`) that holds both keyed disorders'
  full criteria, since a patient keyed with two diagnoses should be able to support both.

Each piece is drawn from its own generator seeded by `seed` and what it is for (e.g. the
Type 2 seed 3 of D005), so a profile never depends on `n` or on the other variants asked for.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from selfdx.arguments import PositiveInt, checked
from selfdx.datasets.mentalbench.schema import VARIANTS
from selfdx.datasets.mentalkg.entities import MentalKG, duration_days
from selfdx.datasets.mentalkg.exclusions import ANY_OTHER, exclusions_of
from selfdx.datasets.mentalkg.options import pair_options, single_answer_options
from selfdx.datasets.mentalkg.personas import sample_persona
from selfdx.datasets.mentalkg.profile_schema import (
    ID_LETTER,
    IDS_PER_SEED,
    TIER,
    CaseProfile,
    OptionEntry,
    PairInfo,
    SampledCriteria,
    SampledGroup,
    SeedProfile,
)
from selfdx.datasets.mentalkg.sampling import (
    duration_window,
    express,
    format_days,
    full_seed,
    group_duration,
    partial_seed,
    sample_days,
)
from selfdx.errors import ArgumentError

MAX_ID = 999  # MentalBench ids have three digits


def rng_for(seed: int, *purpose: object) -> random.Random:
    """A generator for one purpose, independent of every other draw."""
    return random.Random("|".join(str(part) for part in (seed, *purpose)))


def seed_profile(kg: MentalKG, code: str, completeness: str, index: int, seed: int) -> SeedProfile:
    rng = rng_for(seed, completeness, code, index)
    return full_seed(kg, code, rng) if completeness == "full" else partial_seed(kg, code, rng)


def units_for(kg: MentalKG, tier: str, disorders: Sequence[str] | None) -> list[str]:
    """Disorder codes (low, medium) or pair codes `main-sub` (high), optionally filtered:
    a disorder code selects itself and every pair it belongs to; a pair code selects the pair."""
    if tier == "high":
        units = [differential.id for differential in kg.differentials.values()]
    else:
        units = list(kg.disorders)
    if disorders is None:
        return units
    chosen = [u for u in units if any(d == u or d in u.split("-") for d in disorders)]
    if not chosen:
        raise ArgumentError(f"disorders: {list(disorders)} select nothing for the {tier} tier")
    return chosen


def plan(
    units: list[str], n: int, variants_per_seed: int, rng: random.Random
) -> list[tuple[str, int, int]]:
    """(unit, seed index, id number) for `n` cases, seed groups dealt out over `units`."""
    order = list(units)
    rng.shuffle(order)
    cases = []
    for case in range(n):
        group, within = divmod(case, variants_per_seed)
        unit = order[group % len(order)]
        index = group // len(order) + 1
        number = (index - 1) * IDS_PER_SEED + within + 1
        if number > MAX_ID:
            raise ArgumentError(
                f"n: {n} cases give {unit} more than {MAX_ID} ids; ask for fewer cases or "
                "more disorders"
            )
        cases.append((unit, index, number))
    return cases


def relabel(options: tuple[OptionEntry, ...], target: tuple[str, ...], pair: tuple[str, str]):
    """Pair options for one variant: keyed members are `answer`, the other one `differential`."""
    return tuple(
        option.model_copy(update={"kind": "answer" if option.code in target else "differential"})
        if option.code in pair
        else option
        for option in options
    )


def single_profile(
    kg: MentalKG, variant: str, code: str, index: int, number: int, seed: int
) -> CaseProfile:
    tier = TIER[variant]
    completeness = "full" if variant == "1" else "partial"
    base = seed_profile(kg, code, completeness, index, seed)
    options = single_answer_options(
        kg, code, base.groups, rng_for(seed, "options", tier, code, index)
    )
    number_text = f"{ID_LETTER[tier]}{number:03d}"
    rng = rng_for(seed, "express", tier, code, number_text)
    symptoms, criteria = express(kg, base, rng)
    return CaseProfile(
        variant=variant,
        code=code,
        number=number_text,
        seed_index=index,
        disorder=code,
        disorder_name=kg.disorder(code).name,
        target=(code,),
        groups=base.groups,
        symptoms=symptoms,
        criteria=criteria,
        options=options,
        persona=sample_persona(rng),
        shortfalls=base.shortfalls,
    )


def illness_window(kg: MentalKG, codes: Sequence[str]) -> tuple[int, int] | None:
    """The illness durations (days) that every disorder of `codes` accepts, None when none of
    them sets one. A disorder whose minimum a DSM-5 exclusion makes strict (PTSD's month) starts
    a day later. The window is empty (low > high) when the disorders' durations do not meet."""
    windows = []
    for code in codes:
        criteria = kg.disorder(code).criteria
        if criteria.min_days is None and criteria.max_days is None:
            continue
        low, high = duration_window(criteria.min_days, criteria.max_days)
        if criteria.min_days is not None and any(
            row.longer_than_minimum for row in exclusions_of(code)
        ):
            low = criteria.min_days + 1
        windows.append((low, high))
    if not windows:
        return None
    return max(low for low, _ in windows), min(high for _, high in windows)


def co_occurrence_conflicts(kg: MentalKG, main: str, sub: str) -> list[str]:
    """Why no profile can meet both disorders' criteria (empty when one can): a DSM-5
    exclusion of one that the other's criteria set off (its disorder, or a group it requires),
    illness durations that do not meet, impairment asked for by one and ruled out by the
    other, two kinds of stressor (one is told), or a group one requires that would turn the
    other into a third disorder (ADHD's presentations)."""
    conflicts = []
    for code, other in ((main, sub), (sub, main)):
        needed = set(kg.disorder(other).required_groups)
        for row in exclusions_of(code):
            if other in row.disorders or ANY_OTHER in row.disorders or needed & set(row.groups):
                conflicts.append(f"{code}: {row.dsm5}")
        for name in needed & set(kg.disorder(code).optional_groups):
            if kg.completing_disorders(code, name):
                conflicts.append(f"{code}: {name} complete makes it another disorder")
    window = illness_window(kg, (main, sub))
    if window is not None and window[0] > window[1]:
        conflicts.append("their illness durations do not meet")
    first, second = (kg.disorder(code).criteria for code in (main, sub))
    impairment = {first.functional_impairment_required, second.functional_impairment_required}
    if {True, False} <= impairment:
        conflicts.append("one requires functional impairment, the other rules it out")
    traumatic = first.traumatic_stressor_required or second.traumatic_stressor_required
    if traumatic and (
        first.psychosocial_stressor_required or second.psychosocial_stressor_required
    ):
        conflicts.append("one requires a traumatic stressor, the other a psychosocial one")
    return conflicts


def merged_days(
    seeds: Sequence[SeedProfile], window: tuple[int, int] | None, rng: random.Random
) -> int | None:
    """One illness duration for a comorbid profile: the longest seed duration both disorders
    accept, else one drawn from their common window, else (no common window) the main's."""
    if window is None:
        return None
    low, high = window
    stated = [duration_days(s.criteria.duration) for s in seeds if s.criteria.duration]
    fitting = [days for days in stated if low <= days <= high]
    if fitting:
        return max(fitting)
    if low <= high:
        return sample_days(low, high, rng)
    return stated[0] if stated else None


def merged_groups(
    kg: MentalKG, seeds: Sequence[SeedProfile], days: int | None, rng: random.Random
) -> tuple[SampledGroup, ...]:
    """The union of the seeds' groups (main's first): a group both hold keeps the larger symptom
    set and is required when either disorder requires it; a group duration longer than the
    illness is drawn again within it (where the group's minimum allows)."""
    chosen: dict[str, SampledGroup] = {}
    for seed_ in seeds:
        for group in seed_.groups:
            held = chosen.get(group.name)
            required = group.required or (held is not None and held.required)
            if held is None or len(group.symptoms) > len(held.symptoms):
                held = group
            chosen[group.name] = held.model_copy(update={"required": required})
    for name, group in chosen.items():
        minimum = kg.groups[name].min_days
        if (
            group.duration
            and days is not None
            and minimum is not None
            and minimum <= days < duration_days(group.duration)
        ):
            duration = group_duration(kg.groups[name], days, rng)
            chosen[name] = group.model_copy(update={"duration": duration})
    return tuple(chosen.values())


def merged_criteria(kg: MentalKG, main: str, sub: str, days: int | None) -> SampledCriteria:
    """Both disorders' criteria stated at once: impairment where either asks for it, the
    stressor either needs (the main's kind where they differ: one stressor is told), and every
    additional requirement of both."""
    first, second = (kg.disorder(code).criteria for code in (main, sub))
    impairment = first.functional_impairment_required
    if impairment is None:
        impairment = second.functional_impairment_required
    traumatic = first.traumatic_stressor_required or second.traumatic_stressor_required
    psychosocial = first.psychosocial_stressor_required or second.psychosocial_stressor_required
    if traumatic and psychosocial:
        traumatic = first.traumatic_stressor_required
        psychosocial = not traumatic
    return SampledCriteria(
        duration=format_days(days) if days is not None else None,
        functional_impairment=impairment,
        traumatic_stressor=traumatic,
        psychosocial_stressor=psychosocial,
        additional_requirements=tuple(
            dict.fromkeys((*first.additional_requirements, *second.additional_requirements))
        ),
    )


def comorbid_seed(kg: MentalKG, main: str, sub: str, index: int, seed: int) -> SeedProfile:
    """A Type 3 seed that meets both disorders: the union of a full seed of each (each from
    its own generator), one illness duration both accept, both disorders' criteria stated."""
    pair = f"{main}-{sub}"
    seeds = [
        full_seed(kg, code, rng_for(seed, "comorbid", pair, index, code)) for code in (main, sub)
    ]
    rng = rng_for(seed, "comorbid", pair, index, "merge")
    days = merged_days(seeds, illness_window(kg, (main, sub)), rng)
    return SeedProfile(
        disorder=main,
        completeness="full",
        groups=merged_groups(kg, seeds, days, rng),
        criteria=merged_criteria(kg, main, sub, days),
    )


def pair_profiles(
    kg: MentalKG,
    variants: Iterable[str],
    pair: str,
    index: int,
    number: int,
    seed: int,
    comorbid: bool = False,
) -> list[CaseProfile]:
    """The Types 3/4a/4b cases of one id of a pair: one profile, three keys. With `comorbid`,
    Type 3 shows `comorbid_seed` instead (same options and persona), stating its criteria."""
    main, sub = pair.split("-")
    differential = kg.differential(main, sub)
    base = seed_profile(kg, main, "partial", index, seed)
    options = pair_options(
        kg, main, sub, base.groups, rng_for(seed, "options", "high", pair, index)
    )
    number_text = f"h{number:03d}"
    rng = rng_for(seed, "express", "high", pair, number_text)
    symptoms, _ = express(kg, base, rng)
    persona = sample_persona(rng)
    info = PairInfo(
        main=main,
        sub=sub,
        condition=differential.condition,
        key_difference=differential.key_difference,
        rule_main=differential.rule_for(main),
        rule_sub=differential.rule_for(sub),
        requirements_main=kg.disorder(main).criteria.additional_requirements,
        requirements_sub=kg.disorder(sub).criteria.additional_requirements,
    )
    targets = {"3": (main, sub), "4a": (main,), "4b": (sub,)}
    profiles = [
        CaseProfile(
            variant=variant,
            code=pair,
            number=number_text,
            seed_index=index,
            disorder=main,
            disorder_name=kg.disorder(main).name,
            target=targets[variant],
            groups=base.groups,
            symptoms=symptoms,
            criteria=None,
            removed_criteria=base.criteria,
            pair=info,
            options=relabel(options, targets[variant], (main, sub)),
            persona=persona,
            shortfalls=base.shortfalls,
        )
        for variant in variants
    ]
    if not comorbid:
        return profiles
    both = comorbid_seed(kg, main, sub, index, seed)
    shown, criteria = express(kg, both, rng_for(seed, "express", "comorbid", pair, number_text))
    update = {
        "groups": both.groups,
        "symptoms": shown,
        "criteria": criteria,
        "removed_criteria": None,
        "shortfalls": (),
    }
    return [p.model_copy(update=update) if p.variant == "3" else p for p in profiles]


def sample_profiles(
    kg: MentalKG,
    variants: Sequence[str],
    n: int,
    seed: int = 0,
    variants_per_seed: int = IDS_PER_SEED,
    disorders: Sequence[str] | None = None,
    comorbid: bool = False,
) -> list[CaseProfile]:
    """`n` profiles for each variant in `variants`, in variant order, then plan order
    (`comorbid`: Type 3 holds both disorders' criteria, see `pair_profiles`)."""
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown:
        raise ArgumentError(f"types: {unknown[0]!r} is not a MentalBench type variant")
    checked("n", n, PositiveInt, "expected a positive whole number of cases per type")
    if not 1 <= variants_per_seed <= IDS_PER_SEED:
        raise ArgumentError(
            f"variants_per_seed: expected 1 to {IDS_PER_SEED} (MentalBench numbers five ids "
            f"per seed profile), got {variants_per_seed!r}"
        )
    chosen = [v for v in VARIANTS if v in variants]
    profiles: list[CaseProfile] = []
    for variant in (v for v in chosen if v in ("1", "2")):
        tier = TIER[variant]
        units = units_for(kg, tier, disorders)
        for code, index, number in plan(units, n, variants_per_seed, rng_for(seed, "plan", tier)):
            profiles.append(single_profile(kg, variant, code, index, number, seed))
    high = [v for v in chosen if TIER[v] == "high"]
    if high:
        units = units_for(kg, "high", disorders)
        by_variant: dict[str, list[CaseProfile]] = {v: [] for v in high}
        shared = [v for v in high if not (comorbid and v == "3")]
        rounds = [(shared, units)] if shared else []
        if len(shared) < len(high):
            both = [u for u in units if not co_occurrence_conflicts(kg, *u.split("-"))]
            if not both:
                raise ArgumentError(
                    f"disorders: no pair chosen for Type 3 can meet both disorders' criteria "
                    f"({', '.join(units)})"
                )
            rounds.append((["3"], both))
        for asked, pool in rounds:
            for pair, index, number in plan(
                pool, n, variants_per_seed, rng_for(seed, "plan", "high")
            ):
                for profile in pair_profiles(kg, asked, pair, index, number, seed, comorbid):
                    by_variant[profile.variant].append(profile)
        for variant in high:
            profiles += by_variant[variant]
    return profiles

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

Each piece is drawn from its own generator seeded by `seed` and what it is for (e.g. the
Type 2 seed 3 of D005), so a profile never depends on `n` or on the other variants asked for.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from selfdx.arguments import PositiveInt, checked
from selfdx.datasets.mentalbench.schema import VARIANTS
from selfdx.datasets.mentalkg.entities import MentalKG
from selfdx.datasets.mentalkg.options import pair_options, single_answer_options
from selfdx.datasets.mentalkg.personas import sample_persona
from selfdx.datasets.mentalkg.profile_schema import (
    ID_LETTER,
    IDS_PER_SEED,
    TIER,
    CaseProfile,
    OptionEntry,
    PairInfo,
    SeedProfile,
)
from selfdx.datasets.mentalkg.sampling import express, full_seed, partial_seed
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


def pair_profiles(
    kg: MentalKG, variants: Iterable[str], pair: str, index: int, number: int, seed: int
) -> list[CaseProfile]:
    """The Types 3/4a/4b cases of one id of a pair: one profile, three keys."""
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
    return [
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


def sample_profiles(
    kg: MentalKG,
    variants: Sequence[str],
    n: int,
    seed: int = 0,
    variants_per_seed: int = IDS_PER_SEED,
    disorders: Sequence[str] | None = None,
) -> list[CaseProfile]:
    """`n` profiles for each variant in `variants`, in variant order, then plan order."""
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
        for pair, index, number in plan(units, n, variants_per_seed, rng_for(seed, "plan", "high")):
            for profile in pair_profiles(kg, high, pair, index, number, seed):
                by_variant[profile.variant].append(profile)
        for variant in high:
            profiles += by_variant[variant]
    return profiles

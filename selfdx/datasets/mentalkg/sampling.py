"""Seed profiles: which symptoms, durations and criteria a case of a disorder gets.

`full_seed` (Type 1) meets every criterion: each required group reaches its threshold with its
mandatory symptoms, and every disorder-level criterion of the KG is stated. `partial_seed`
(Type 2, reused by Types 3-4) falls short in the ways the published profiles do: some required
groups stay below threshold (possibly missing a mandatory symptom), and the functional-
impairment statement may be left out; at least one such shortfall is always present.
Durations, additional requirements and stressors stay as the KG asks in both.

`express` then turns a seed into what one variant shows: one subtype (or example) per symptom,
the stressor and the impaired domains, drawn from `event.json`.
"""

from __future__ import annotations

import math
import random

from selfdx.datasets.mentalkg.entities import (
    Criteria,
    MentalKG,
    MentalKGError,
    SymptomGroup,
    duration_days,
)
from selfdx.datasets.mentalkg.profile_schema import (
    SampledCriteria,
    SampledGroup,
    SampledSymptom,
    SeedProfile,
    Stressor,
)

EXTRA_FULL = 3  # Type 1 groups carry their threshold plus up to this many symptoms
EXTRA_PARTIAL = 1  # Type 2 groups that are not short carry at most one above threshold
SHORT_GROUP_P = 0.5  # chance that a Type 2 group with threshold >= 2 falls below it
DROP_MANDATORY_P = 0.25  # chance that a short group also loses a mandatory symptom
DROP_FI_P = 0.4  # chance that a Type 2 profile does not state functional impairment
OPTIONAL_GROUP_P = 0.5  # chance that an optional group appears at all
OPEN_ENDED_MONTHS = 24  # a duration with no maximum lies within min .. min + 24 months
NO_MINIMUM_DAYS = 7  # the shortest duration sampled when the KG gives only a maximum
DAYS_PER_MONTH = 30


def format_days(days: int) -> str:
    """A duration in words: `5 days`, `3 weeks`, `8 months`, `1 year and 5 months`."""
    if days < 60:
        if days % 7 == 0:
            weeks = days // 7
            return f"{weeks} week{'s' if weeks > 1 else ''}"
        return f"{days} day{'s' if days > 1 else ''}"
    months = days // DAYS_PER_MONTH
    years, months = divmod(months, 12)
    parts = [f"{years} year{'s' if years > 1 else ''}"] if years else []
    if months or not years:
        parts.append(f"{months} month{'s' if months > 1 else ''}")
    return " and ".join(parts)


def months_to_days(months: int) -> int:
    """Days of a whole-month duration, so that `format_days` reads it back exactly."""
    years, rest = divmod(months, 12)
    return years * 365 + rest * DAYS_PER_MONTH if years else months * DAYS_PER_MONTH


def sample_days(low: int, high: int, rng: random.Random) -> int:
    """A duration in [low, high] days: in whole months when the window allows, else in days."""
    if high < low:
        raise MentalKGError(f"empty duration window: {low} to {high} days")
    first = math.ceil(low / DAYS_PER_MONTH)
    months = [m for m in range(max(first, 2), high // DAYS_PER_MONTH + 1)]
    months = [m for m in months if low <= months_to_days(m) <= high]
    if high - low >= 60 and months:
        return months_to_days(rng.choice(months))
    return rng.randint(low, high)


def duration_window(low: int | None, high: int | None) -> tuple[int, int]:
    low = NO_MINIMUM_DAYS if low is None else low
    if high is None:
        high = low + months_to_days(OPEN_ENDED_MONTHS)
    return low, high


def fill(
    group: SymptomGroup,
    chosen: list[str],
    count: int,
    rng: random.Random,
    avoid: tuple[str, ...] | list[str] = (),
) -> list[str]:
    """`chosen` plus random further pool symptoms (none from `avoid`) up to `count`."""
    rest = [code for code in group.pool if code not in chosen and code not in avoid]
    extra = max(0, min(count - len(chosen), len(rest)))
    return chosen + rng.sample(rest, extra)


def with_one_of(group: SymptomGroup, chosen: list[str], rng: random.Random) -> list[str]:
    """Add one `must_include_one_of` symptom when none is chosen yet."""
    if group.must_include_one_of and not set(chosen) & set(group.must_include_one_of):
        return [*chosen, rng.choice(group.must_include_one_of)]
    return chosen


def at_threshold(group: SymptomGroup, extra: int, rng: random.Random) -> list[str]:
    """Every mandatory symptom and a count from the threshold to `extra` above it."""
    chosen = with_one_of(group, list(group.must_include_all), rng)
    low = max(group.min_count, len(chosen))
    count = rng.randint(low, max(low, min(len(group.pool), group.min_count + extra)))
    return fill(group, chosen, count, rng)


def below_threshold(
    group: SymptomGroup, rng: random.Random, may_drop_mandatory: bool
) -> tuple[list[str], list[str]]:
    """Symptoms short of the threshold (at least one, a third of it or more), and the
    mandatory symptoms left out. A `must_include_one_of` symptom is always kept."""
    high = group.min_count - 1
    count = rng.randint(min(high, max(1, math.ceil(group.min_count / 3))), high)
    mandatory = list(group.must_include_all)
    dropped: list[str] = []
    if mandatory and (
        len(mandatory) > count or (may_drop_mandatory and rng.random() < DROP_MANDATORY_P)
    ):
        keep = rng.sample(mandatory, min(count, len(mandatory) - 1))
        dropped = [code for code in mandatory if code not in keep]
        mandatory = keep
    chosen = with_one_of(group, mandatory, rng)
    return fill(group, chosen, max(count, len(chosen)), rng, avoid=dropped), dropped


def group_duration(group: SymptomGroup, illness_days: int | None, rng: random.Random) -> str | None:
    """A group duration at least the group's minimum and no longer than the whole illness."""
    if group.min_days is None:
        return None
    low, high = duration_window(group.min_days, None)
    if illness_days is not None:
        high = min(high, illness_days)
    return format_days(sample_days(low, high, rng))


def illness_duration(criteria: Criteria, rng: random.Random) -> int | None:
    if criteria.min_days is None and criteria.max_days is None:
        return None
    return sample_days(*duration_window(criteria.min_days, criteria.max_days), rng)


def kg_criteria(criteria: Criteria, days: int | None, keep_fi: bool) -> SampledCriteria:
    return SampledCriteria(
        duration=format_days(days) if days is not None else None,
        functional_impairment=criteria.functional_impairment_required if keep_fi else None,
        traumatic_stressor=criteria.traumatic_stressor_required,
        psychosocial_stressor=criteria.psychosocial_stressor_required,
        additional_requirements=criteria.additional_requirements,
    )


def sampled_group(
    kg: MentalKG,
    name: str,
    required: bool,
    symptoms: list[str],
    days: int | None,
    rng: random.Random,
) -> SampledGroup:
    group = kg.groups[name]
    order = {code: index for index, code in enumerate(kg.symptoms)}
    return SampledGroup(
        name=name,
        required=required,
        symptoms=tuple(sorted(symptoms, key=order.__getitem__)),
        duration=group_duration(group, days, rng),
        functional_impairment=group.functional_impairment_required,
    )


def optional_symptoms(
    kg: MentalKG, code: str, name: str, full: bool, rng: random.Random
) -> list[str] | None:
    """An optional group's symptoms, or None when it is left out.

    It reaches its threshold only in a full profile and only where that would not complete
    another disorder's required groups (see `MentalKG.completing_disorders`)."""
    if rng.random() >= OPTIONAL_GROUP_P:
        return None
    group = kg.groups[name]
    if full and not kg.completing_disorders(code, name):
        return at_threshold(group, EXTRA_FULL, rng)
    if group.min_count < 2:
        return at_threshold(group, 0, rng)
    return below_threshold(group, rng, may_drop_mandatory=False)[0]


def full_seed(kg: MentalKG, code: str, rng: random.Random) -> SeedProfile:
    """Type 1: every required group at or above threshold, every KG criterion stated."""
    disorder = kg.disorder(code)
    days = illness_duration(disorder.criteria, rng)
    groups = []
    for link in disorder.groups:
        if link.required:
            symptoms = at_threshold(kg.groups[link.group], EXTRA_FULL, rng)
        else:
            symptoms = optional_symptoms(kg, code, link.group, full=True, rng=rng)
            if symptoms is None:
                continue
        groups.append(sampled_group(kg, link.group, link.required, symptoms, days, rng))
    criteria = kg_criteria(disorder.criteria, days, keep_fi=True)
    return SeedProfile(disorder=code, completeness="full", groups=tuple(groups), criteria=criteria)


def partial_seed(kg: MentalKG, code: str, rng: random.Random) -> SeedProfile:
    """Type 2: below threshold in some groups and/or without the FI statement (never neither)."""
    disorder = kg.disorder(code)
    days = illness_duration(disorder.criteria, rng)
    shortable = [g for g in disorder.required_groups if kg.groups[g].min_count >= 2]
    has_fi = disorder.criteria.functional_impairment_required is not None
    short = {g for g in shortable if rng.random() < SHORT_GROUP_P}
    drop_fi = has_fi and rng.random() < DROP_FI_P
    if not short and not drop_fi:
        ways = [*shortable, *(["(FI)"] if has_fi else [])]
        if not ways:
            raise MentalKGError(
                f"{code}: no way to sample a partial profile (no group or FI to miss)"
            )
        pick = rng.choice(ways)
        drop_fi = pick == "(FI)"
        short = set() if drop_fi else {pick}
    groups, shortfalls = [], []
    for link in disorder.groups:
        group = kg.groups[link.group]
        if not link.required:
            symptoms = optional_symptoms(kg, code, link.group, full=False, rng=rng)
            if symptoms is None:
                continue
        elif link.group in short:
            symptoms, dropped = below_threshold(group, rng, may_drop_mandatory=True)
            shortfalls.append(f"{link.group}: {len(symptoms)} of {group.min_count} symptoms")
            shortfalls += [f"{link.group}: mandatory {code_} missing" for code_ in dropped]
        else:
            symptoms = at_threshold(group, EXTRA_PARTIAL, rng)
        groups.append(sampled_group(kg, link.group, link.required, symptoms, days, rng))
    if drop_fi:
        shortfalls.append("functional impairment not stated")
    criteria = kg_criteria(disorder.criteria, days, keep_fi=not drop_fi)
    return SeedProfile(
        disorder=code,
        completeness="partial",
        groups=tuple(groups),
        criteria=criteria,
        shortfalls=tuple(shortfalls),
    )


def express_symptom(kg: MentalKG, code: str, rng: random.Random) -> SampledSymptom:
    symptom = kg.symptoms[code]
    if symptom.subtypes:
        name, text = rng.choice(symptom.subtypes)
    else:
        name, text = None, rng.choice(symptom.examples) if symptom.examples else symptom.description
    return SampledSymptom(
        code=code,
        name=symptom.name,
        category=symptom.category,
        description=symptom.description,
        expression_name=name,
        expression=text,
    )


def express_criteria(
    kg: MentalKG, criteria: SampledCriteria, rng: random.Random
) -> SampledCriteria:
    """Add the concrete stressor and the impaired domains (one or two) a variant shows."""
    events = kg.events
    stressor = None
    if criteria.traumatic_stressor:
        exposure, exposure_text = rng.choice(events.trauma_exposures)
        event, event_text = rng.choice(events.trauma_examples)
        stressor = Stressor(
            kind="traumatic",
            event_class=event,
            event_description=event_text,
            exposure=exposure,
            exposure_description=exposure_text,
        )
    elif criteria.psychosocial_stressor:
        event, event_text = rng.choice(events.psychosocial_examples)
        stressor = Stressor(kind="psychosocial", event_class=event, event_description=event_text)
    domains: tuple[str, ...] = ()
    if criteria.functional_impairment:
        labels = [label for _, label in events.impairment_domains]
        domains = tuple(rng.sample(labels, rng.randint(1, 2)))
    return criteria.model_copy(update={"stressor": stressor, "impairment_domains": domains})


def express(
    kg: MentalKG, seed: SeedProfile, rng: random.Random
) -> tuple[tuple[SampledSymptom, ...], SampledCriteria]:
    """One variant of a seed: the expression of each symptom (in KG order) and the criteria."""
    codes = {code for group in seed.groups for code in group.symptoms}
    ordered = [code for code in kg.symptoms if code in codes]
    symptoms = tuple(express_symptom(kg, code, rng) for code in ordered)
    return symptoms, express_criteria(kg, seed.criteria, rng)


def duration_ok(text: str | None, low: int | None, high: int | None) -> bool:
    """Whether a stated duration lies within [low, high] days (None bounds are open)."""
    if text is None:
        return True
    days = duration_days(text)
    return (low is None or days >= low) and (high is None or days <= high)

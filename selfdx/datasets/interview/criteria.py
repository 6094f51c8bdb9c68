"""Whether a set of facts meets a disorder's DSM-5 criteria as MentalKG encodes them.

`criteria_check(kg, code, facts)` returns (met, what falls short). It is used three ways: on
the whole profile (the gold "criteria met" of the disorder an answer names), on the facts
elicited by the time of the answer (a "met" claim without them is premature), and by the
offline interviewer on what it has heard. `needed_fact_ids` names the facts a diagnosis's
criteria look at (the critical facts).

The check, for disorder `code`:

1. every required group is complete: at least `min_count` of its pool, its mandatory
   symptoms, one of its "one of" symptoms, and its duration and impairment where the KG gives
   them (facts `DURATION-<group>`, `IMPAIRMENT-<group>`);
2. an optional group that would complete another disorder (ADHD's other domain) stays below
   its threshold, as MentalKG's sampler keeps it;
3. the disorder-level criteria hold: duration within the KG's limits, impairment, the kind of
   stressor, every additional requirement stated;
4. no DSM-5 exclusion of `selfdx.datasets.mentalkg.exclusions` applies (a complete group or
   another disorder's criteria that rule it out). Exclusions are looked at only once 1-3 hold.
"""

from __future__ import annotations

from collections.abc import Iterable

from selfdx.datasets.interview.facts import Fact
from selfdx.datasets.mentalkg.entities import MentalKG, duration_days
from selfdx.datasets.mentalkg.exclusions import ANY_OTHER, exclusions_of


def stated_days(text: object) -> int | None:
    """Days in a stated duration, or None when there is none or it cannot be read."""
    try:
        return duration_days(text) if isinstance(text, str) and text else None  # type: ignore[arg-type]
    except ValueError:
        return None


class Known:
    """The facts of one check, indexed once: present facts by id and the symptom ids."""

    def __init__(self, facts: Iterable[Fact]) -> None:
        self.by_id: dict[str, Fact] = {
            f.id: f for f in facts if f.kind != "absent" and f.truth == "yes"
        }
        self.symptoms = frozenset(i for i, f in self.by_id.items() if f.kind == "symptom")

    def value(self, fact_id: str) -> object:
        fact = self.by_id.get(fact_id)
        return None if fact is None else fact.value


def group_shortfalls(kg: MentalKG, name: str, known: Known) -> list[str]:
    """What keeps group `name` from being complete (empty when it is)."""
    group = kg.groups[name]
    missing = []
    have = known.symptoms & set(group.pool)
    if len(have) < group.min_count:
        missing.append(f"{name}: {len(have)} of {group.min_count} symptoms")
    lacking = [s for s in group.must_include_all if s not in known.symptoms]
    if lacking:
        missing.append(f"{name}: mandatory {', '.join(lacking)} not established")
    if group.must_include_one_of and not set(group.must_include_one_of) & known.symptoms:
        missing.append(f"{name}: none of {', '.join(group.must_include_one_of)}")
    if group.min_days is not None:
        days = stated_days(known.value(f"DURATION-{name}"))
        if days is None or days < group.min_days:
            missing.append(f"{name}: duration of {group.min_duration} not established")
    if group.functional_impairment_required is not None:
        if known.value(f"IMPAIRMENT-{name}") != group.functional_impairment_required:
            missing.append(f"{name}: impairment not established")
    return missing


def reaches_threshold(kg: MentalKG, name: str, known: Known) -> bool:
    """Whether group `name` holds its threshold of pool symptoms and its mandatory ones."""
    group = kg.groups[name]
    have = known.symptoms & set(group.pool)
    return len(have) >= group.min_count and set(group.must_include_all) <= known.symptoms


def inclusion_shortfalls(kg: MentalKG, code: str, known: Known) -> list[str]:
    """Steps 1-3 of the check: what the disorder's own criteria lack."""
    disorder = kg.disorder(code)
    missing: list[str] = []
    for name in disorder.required_groups:
        missing += group_shortfalls(kg, name, known)
    for name in disorder.optional_groups:
        completes = kg.completing_disorders(code, name)
        if completes and reaches_threshold(kg, name, known):
            missing.append(f"{name} reaches its threshold, which makes it {', '.join(completes)}")
    criteria = disorder.criteria
    if criteria.min_days is not None or criteria.max_days is not None:
        days = stated_days(known.value("DURATION"))
        low, high = criteria.min_days or 0, criteria.max_days
        if days is None or days < low or (high is not None and days > high):
            missing.append("illness duration not established within the KG limits")
    if criteria.functional_impairment_required is not None:
        if known.value("IMPAIRMENT") != criteria.functional_impairment_required:
            missing.append("functional impairment not established")
    for kind, needed in (
        ("traumatic", criteria.traumatic_stressor_required),
        ("psychosocial", criteria.psychosocial_stressor_required),
    ):
        if needed and known.value("STRESSOR") != kind:
            missing.append(f"{kind} stressor not established")
    stated = {f.value for f in known.by_id.values() if f.kind == "requirement"}
    for text in criteria.additional_requirements:
        if text not in stated:
            missing.append(f"requirement not established: {text}")
    return missing


def exclusion_reasons(kg: MentalKG, code: str, known: Known, seen: frozenset[str]) -> list[str]:
    """Step 4: the DSM-5 exclusions that rule `code` out on these facts."""
    reasons = []
    for row in exclusions_of(code):
        if row.longer_than_minimum:
            minimum = kg.disorder(code).criteria.min_days
            days = stated_days(known.value("DURATION"))
            if minimum is not None and days is not None and days <= minimum:
                reasons.append(f"excluded ({row.dsm5})")
        complete = [g for g in row.groups if g in kg.groups and not group_shortfalls(kg, g, known)]
        others = (
            [c for c in kg.disorders if c != code]
            if ANY_OTHER in row.disorders
            else [c for c in row.disorders if c in kg.disorders]
        )
        met = [c for c in others if c not in seen and check(kg, c, known, seen | {code})[0]]
        if complete or met:
            found = ", ".join([*(f"{g} complete" for g in complete), *(f"{c} met" for c in met)])
            reasons.append(f"excluded: {found} ({row.dsm5})")
    return reasons


def check(kg: MentalKG, code: str, known: Known, seen: frozenset[str]) -> tuple[bool, list[str]]:
    missing = inclusion_shortfalls(kg, code, known)
    if not missing:
        missing = exclusion_reasons(kg, code, known, seen)
    return not missing, missing


def criteria_check(kg: MentalKG, code: str, facts: Iterable[Fact]) -> tuple[bool, list[str]]:
    """Whether `facts` meet disorder `code`'s criteria (see the module), and what falls short."""
    return check(kg, code, Known(facts), frozenset({code}))


def needed_fact_ids(kg: MentalKG, code: str, facts: Iterable[Fact]) -> list[str]:
    """The ids of the profile's facts that disorder `code`'s own criteria look at."""
    disorder = kg.disorder(code)
    pools = {s for name in disorder.required_groups for s in kg.groups[name].pool}
    criteria = disorder.criteria
    wanted = {f"DURATION-{g}" for g in disorder.required_groups}
    wanted |= {f"IMPAIRMENT-{g}" for g in disorder.required_groups}
    if criteria.min_days is not None or criteria.max_days is not None:
        wanted.add("DURATION")
    if criteria.functional_impairment_required is not None:
        wanted.add("IMPAIRMENT")
    if criteria.traumatic_stressor_required or criteria.psychosocial_stressor_required:
        wanted.add("STRESSOR")
    required_texts = set(criteria.additional_requirements)
    return [
        fact.id
        for fact in facts
        if (fact.kind == "symptom" and fact.id in pools)
        or fact.id in wanted
        or (fact.kind == "requirement" and fact.value in required_texts)
    ]

"""The rules a case profile obeys, checkable on sampled profiles and on published `features/`.

Both kinds of profile are first reduced to `ProfileFacts` (what was sampled, stated and
offered); `check_profile` then returns the rules a profile breaks, each as `(rule, detail)`.
The rules are those the published MentalBench profiles obey (the gives the
counts), plus `partial` (a Type 2 profile falls short somehow), which this project adds:

- `groups`: sampled groups belong to the disorder, hold 1+ distinct pool symptoms, and every
  required group is present; `one_of`: a `must_include_one_of` symptom is always there;
- `group_attributes`: a group states a duration exactly when the KG gives it a minimum (at
  least that minimum and no longer than the illness) and its FI flag exactly when the KG has one;
- `optional`: an optional group that would complete another disorder stays below threshold;
- `expression`: each symptom shows exactly one KG subtype, or one KG example;
- `threshold` (Type 1): every required group reaches its threshold with its mandatory symptoms;
- `criteria`: Type 1 states every disorder-level criterion of the KG; Type 2 too, except that
  the FI statement may be missing; durations lie within the KG's limits; Types 3-4 state none;
- `pair`: a Type 3-4 profile is a Type 2 profile of the main disorder with the KG's trigger,
  key difference and rules of the differential;
- `options`: four distinct KG disorders including the key; `option_class`: each distractor's
  class matches what it shares with the sampled profile; `option_priority`: Types 1-2 never
  show a lower class while a higher one is left out; Types 3-4 show the pair, one moderately
  and one less likely disorder (two less likely ones when no moderately likely one exists).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from selfdx.datasets.mentalkg.entities import MentalKG, duration_days
from selfdx.datasets.mentalkg.options import classify
from selfdx.datasets.mentalkg.profile_schema import CaseProfile, SampledGroup

CLASS_RANK = {"highly_likely": 0, "moderately_likely": 1, "less_likely": 2}
PUBLISHED_KINDS = {
    "answer": "answer",
    "Highly likely option": "highly_likely",
    "Moderately likely option": "moderately_likely",
    "Less likely option": "less_likely",
    "must_contain_option": "forced",
}


@dataclass
class ProfileFacts:
    """What a profile sampled, stated and offered, whatever its origin."""

    where: str
    tier: str  # low, medium, high
    disorder: str  # whose symptoms are shown (main disorder in high)
    groups: tuple[SampledGroup, ...]
    expressions: dict[str, int]  # symptom -> number of subtypes/examples shown
    expression_known: dict[str, bool]  # symptom -> whether the shown text is from the KG
    criteria: dict[str, Any] | None  # stated disorder-level criteria (None: removed)
    options: list[tuple[str, str]]  # (code, kind) in display order
    pair: tuple[str, str] | None = None
    pair_texts: dict[str, Any] = field(default_factory=dict)
    shortfalls: tuple[str, ...] | None = None  # None when the source does not record them


def facts_from_profile(profile: CaseProfile) -> ProfileFacts:
    """Facts of a sampled profile."""
    criteria = None if profile.criteria is None else profile.criteria.as_stated()
    pair_texts = {}
    if profile.pair is not None:
        p = profile.pair
        pair_texts = {
            "condition": p.condition,
            "key_difference": p.key_difference,
            "rule_main": p.rule_main,
            "rule_sub": p.rule_sub,
        }
    return ProfileFacts(
        where=profile.sample_id,
        tier=profile.tier,
        disorder=profile.disorder,
        groups=profile.groups,
        expressions={s.code: 1 for s in profile.symptoms},
        expression_known={s.code: True for s in profile.symptoms},
        criteria=criteria,
        options=[(o.code, o.kind) for o in profile.options],
        pair=(profile.pair.main, profile.pair.sub) if profile.pair else None,
        pair_texts=pair_texts,
        shortfalls=profile.shortfalls,
    )


def groups_from_published(kg: MentalKG, code: str, raw: dict[str, Any]) -> tuple[SampledGroup, ...]:
    required = set(kg.disorder(code).required_groups)
    return tuple(
        SampledGroup(
            name=name,
            required=name in required,
            symptoms=tuple(entry["symptoms"]),
            duration=entry.get("duration"),
            functional_impairment=entry.get("functional_impairment_required"),
        )
        for name, entry in raw.items()
    )


def expression_facts(kg: MentalKG, raw: dict[str, Any]) -> tuple[dict[str, int], dict[str, bool]]:
    counts, known = {}, {}
    for code, entry in raw.items():
        symptom = kg.symptoms[code]
        if "subtypes" in entry and entry["subtypes"]:
            shown = entry["subtypes"]
            counts[code] = len(shown)
            known[code] = all(dict(symptom.subtypes).get(k) == v for k, v in shown.items())
        else:
            example = entry.get("examples")
            counts[code] = 1 if isinstance(example, str) else 0
            known[code] = example in symptom.examples
    return counts, known


def published_options(kg: MentalKG, option: dict[str, Any]) -> list[tuple[str, str]]:
    return [
        (info["disease_code"], PUBLISHED_KINDS[kind])
        for info, kind in zip(option["options_info"], option["index_types"], strict=True)
    ]


def facts_from_published(kg: MentalKG, key: str, record: dict[str, Any], tier: str) -> ProfileFacts:
    """Facts of one record of a published (or exported) `features/` file."""
    features = record["features"]
    if tier == "high":
        both = features["question_both"]
        sampled = both["sampled_features"]
        main, sub = both["main_disease"], both["sub_disease"]
        counts, known = expression_facts(kg, sampled["sampled_symptoms_descriptions"])
        return ProfileFacts(
            where=key,
            tier=tier,
            disorder=main,
            groups=groups_from_published(kg, main, sampled["sampled_symptom_groups"]),
            expressions=counts,
            expression_known=known,
            criteria=sampled.get("sampled_diagnostic_criteria"),
            options=[
                (code, "differential" if kind == "answer" and code == sub else kind)
                for code, kind in published_options(kg, features["option_both"])
            ],
            pair=(main, sub),
            pair_texts={
                "condition": both["additional_condition"],
                "key_difference": both["key_difference"],
                "rule_main": " ".join(features["question_a"]["rule"]),
                "rule_sub": " ".join(features["question_b"]["rule"]),
                "removed": features.get("_removed_diagnostic_criteria"),
            },
        )
    question = features["question"]
    sampled = question["sampled_features"]
    code = question["disease_code"]
    counts, known = expression_facts(kg, sampled["sampled_symptoms_descriptions"])
    criteria = dict(sampled["sampled_diagnostic_criteria"])
    for stressor in ("traumatic_stressor_required", "psychosocial_stressor_required"):
        if stressor in criteria:
            criteria[stressor] = bool(criteria[stressor])
    return ProfileFacts(
        where=key,
        tier=tier,
        disorder=code,
        groups=groups_from_published(kg, code, sampled["sampled_symptom_groups"]),
        expressions=counts,
        expression_known=known,
        criteria=criteria,
        options=published_options(kg, features["option"]),
    )


def check_groups(kg: MentalKG, facts: ProfileFacts) -> list[tuple[str, str]]:
    broken = []
    disorder = kg.disorder(facts.disorder)
    names = [group.name for group in facts.groups]
    for name in disorder.required_groups:
        if name not in names:
            broken.append(("groups", f"required group {name} is missing"))
    illness = facts.criteria.get("duration") if facts.criteria else None
    for sampled in facts.groups:
        if sampled.name not in disorder.group_names:
            broken.append(("groups", f"{sampled.name} is not a group of {facts.disorder}"))
            continue
        group = kg.groups[sampled.name]
        symptoms = sampled.symptoms
        if (
            not symptoms
            or len(set(symptoms)) != len(symptoms)
            or not set(symptoms) <= set(group.pool)
        ):
            broken.append(
                (
                    "groups",
                    f"{sampled.name}: symptoms {list(symptoms)} are not 1+ distinct pool symptoms",
                )
            )
        if group.must_include_one_of and not set(symptoms) & set(group.must_include_one_of):
            broken.append(("one_of", f"{sampled.name}: none of {list(group.must_include_one_of)}"))
        broken += check_group_attributes(group, sampled, illness)
        if not sampled.required and kg.completing_disorders(facts.disorder, sampled.name):
            if len(symptoms) >= group.min_count:
                broken.append(("optional", f"{sampled.name} reaches its threshold"))
        if facts.tier == "low" and sampled.required:
            if len(symptoms) < group.min_count or not set(group.must_include_all) <= set(symptoms):
                broken.append(
                    ("threshold", f"{sampled.name}: {len(symptoms)} of {group.min_count}")
                )
    return broken


def check_group_attributes(
    group, sampled: SampledGroup, illness: str | None
) -> list[tuple[str, str]]:
    broken = []
    if (sampled.duration is None) != (group.min_duration is None):
        broken.append(("group_attributes", f"{sampled.name}: duration {sampled.duration!r}"))
    elif sampled.duration is not None:
        days = duration_days(sampled.duration)
        if days < (group.min_days or 0) or (illness is not None and days > duration_days(illness)):
            broken.append(
                ("group_attributes", f"{sampled.name}: duration {sampled.duration!r} out of range")
            )
    if sampled.functional_impairment != group.functional_impairment_required:
        broken.append(("group_attributes", f"{sampled.name}: FI {sampled.functional_impairment!r}"))
    return broken


def check_expressions(kg: MentalKG, facts: ProfileFacts) -> list[tuple[str, str]]:
    broken = []
    sampled = {code for group in facts.groups for code in group.symptoms}
    if set(facts.expressions) != sampled:
        broken.append(("expression", "described symptoms differ from the sampled ones"))
    for code, count in facts.expressions.items():
        if count != 1 or not facts.expression_known.get(code, False):
            broken.append(("expression", f"{code}: {count} expressions or one not from the KG"))
    return broken


def check_criteria(kg: MentalKG, facts: ProfileFacts) -> list[tuple[str, str]]:
    criteria = kg.disorder(facts.disorder).criteria
    if facts.tier == "high":
        if facts.criteria:
            return [("criteria", "Types 3-4 state disorder-level criteria")]
        stated = facts.pair_texts.get("removed")
        return [] if stated is None else check_stated(criteria, stated, "medium", facts.disorder)
    return check_stated(criteria, facts.criteria or {}, facts.tier, facts.disorder)


def check_stated(criteria, stated: dict[str, Any], tier: str, code: str) -> list[tuple[str, str]]:
    broken = []
    has_duration = criteria.min_duration is not None or criteria.max_duration is not None
    duration = stated.get("duration")
    if has_duration != (duration is not None):
        broken.append(("criteria", f"{code}: duration {duration!r}"))
    elif duration is not None:
        days = duration_days(duration)
        if (criteria.min_days or 0) > days or (criteria.max_days or days) < days:
            broken.append(("criteria", f"{code}: duration {duration!r} outside the KG limits"))
    fi = stated.get("functional_impairment_required")
    allowed_fi = {criteria.functional_impairment_required}
    if tier != "low":
        allowed_fi.add(None)
    if fi not in allowed_fi:
        broken.append(("criteria", f"{code}: functional impairment {fi!r}"))
    if list(criteria.additional_requirements or []) != list(
        stated.get("additional_requirements") or []
    ):
        broken.append(("criteria", f"{code}: additional requirements differ from the KG"))
    for key, flag in (
        ("traumatic_stressor_required", criteria.traumatic_stressor_required),
        ("psychosocial_stressor_required", criteria.psychosocial_stressor_required),
    ):
        if bool(stated.get(key)) != flag:
            broken.append(("criteria", f"{code}: {key} {stated.get(key)!r}"))
    return broken


def check_pair(kg: MentalKG, facts: ProfileFacts) -> list[tuple[str, str]]:
    if facts.pair is None:
        return []
    main, sub = facts.pair
    if (main, sub) not in kg.differentials:
        return [("pair", f"{main}-{sub} is not a differential of the KG")]
    differential = kg.differentials[(main, sub)]
    expected = {
        "condition": differential.condition,
        "key_difference": differential.key_difference,
        "rule_main": differential.rule_for(main),
        "rule_sub": differential.rule_for(sub),
    }
    return [
        ("pair", f"{key} differs from the KG")
        for key in expected
        if facts.pair_texts.get(key) != expected[key]
    ]


def check_options(kg: MentalKG, facts: ProfileFacts) -> list[tuple[str, str]]:
    codes = [code for code, _ in facts.options]
    keyed = facts.pair if facts.pair else (facts.disorder,)
    if len(codes) != 4 or len(set(codes)) != 4 or not set(keyed) <= set(codes):
        return [("options", f"options {codes} are not four distinct disorders with the key")]
    if any(code not in kg.disorders for code in codes):
        return [("options", f"options {codes} name a disorder outside the KG")]
    classes = classify(kg, facts.groups, set(keyed))
    actual = {option.code: option.kind for kind in classes.values() for option in kind}
    broken = []
    distractors = [(code, kind) for code, kind in facts.options if code not in keyed]
    for code, kind in distractors:
        if kind != "forced" and actual[code] != kind:
            broken.append(("option_class", f"{code} shown as {kind}, shares as {actual[code]}"))
    shown = {code for code, _ in distractors}
    if facts.pair:
        kinds = sorted(actual[code] for code in shown)
        has_moderate = bool(classes["moderately_likely"])
        wanted = ["less_likely", "moderately_likely"] if has_moderate else ["less_likely"] * 2
        if kinds != wanted:
            broken.append(("option_priority", f"pair distractors {kinds}, expected {wanted}"))
        return broken
    if any(kind == "forced" for _, kind in distractors):
        return broken + [("option_priority", "a forced (expert-chosen) distractor")]
    worst = max(CLASS_RANK[actual[code]] for code in shown)
    left = [code for code, kind in actual.items() if code not in shown and CLASS_RANK[kind] < worst]
    if left:
        broken.append(("option_priority", f"{left[0]} ({actual[left[0]]}) left out"))
    return broken


def check_profile(kg: MentalKG, facts: ProfileFacts) -> list[tuple[str, str]]:
    """Every rule the profile breaks, as (rule, detail); empty when it obeys them all."""
    broken = check_groups(kg, facts) + check_expressions(kg, facts)
    broken += check_criteria(kg, facts) + check_pair(kg, facts) + check_options(kg, facts)
    if facts.tier != "low" and facts.shortfalls is not None and not facts.shortfalls:
        broken.append(("partial", "the partial profile falls short nowhere"))
    return broken

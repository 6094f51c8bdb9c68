"""A sampled profile in the published `features/` schema, for the export.

The fields mirror the published generation metadata, spelling included (`categoty`), so that
tools reading the published `features/` files, and `mentalkg_rules.facts_from_published`,
read exported ones too. What the published schema has no place for (persona, stressor
details, impaired domains, shortfalls, style, checks) goes in a separate `selfdx` block.
"""

from __future__ import annotations

from typing import Any

from selfdx.datasets.mentalkg.profile_schema import CaseProfile, OptionEntry, SampledCriteria

KIND_LABELS = {
    "answer": "answer",
    "highly_likely": "Highly likely option",
    "moderately_likely": "Moderately likely option",
    "less_likely": "Less likely option",
    "differential": "must_contain_option",
}


def criteria_block(criteria: SampledCriteria) -> dict[str, Any]:
    block: dict[str, Any] = {}
    if criteria.additional_requirements:
        block["additional_requirements"] = list(criteria.additional_requirements)
    if criteria.functional_impairment is not None:
        block["functional_impairment_required"] = criteria.functional_impairment
    if criteria.duration is not None:
        block["duration"] = criteria.duration
    if criteria.traumatic_stressor:
        block["traumatic_stressor_required"] = {"required": True}
    if criteria.psychosocial_stressor:
        block["psychosocial_stressor_required"] = {"required": True}
    return block


def sampled_features(profile: CaseProfile) -> dict[str, Any]:
    groups: dict[str, Any] = {}
    for group in profile.groups:
        entry: dict[str, Any] = {"symptoms": list(group.symptoms), "name": group.name}
        if group.duration is not None:
            entry["duration"] = group.duration
        if group.functional_impairment is not None:
            entry["functional_impairment_required"] = group.functional_impairment
        groups[group.name] = entry
    descriptions: dict[str, Any] = {}
    for symptom in profile.symptoms:
        entry = {
            "name": symptom.name,
            "categoty": symptom.category,
            "description": symptom.description,
        }
        if symptom.expression_name is not None:
            entry["subtypes"] = {symptom.expression_name: symptom.expression}
        else:
            entry["examples"] = symptom.expression
        descriptions[symptom.code] = entry
    features: dict[str, Any] = {
        "disease_code": profile.disorder,
        "disease_name": profile.disorder_name,
    }
    if profile.criteria is not None:
        features["sampled_diagnostic_criteria"] = criteria_block(profile.criteria)
    features["sampled_symptom_groups"] = groups
    features["sampled_symptoms"] = sorted(profile.symptom_codes)
    features["sampled_symptoms_descriptions"] = descriptions
    return features


def option_block(options: tuple[OptionEntry, ...], target: tuple[str, ...]) -> dict[str, Any]:
    codes = [option.code for option in options]
    info = []
    for option in options:
        entry: dict[str, Any] = {"disease_code": option.code, "disease_name": option.name}
        if option.kind not in ("answer", "differential"):
            if option.shared_groups:
                entry["shared_symptom_groups"] = list(option.shared_groups)
            if option.shared_symptoms:
                entry["shared_symptoms"] = list(option.shared_symptoms)
        info.append(entry)
    return {
        "options": [option.name for option in options],
        "answer_index": [codes.index(code) for code in target],
        "index_types": [KIND_LABELS[option.kind] for option in options],
        "options_info": info,
    }


def single_features(profile: CaseProfile) -> dict[str, Any]:
    """`features` of a Type 1-2 record."""
    return {
        "question": {
            "disease_code": profile.disorder,
            "disease_name": profile.disorder_name,
            "sampled_features": sampled_features(profile),
        },
        "option": option_block(profile.options, profile.target),
    }


def pair_features(profile: CaseProfile) -> dict[str, Any]:
    """`features` of a Type 3-4 record (shared by its 3, 4a and 4b cases)."""
    pair = profile.pair
    if pair is None:
        raise ValueError(f"{profile.sample_id}: a Type {profile.variant} profile without its pair")
    removed = criteria_block(profile.removed_criteria) if profile.removed_criteria else {}
    blocks = {}
    for name, target in (("both", (pair.main, pair.sub)), ("a", (pair.main,)), ("b", (pair.sub,))):
        options = tuple(
            option.model_copy(
                update={"kind": "answer" if option.code in target else "differential"}
            )
            if option.code in (pair.main, pair.sub)
            else option
            for option in profile.options
        )
        blocks[f"option_{name}"] = option_block(options, target)
    return {
        "question_both": {
            "main_disease": pair.main,
            "sub_disease": pair.sub,
            "sampled_features": sampled_features(profile),
            "additional_condition": pair.condition,
            "key_difference": pair.key_difference,
        },
        "question_a": {
            "rule": [pair.rule_main],
            "additional_requirements": list(pair.requirements_main) or None,
        },
        "question_b": {
            "rule": [pair.rule_sub],
            "additional_requirements": list(pair.requirements_sub) or None,
        },
        **blocks,
        "_removed_diagnostic_criteria": removed,
    }


def selfdx_block(profile: CaseProfile) -> dict[str, Any]:
    """What this project records beyond the published schema."""
    criteria = profile.criteria
    return {
        "seed_index": profile.seed_index,
        "persona": profile.persona.model_dump(),
        "shortfalls": list(profile.shortfalls),
        "stressor": criteria.stressor.model_dump() if criteria and criteria.stressor else None,
        "impairment_domains": list(criteria.impairment_domains) if criteria else [],
    }

"""Cases of `selfdx/interview`: a patient profile, its facts, an opening and the answer key.

Three sources give `InterviewCase`s:

- `published`: the MentalBench `features/` records of a `resources/` folder (Types 1 and 2,
  and the high tier as Types 4a and 4b: the same profile, keyed to the main disorder with the
  main disorder's rule, or to its differential with the differential's rule). The features
  are identical across the three case generators (checked in the tests), so each item key
  gives one case; `generator` picks whose narrative `mode=full` may show.
- `sampled`: fresh profiles drawn at run time by `mentalkg_profiles.sample_profiles` with a
  seed (never published, so no model has seen them).
- `demo`: profiles sampled from the small synthetic graph in `demo/interview_demo.json`.

Every case carries its facts (see `interview_facts`), the KG symptoms of its options that the
patient does not have (denied when asked), the gold "criteria met" call from the rule check on
the whole profile, and the ids of the critical facts.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Literal

from inspect_ai.dataset import Sample
from pydantic import BaseModel, ConfigDict

from selfdx.datasets.interview.criteria import criteria_check, needed_fact_ids
from selfdx.datasets.interview.dsm5_flags import dsm5_flags
from selfdx.datasets.interview.facts import (
    UNSURE,
    Fact,
    Truth,
    absent_fact,
    duration_fact,
    impairment_fact,
    missing_requirement_fact,
    requirement_fact,
    stressor_fact,
    symptom_fact,
)
from selfdx.datasets.interview.patient_words import (
    REQUIREMENTS,
    RequirementWords,
    in_spell,
    requirement_identity,
    requirement_words,
)
from selfdx.datasets.interview.risk import with_risk
from selfdx.datasets.interview.risk_levels import fact_level, profile_levels
from selfdx.datasets.mentalbench.schema import VARIANTS_PER_SEED
from selfdx.datasets.mentalkg.entities import MentalKG
from selfdx.errors import SelfdxError

DATA_STORE_KEY = "selfdx:interview_data"  # sample store: the `data` argument of the run
Variant = Literal["1", "2", "3", "4a", "4b"]
DEMOGRAPHICS = re.compile(
    r"\b(an?\s+\d{1,3}[- ]year[- ]old\b.{0,80}?)(?=\s+(?:who|presents|presenting|reports|is|was|"
    r"has|comes|came|with|describes|seeks|sought|referred|arrives)\b|[,.;])",
    re.IGNORECASE,
)


class InterviewCase(BaseModel):
    """One patient to interview: who they are, what they know, and the answer key."""

    model_config = ConfigDict(frozen=True)

    id: str
    source: Literal["published", "sampled", "demo"]
    variant: Variant
    key: str  # MentalBench item key, e.g. `D005_l001` or `D001-D005_h001`
    seed_group: str
    gold: str
    gold_name: str
    option_codes: list[str]
    option_names: list[str]
    demographics: str
    complaint: str  # id of the fact the patient opens with
    facts: list[Fact]
    absent: list[Fact]
    critical: list[str]
    criteria_met: bool
    criteria_missing: list[str]
    narrative: str | None = None
    dsm5_flags: list[str] = []  # where the key departs from DSM-5 (`dsm5_flags`)
    patient_style: str = "plain"  # how the patient talks about itself (`styles`)
    # Type 3: every disorder of the key (main, then sub); `gold` is the first
    answers: list[str] = []

    @property
    def key_codes(self) -> list[str]:
        """The codes a right answer names: both for Type 3, else the one."""
        return list(self.answers) or [self.gold]

    @property
    def tier(self) -> str:
        return {"1": "low", "2": "medium"}.get(self.variant, "high")

    def fact(self, fact_id: str) -> Fact:
        return next(f for f in self.facts if f.id == fact_id)


def seed_group_of(code: str, number: str) -> str:
    """The seed profile an item comes from, as `selfdx/mentalbench` names it."""
    tier, digits = number[0], int(number[1:])
    seed = (digits - 1) // VARIANTS_PER_SEED + 1
    if tier == "h":
        return f"{code.split('-')[0]}-m{seed:02d}"
    return f"{code}-{tier}{seed:02d}"


def demographics_from(narrative: str | None) -> str:
    """`a 34-year-old married male chef` from the opening words of a published narrative."""
    match = DEMOGRAPHICS.search(narrative or "")
    if not match:
        return "an adult patient"
    text = " ".join(match.group(1).split())
    return text[0].lower() + text[1:]


def pick_complaint(kg: MentalKG, gold: str, facts: list[Fact]) -> str:
    """The symptom the patient opens with: a mandatory symptom of the key's first required
    group when one was sampled, else that group's first sampled symptom, else any symptom."""
    symptoms = [f.id for f in facts if f.kind == "symptom"]
    for name in kg.disorder(gold).required_groups:
        group = kg.groups[name]
        for code in (*group.must_include_all, *group.must_include_one_of, *group.pool):
            if code in symptoms:
                return code
    if not symptoms:
        raise SelfdxError(f"interview case for {gold}: the profile has no symptom to open with")
    return symptoms[0]


def requirement_truth(
    key: str, words: RequirementWords, facts: list[Fact], keys: set[str]
) -> Truth:
    """What a patient who lacks requirement `key` says of it: no, yes in its own words (it
    follows from what they have), or not sure (see `RequirementWords`)."""
    if keys & set(words.no_if):
        return "no"
    if any(key in REQUIREMENTS[k].implies for k in keys):
        return "implied"
    groups = {f.group for f in facts if f.group}
    if any(f.id == "STRESSOR" for f in facts):
        groups.add("STRESSOR")
    if not any(f.id == "IMPAIRMENT" and f.value is True for f in facts):
        groups.add("IMPAIRMENT-FREE")

    def holds(condition: tuple[tuple[str, ...], ...]) -> bool:
        return bool(condition) and all(groups & set(names) for names in condition)

    if holds(words.yes_if) and not groups & set(words.yes_unless):
        return "implied"
    return "unsure" if holds(words.unsure_if) else "no"


def absent_facts(kg: MentalKG, option_codes: Sequence[str], facts: list[Fact]) -> list[Fact]:
    """The options' KG symptoms the patient lacks (denied), then their additional
    requirements the patient lacks (denied, affirmed when they follow from what the patient
    has, or not sure of), each once."""
    present = {f.id for f in facts if f.kind == "symptom"}
    codes = {s for code in option_codes if code in kg.disorders for s in kg.symptoms_of(code)}
    order = list(kg.symptoms)
    absent = [absent_fact(kg, s) for s in sorted(codes - present, key=order.index)]
    stated = [f.value for f in facts if f.kind == "requirement"]
    keys = {found[0] for text in stated if (found := requirement_words(str(text)))}
    covered = {requirement_identity(str(text)) for text in stated}
    for code in option_codes:
        if code not in kg.disorders:
            continue
        for index, text in enumerate(kg.disorder(code).criteria.additional_requirements, 1):
            found = requirement_words(text)
            key = found[0] if found else f"{code}/{index}"
            if requirement_identity(text) in covered or key in covered:
                continue
            covered |= {requirement_identity(text), key}
            truth = requirement_truth(key, found[1], facts, keys) if found else "no"
            absent.append(missing_requirement_fact(text, truth, key))
    return absent


# A CONTEXT line that asserts symptoms ("Presence of Manic Symptoms", "Hyperactivity/Impulsivity
# prominent during manic symptoms"), not an event ("Presence of Traumatic Event") or a course.
ASSERTED = re.compile(r"^presence\s+of\s+(?!traumatic)|\bprominent\b", re.IGNORECASE)


def not_denied(kg: MentalKG, key: str, facts: list[Fact], absent: list[Fact]) -> list[Fact]:
    """`absent` with what a pair's CONTEXT line asserts no longer denied: where the line says
    the second disorder's symptoms are present (`ASSERTED`: "Presence of Manic Symptoms"), the
    patient is not sure of each symptom of that disorder's required groups it lacks, instead of
    denying, one by one, what its own profile asserts."""
    context = next((f for f in facts if f.id == "CONTEXT"), None)
    pair = key.partition("_")[0].split("-")
    if context is None or len(pair) != 2 or pair[1] not in kg.disorders:
        return absent
    if not ASSERTED.search(context.topic):
        return absent
    second = kg.disorder(pair[1])
    pools = {s for name in second.required_groups for s in kg.groups[name].pool}
    return [
        f.model_copy(update={"id": f"UNSURE-{code}", "truth": "unsure", "statement": UNSURE})
        if f.kind == "symptom" and f.truth == "no" and (code := f.id.removeprefix("NO-")) in pools
        else f
        for f in absent
    ]


def finish(
    kg: MentalKG,
    *,
    facts: list[Fact],
    gold: str,
    option_codes: list[str],
    psychotic: bool = False,
    irritable: bool = False,
    **fields: Any,
) -> InterviewCase:
    """The case of a profile (`psychotic`: whether its expressions hold a psychotic feature,
    `dsm5_flags.psychotic_feature`; `irritable`: whether its mood is shown as irritable only,
    `dsm5_flags.irritable_mood`)."""
    groups = {f.group for f in facts if f.kind == "symptom" and f.group}
    facts = [
        f.model_copy(update={"statement": in_spell(f.statement, f.group, groups)})
        if f.kind == "symptom"
        else f
        for f in facts
    ]
    met, missing = criteria_check(kg, gold, facts)
    keyed = fields.get("answers") or [gold]
    critical = list(dict.fromkeys(i for code in keyed for i in needed_fact_ids(kg, code, facts)))
    critical += [f.id for f in facts if f.kind == "rule"]
    complaint = pick_complaint(kg, gold, facts)
    absent = not_denied(kg, fields["key"], facts, absent_facts(kg, option_codes, facts))
    facts, absent = with_risk(fields["id"], facts, absent, fields.get("source", "published"))
    symptoms = {f.id for f in facts if f.kind == "symptom"}
    return InterviewCase(
        dsm5_flags=dsm5_flags(keyed, psychotic, symptoms, met, irritable),
        facts=facts,
        gold=gold,
        gold_name=kg.disorder(gold).name,
        option_codes=option_codes,
        option_names=[kg.disorder(code).name for code in option_codes],
        complaint=complaint,
        absent=absent,
        critical=critical,
        criteria_met=met,
        criteria_missing=missing,
        **fields,
    )


# A requirement of an onset in childhood ("several symptoms were present prior to age 12").
CHILDHOOD_ONSET = re.compile(r"\b(?:prior\s+to|before)\s+(?:the\s+)?age\s+\d+|childhood", re.I)


def group_facts(groups: dict[str, Any], criteria: dict[str, Any] | None) -> list[Fact]:
    """Duration and impairment facts of the sampled groups and of the disorder."""
    facts = []
    domains = (criteria or {}).get("impairment_domains") or ()
    for name, entry in groups.items():
        if entry.get("duration"):
            facts.append(duration_fact(entry["duration"], name))
        if entry.get("functional_impairment_required") is not None:
            flag = bool(entry["functional_impairment_required"])
            facts.append(impairment_fact(flag, domains, name))
    if criteria:
        if criteria.get("duration"):
            required = criteria.get("additional_requirements") or []
            onset = any(CHILDHOOD_ONSET.search(str(text)) for text in required)
            facts.append(duration_fact(criteria["duration"], since_childhood=onset))
        if criteria.get("functional_impairment_required") is not None:
            facts.append(impairment_fact(bool(criteria["functional_impairment_required"]), domains))
        for kind in ("traumatic", "psychosocial"):
            if criteria.get(f"{kind}_stressor_required"):
                facts.append(stressor_fact(kind, criteria.get("stressor")))
        for index, text in enumerate(criteria.get("additional_requirements") or [], start=1):
            facts.append(requirement_fact(index, text))
    return facts


def symptom_facts(kg: MentalKG, sampled: dict[str, Any]) -> list[Fact]:
    group_of = {
        code: name
        for name, entry in sampled["sampled_symptom_groups"].items()
        for code in entry["symptoms"]
    }
    facts = []
    for code, entry in sampled["sampled_symptoms_descriptions"].items():
        if code not in kg.symptoms:
            raise SelfdxError(f"interview: symptom {code} is not in MentalKG at {kg.folder}")
        if entry.get("subtypes"):
            expression = next(iter(entry["subtypes"].values()))
        else:
            expression = entry.get("examples") or entry.get("description") or ""
        facts.append(symptom_fact(kg, code, str(expression), group_of.get(code)))
    return facts


def pair_facts(condition: str | None, rule: str | None) -> list[Fact]:
    """The differential's triggering condition (`CONTEXT`) and, for Types 4a and 4b, the rule
    that points to the keyed disorder (`RULE`); Type 3, with both disorders keyed, has none."""
    facts = []
    if condition:
        facts.append(
            Fact(
                id="CONTEXT",
                kind="context",
                statement=f"Something you may want to know: {condition[0].lower()}{condition[1:]}.",
                topic=condition,
            )
        )
    if rule is not None:
        facts.append(
            Fact(id="RULE", kind="rule", statement=f"This is how it is for me: {rule}", topic=rule)
        )
    return facts


def case_to_sample(case: InterviewCase, id_suffix: str = "") -> Sample:
    """An Inspect sample: the case (as a dict) in metadata, the key's name as target."""
    return Sample(
        id=f"{case.id}{id_suffix}",
        input=f"Interview {case.demographics} ({case.key})",
        target=case.gold_name,
        choices=case.option_names,
        metadata={
            "case": case.model_dump(),
            "seed_group": case.seed_group,
            "variant": case.variant,
            "source": case.source,
            "gold": case.gold,
            "criteria_met": case.criteria_met,
            "patient_style": case.patient_style,
            "dsm5_flags": case.dsm5_flags,
            # the profile's levels of risk (self, others), and those added to it (sampled cases)
            "risk_levels": profile_levels(case.facts),
            "risk_added": {f.group: fact_level(f) for f in case.facts if f.id.startswith("RISK-")},
        },
    )

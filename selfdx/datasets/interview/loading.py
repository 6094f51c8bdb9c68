"""Loading the interview's cases: published `features/` profiles, fresh sampled ones, the demo,
in the order a run takes them (`interleaved`). See `cases` for what a case is.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from selfdx.datasets.interview.cases import (
    InterviewCase,
    demographics_from,
    finish,
    group_facts,
    pair_facts,
    seed_group_of,
    symptom_facts,
)
from selfdx.datasets.interview.demo_graph import demo_kg, demo_settings, kg_for
from selfdx.datasets.interview.dsm5_flags import irritable_mood, psychotic_feature
from selfdx.datasets.interview.facts import (
    Fact,
    symptom_fact,
)
from selfdx.datasets.mentalbench.sources import find_dataset_dir
from selfdx.datasets.mentalkg.entities import MentalKG
from selfdx.datasets.mentalkg.profile_schema import CaseProfile
from selfdx.datasets.mentalkg.profiles import sample_profiles
from selfdx.datasets.paths import local_path, read_json
from selfdx.errors import ArgumentError, SelfdxError

DEFAULT_SAMPLED = 10  # fresh profiles per type when `n_sampled` is not given


def published_case(
    kg: MentalKG, key: str, record: dict[str, Any], variant: str, generator: str
) -> InterviewCase:
    """A case from one record of a published `features/` file."""
    features = record["features"]
    answers: list[str] = []
    code, _, number = key.rpartition("_")
    if variant in ("1", "2"):
        sampled = features["question"]["sampled_features"]
        gold = features["question"]["disease_code"]
        option = features["option"]
        criteria = dict(sampled.get("sampled_diagnostic_criteria") or {})
        narrative = record.get("question")
        extra: list[Fact] = []
    else:
        both = features["question_both"]
        sampled = both["sampled_features"]
        criteria = None
        side = {"3": "both", "4a": "a", "4b": "b"}[variant]
        gold = both["sub_disease"] if side == "b" else both["main_disease"]
        if side == "both":
            answers = [both["main_disease"], both["sub_disease"]]
        option = features[f"option_{side}"]
        narrative = record.get(f"question_{side}")
        rule = None if side == "both" else " ".join(features[f"question_{side}"]["rule"])
        extra = pair_facts(both.get("additional_condition"), rule)
    facts = symptom_facts(kg, sampled)
    facts += group_facts(sampled["sampled_symptom_groups"], criteria) + extra
    shown = [
        (code, name)
        for code, entry in sampled["sampled_symptoms_descriptions"].items()
        for name in entry.get("subtypes") or {}
    ]
    return finish(
        kg,
        facts=facts,
        gold=gold,
        psychotic=psychotic_feature(kg, [*shown, *((f.id, "") for f in facts)]),
        irritable=irritable_mood(kg, shown),
        option_codes=[info["disease_code"] for info in option["options_info"]],
        id=f"t{variant}-{key}",
        source="published",
        variant=variant,
        key=key,
        seed_group=seed_group_of(code, number),
        demographics=demographics_from(narrative),
        narrative=narrative,
        answers=answers,
    )


def features_files(dataset_dir: Path, variant: str, generator: str) -> list[Path]:
    if variant in ("1", "2"):
        tier = "low" if variant == "1" else "medium"
        return sorted(dataset_dir.glob(f"{tier}/D*/features/main_{generator}.json"))
    return sorted(dataset_dir.glob(f"high/D*/D*/features/main_{generator}.json"))


def read_published(
    kg: MentalKG, path: Path, variants: Sequence[str], generator: str
) -> list[InterviewCase]:
    dataset_dir = find_dataset_dir(path)
    if dataset_dir is None:
        raise ArgumentError(
            f"data: {str(path)!r} is not a MentalBench resources/ folder (expected "
            "dataset/low, dataset/medium and dataset/high below it)"
        )
    cases = []
    for variant in variants:
        files = features_files(dataset_dir, variant, generator)
        if not files:
            raise ArgumentError(
                f"data: no features/main_{generator}.json files for type {variant} under "
                f"{dataset_dir}"
            )
        for file in files:
            where = file.relative_to(dataset_dir).as_posix()
            records = read_json(file, f"MentalBench file {where}", SelfdxError)
            for key, record in records.items():
                try:
                    cases.append(published_case(kg, key, record, variant, generator))
                except (KeyError, TypeError, AttributeError) as exc:
                    raise SelfdxError(
                        f"MentalBench file {where}, item {key}: features field {exc} is "
                        "missing or malformed"
                    ) from exc
    return cases


def profile_case(kg: MentalKG, profile: CaseProfile, source: str, seed: int) -> InterviewCase:
    """A case from a sampled `CaseProfile` (variants 1, 2, 4a, 4b)."""
    groups = {
        g.name: {"duration": g.duration, "functional_impairment_required": g.functional_impairment}
        for g in profile.groups
    }
    group_of = {code: g.name for g in profile.groups for code in g.symptoms}
    facts = [symptom_fact(kg, s.code, s.expression, group_of.get(s.code)) for s in profile.symptoms]
    criteria = None if profile.criteria is None else profile.criteria.as_stated()
    facts += group_facts(groups, criteria)
    if profile.pair is not None:
        pair = profile.pair
        rule = {"3": None, "4a": pair.rule_main}.get(profile.variant, pair.rule_sub)
        facts += pair_facts(pair.condition, rule)
    persona = profile.persona
    prefix = "demo" if source == "demo" else f"sampled-s{seed}"
    return finish(
        kg,
        facts=facts,
        gold=profile.target[0],
        psychotic=psychotic_feature(kg, [(s.code, s.expression) for s in profile.symptoms]),
        irritable=irritable_mood(kg, [(s.code, s.expression) for s in profile.symptoms]),
        option_codes=list(profile.option_codes),
        id=f"{prefix}-t{profile.variant}-{profile.key}",
        source=source,  # type: ignore[arg-type]
        variant=profile.variant,
        key=profile.key,
        seed_group=f"{prefix}-{profile.code.split('-')[0]}-{profile.tier}{profile.seed_index:02d}",
        answers=list(profile.target) if profile.variant == "3" else [],
        demographics=(
            f"a {persona.age}-year-old {persona.gender.lower()} {persona.occupation.lower()} "
            f"({persona.marital_status.lower()})"
        ),
    )


def interleaved(cases: list[InterviewCase]) -> list[InterviewCase]:
    """A fixed order in which every prefix mixes the types and disorders, as MentalBench's
    items are ordered: the k-th case of each type in turn, and within a type the k-th case of
    every disorder (or pair) before the next of any. `--limit N` then runs a little of each,
    where the files' order (Type 1 first, disorder by disorder) would run ADHD alone."""
    by_variant: dict[str, dict[str, list[InterviewCase]]] = {}
    for case in cases:
        by_variant.setdefault(case.variant, {}).setdefault(case.key.split("_")[0], []).append(case)
    queues = []
    for groups in by_variant.values():
        longest = max(len(q) for q in groups.values())
        queues.append([q[k] for k in range(longest) for q in groups.values() if k < len(q)])
    longest = max((len(q) for q in queues), default=0)
    return [q[k] for k in range(longest) for q in queues if k < len(q)]


def sampled_cases(
    kg: MentalKG,
    variants: Sequence[str],
    n: int,
    seed: int,
    source: str = "sampled",
    comorbid: bool = True,
) -> list[InterviewCase]:
    """`n` fresh profiles per variant, one per seed profile, so that they cover `n` disorders
    (or pairs) rather than five variants of a few."""
    try:
        profiles = sample_profiles(
            kg, list(variants), n, seed, variants_per_seed=1, comorbid=comorbid
        )
    except ValueError as exc:
        raise ArgumentError(f"n_sampled: {exc}") from exc
    return [profile_case(kg, p, source, seed) for p in profiles]


def load_cases(
    data: str,
    variants: Sequence[str] = ("1", "2"),
    cases: str = "published",
    n_sampled: int | None = None,
    seed: int | None = None,
    generator: str = "gpt5",
    comorbid: bool = True,
) -> tuple[MentalKG, list[InterviewCase]]:
    """The graph and the cases of a run (see the task's arguments). `n_sampled` and `seed`
    default to 10 and 0, and for the demo to its own settings (4 cases per type, seed 0).
    `comorbid=False` gives sampled Type 3 the shared profile of the id's 4a and 4b (as before
    9-A), the profiles the question check's labels were written on."""
    if data == "demo":
        kg = demo_kg()
        settings = demo_settings()
        n = settings["cases_per_type"] if n_sampled is None else n_sampled
        chosen_seed = settings["seed"] if seed is None else seed
        return kg, sampled_cases(kg, variants, n, chosen_seed, "demo", comorbid)
    path = local_path(data)
    if not path.exists():
        raise ArgumentError(f"data: {data!r} does not exist")
    kg = kg_for(data)
    chosen: list[InterviewCase] = []
    if cases in ("published", "both"):
        chosen += interleaved(read_published(kg, path, variants, generator))
    if cases in ("sampled", "both"):
        n = DEFAULT_SAMPLED if n_sampled is None else n_sampled
        chosen += sampled_cases(kg, variants, n, 0 if seed is None else seed, comorbid=comorbid)
    return kg, chosen

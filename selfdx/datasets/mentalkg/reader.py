"""Reading a MentalKG folder into `MentalKG`, with integrity checks.

Every problem raises `MentalKGError` naming the file, the node and the field: a missing file,
invalid JSON, an unknown or mistyped field, a symptom defined twice, a group defined two
different ways by two disorders, and any reference to a disorder, group or symptom that the
graph does not define (a dangling reference).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from selfdx.datasets.mentalkg.entities import (
    PUBLISHED_COUNTS,
    Criteria,
    Differential,
    Disorder,
    EventVocabulary,
    GroupLink,
    KGCounts,
    MentalKG,
    MentalKGError,
    Symptom,
    SymptomGroup,
    duration_days,
)
from selfdx.datasets.paths import read_json as read_json_file
from selfdx.datasets.paths import shorten, what_is_there

# Longest text accepted anywhere in the graph, keys included (the published longest is 212).
MAX_TEXT_CHARS = 10_000
DISORDER_CODE = re.compile(r"^D\d{3}$")
SYMPTOM_CODE = re.compile(r"^S\d{3}$")
GROUP_FIELDS = frozenset(
    {
        "relation",
        "min_count",
        "symptom_pool",
        "must_include_all",
        "must_include_one_of",
        "min_duration",
        "functional_impairment_required",
    }
)
RELATIONS = {"must_include": True, "include": False}
STRESSORS = {
    "traumatic_stressor_required": "traumatic_event",
    "psychosocial_stressor_required": "psychosocial_stressor",
}
DIFFERENTIAL_FIELDS = frozenset(
    {"differential_diagnosis", "additional_condition", "key_difference", "rules"}
)


def find_kg_folder(path: Path) -> Path:
    """The folder holding `disorder.json`: `path` itself, `path/EN` or `path/knowledge_graph/EN`."""
    if not path.exists():
        raise MentalKGError(
            f"MentalKG path {str(path)!r} does not exist (pass the knowledge_graph/EN folder of a "
            "clone of the MentalBench repository, or a folder above it)"
        )
    for candidate in (path, path / "EN", path / "knowledge_graph" / "EN"):
        if (candidate / "disorder.json").is_file():
            return candidate
    raise MentalKGError(
        f"{path}: no MentalKG there (expected disorder.json, diagnostic_criteria.json, "
        "symptom/, differential_diagnosis/ and event.json in it, in EN/ or in "
        f"knowledge_graph/EN/; found {what_is_there(path)})"
    )


def fail(file: str, node: str, field: str, problem: str) -> MentalKGError:
    """The error for one node and field; long names and values are cut so it stays one line."""
    node, field = (" ".join(shorten(str(text)).split()) for text in (node, field))
    problem = " ".join(shorten(problem, 300).split())
    return MentalKGError(f"MentalKG {file}, node {node}, field '{field}': {problem}")


def read_json(folder: Path, relative: str) -> Any:
    path = folder / relative
    if not path.is_file():
        raise MentalKGError(f"MentalKG at {folder}: {relative} is missing")
    return read_json_file(path, f"MentalKG {relative}", MentalKGError)


def as_object(value: Any, file: str, node: str, field: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise fail(file, node, field, f"expected an object, got {type(value).__name__}")
    return value


def only_fields(entry: dict[str, Any], fields: set[str], file: str, node: str, what: str) -> None:
    """Refuse a field the `what` schema does not have (naming the first, alphabetically)."""
    unknown = set(entry) - fields
    if unknown:
        raise fail(file, node, sorted(unknown)[0], f"is not part of the {what} schema")


def as_text(value: Any, file: str, node: str, field: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise fail(file, node, field, f"expected non-empty text, got {value!r}")
    check_length(value, file, node, field)
    return value.strip()


def check_length(value: str, file: str, node: str, field: str) -> None:
    """Text (a value or a key) within `MAX_TEXT_CHARS`."""
    if len(value) > MAX_TEXT_CHARS:
        raise fail(
            file,
            node,
            field,
            f"{len(value):,} characters, more than the {MAX_TEXT_CHARS:,} a MentalKG text may have",
        )


def as_texts(value: Any, file: str, node: str, field: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not value:
        raise fail(file, node, field, f"expected a non-empty list of text, got {value!r}")
    return tuple(as_text(item, file, node, field) for item in value)


def as_flag(value: Any, file: str, node: str, field: str) -> bool:
    if not isinstance(value, bool):
        raise fail(file, node, field, f"expected true or false, got {value!r}")
    return value


def as_duration(value: Any, file: str, node: str, field: str) -> str:
    text = as_text(value, file, node, field)
    try:
        duration_days(text)
    except ValueError as exc:
        raise fail(file, node, field, str(exc)) from exc
    return text


def as_symptom_codes(
    value: Any, symptoms: dict[str, Symptom], file: str, node: str, field: str
) -> tuple[str, ...]:
    codes = as_texts(value, file, node, field)
    for code in codes:
        if code not in symptoms:
            raise fail(file, node, field, f"symptom {code} is not defined in symptom/*.json")
    if len(set(codes)) != len(codes):
        raise fail(file, node, field, "lists a symptom twice")
    return codes


def read_disorders(folder: Path) -> dict[str, str]:
    content = as_object(read_json(folder, "disorder.json"), "disorder.json", "(file)", "(root)")
    names: dict[str, str] = {}
    for code, entry in content.items():
        if not DISORDER_CODE.match(code):
            raise fail("disorder.json", code, "(key)", "a disorder code looks like D001")
        entry = as_object(entry, "disorder.json", code, "(entry)")
        names[code] = as_text(entry.get("name"), "disorder.json", code, "name")
    if len(set(names.values())) != len(names):
        raise fail("disorder.json", "(file)", "name", "two disorders share one name")
    return names


def read_symptoms(folder: Path) -> dict[str, Symptom]:
    files = sorted((folder / "symptom").glob("*.json"))
    if not files:
        raise MentalKGError(f"MentalKG at {folder}: symptom/ holds no JSON files")
    symptoms: dict[str, Symptom] = {}
    for path in files:
        relative = f"symptom/{path.name}"
        content = as_object(read_json(folder, relative), relative, "(file)", "(root)")
        for code, entry in content.items():
            if not SYMPTOM_CODE.match(code):
                raise fail(relative, code, "(key)", "a symptom code looks like S001")
            if code in symptoms:
                raise fail(relative, code, "(key)", f"already defined in {symptoms[code].source}")
            symptoms[code] = read_symptom(
                code, as_object(entry, relative, code, "(entry)"), relative
            )
    return symptoms


def read_symptom(code: str, entry: dict[str, Any], file: str) -> Symptom:
    only_fields(
        entry, {"name", "category", "description", "subtypes", "examples"}, file, code, "symptom"
    )
    subtypes: tuple[tuple[str, str], ...] = ()
    if "subtypes" in entry:
        raw = as_object(entry["subtypes"], file, code, "subtypes")
        if not raw:
            raise fail(file, code, "subtypes", "is empty")
        subtypes = tuple(
            (as_text(name, file, code, "subtypes"), as_text(text, file, code, "subtypes"))
            for name, text in raw.items()
        )
    examples = as_texts(entry["examples"], file, code, "examples") if "examples" in entry else ()
    return Symptom(
        code=code,
        name=as_text(entry.get("name"), file, code, "name"),
        category=as_text(entry.get("category"), file, code, "category"),
        description=as_text(entry.get("description"), file, code, "description"),
        subtypes=subtypes,
        examples=examples,
        source=file,
    )


def read_group(
    name: str, entry: dict[str, Any], symptoms: dict[str, Symptom], node: str
) -> tuple[SymptomGroup, bool]:
    file = "diagnostic_criteria.json"
    only_fields(entry, GROUP_FIELDS, file, node, "symptom-group")
    relation = entry.get("relation")
    if not isinstance(relation, str) or relation not in RELATIONS:
        raise fail(file, node, "relation", f"expected must_include or include, got {relation!r}")
    pool = as_symptom_codes(entry.get("symptom_pool"), symptoms, file, node, "symptom_pool")
    must_all = must_one = ()
    if "must_include_all" in entry:
        must_all = as_symptom_codes(
            entry["must_include_all"], symptoms, file, node, "must_include_all"
        )
    if "must_include_one_of" in entry:
        must_one = as_symptom_codes(
            entry["must_include_one_of"], symptoms, file, node, "must_include_one_of"
        )
    full_pool = tuple(dict.fromkeys((*pool, *must_all, *must_one)))
    min_count = entry.get("min_count")
    if isinstance(min_count, bool) or not isinstance(min_count, int):
        raise fail(file, node, "min_count", f"expected a whole number, got {min_count!r}")
    if not 1 <= min_count <= len(full_pool):
        raise fail(file, node, "min_count", f"{min_count} is not between 1 and the pool size")
    if len(must_all) > min_count:
        raise fail(file, node, "must_include_all", "lists more symptoms than min_count")
    group = SymptomGroup(
        name=name,
        min_count=min_count,
        pool=full_pool,
        must_include_all=must_all,
        must_include_one_of=must_one,
        min_duration=(
            as_duration(entry["min_duration"], file, node, "min_duration")
            if "min_duration" in entry
            else None
        ),
        functional_impairment_required=(
            as_flag(
                entry["functional_impairment_required"],
                file,
                node,
                "functional_impairment_required",
            )
            if "functional_impairment_required" in entry
            else None
        ),
    )
    return group, RELATIONS[relation]


def read_criteria(
    names: dict[str, str], symptoms: dict[str, Symptom], folder: Path
) -> tuple[dict[str, Disorder], dict[str, SymptomGroup]]:
    file = "diagnostic_criteria.json"
    content = as_object(read_json(folder, file), file, "(file)", "(root)")
    for code in names:
        if code not in content:
            raise fail(file, code, "(entry)", "the disorder of disorder.json has no criteria")
    disorders: dict[str, Disorder] = {}
    groups: dict[str, SymptomGroup] = {}
    first_user: dict[str, str] = {}
    for code, entry in content.items():
        if code not in names:
            raise fail(file, code, "(key)", "is not a disorder of disorder.json")
        entry = as_object(entry, file, code, "(entry)")
        if entry.get("name") != names[code]:
            raise fail(file, code, "name", f"{entry.get('name')!r} differs from disorder.json")
        required = as_object(entry.get("required_criteria"), file, code, "required_criteria")
        links: list[GroupLink] = []
        attributes: dict[str, Any] = {}
        for key, value in required.items():
            check_length(key, file, code, "required_criteria")
            if not isinstance(value, dict):
                attributes[key] = value
                continue
            group, is_required = read_group(key, value, symptoms, f"{code}/{key}")
            if key in groups and groups[key] != group:
                raise fail(
                    file,
                    f"{code}/{key}",
                    "(group)",
                    f"defined differently from the same group in {first_user[key]}",
                )
            groups.setdefault(key, group)
            first_user.setdefault(key, code)
            links.append(GroupLink(key, is_required))
        if not any(link.required for link in links):
            raise fail(file, code, "required_criteria", "has no required symptom group")
        disorders[code] = Disorder(
            code=code,
            name=names[code],
            groups=tuple(links),
            criteria=read_attributes(attributes, code),
        )
    return disorders, groups


def read_attributes(attributes: dict[str, Any], code: str) -> Criteria:
    file = "diagnostic_criteria.json"
    known = {"min_duration", "max_duration", "functional_impairment_required"}
    known |= {"additional_requirements", *STRESSORS}
    unknown = set(attributes) - known
    if unknown:
        raise fail(file, code, sorted(unknown)[0], "is not a known disorder-level criterion")
    for key, expected in STRESSORS.items():
        if key in attributes and attributes[key] != expected:
            raise fail(file, code, key, f"expected {expected!r}, got {attributes[key]!r}")
    get = attributes.get
    criteria = Criteria(
        min_duration=as_duration(get("min_duration"), file, code, "min_duration")
        if "min_duration" in attributes
        else None,
        max_duration=as_duration(get("max_duration"), file, code, "max_duration")
        if "max_duration" in attributes
        else None,
        functional_impairment_required=as_flag(
            get("functional_impairment_required"), file, code, "functional_impairment_required"
        )
        if "functional_impairment_required" in attributes
        else None,
        traumatic_stressor_required="traumatic_stressor_required" in attributes,
        psychosocial_stressor_required="psychosocial_stressor_required" in attributes,
        additional_requirements=as_texts(
            get("additional_requirements"), file, code, "additional_requirements"
        )
        if "additional_requirements" in attributes
        else (),
    )
    low, high = criteria.min_days, criteria.max_days
    if low is not None and high is not None and low > high:
        raise fail(file, code, "max_duration", "is shorter than min_duration")
    return criteria


def read_differentials(
    disorders: dict[str, Disorder], folder: Path
) -> dict[tuple[str, str], Differential]:
    differentials: dict[tuple[str, str], Differential] = {}
    for path in sorted((folder / "differential_diagnosis").glob("*.json")):
        relative = f"differential_diagnosis/{path.name}"
        content = as_object(read_json(folder, relative), relative, "(file)", "(root)")
        for main, entries in content.items():
            if main != path.stem:
                raise fail(relative, main, "(key)", f"a file {path.name} should hold {path.stem}")
            if main not in disorders:
                raise fail(relative, main, "(key)", "is not a disorder of disorder.json")
            if not isinstance(entries, list):
                raise fail(relative, main, "(entry)", "expected a list of differentials")
            for index, entry in enumerate(entries, start=1):
                node = f"{main} entry {index}"
                differential = read_differential(main, entry, disorders, relative, node)
                key = (differential.main, differential.sub)
                if key in differentials:
                    raise fail(relative, differential.id, "differential_diagnosis", "repeated")
                differentials[key] = differential
    return differentials


def read_differential(
    main: str, entry: Any, disorders: dict[str, Disorder], file: str, node: str
) -> Differential:
    entry = as_object(entry, file, node, "(entry)")
    only_fields(entry, DIFFERENTIAL_FIELDS, file, node, "differential")
    sub = entry.get("differential_diagnosis")
    if not isinstance(sub, str) or sub not in disorders:
        raise fail(file, node, "differential_diagnosis", f"{sub!r} is not a disorder")
    if sub == main:
        raise fail(file, node, "differential_diagnosis", "names the main disorder itself")
    node = f"{main}-{sub}"
    condition = as_text(entry.get("additional_condition"), file, node, "additional_condition")
    rules = as_object(entry.get("rules"), file, node, "rules")
    if set(rules) != {main, sub}:
        raise fail(file, node, "rules", f"expected rules for {main} and {sub}, got {sorted(rules)}")
    return Differential(
        main=main,
        sub=sub,
        condition=None if condition == "None" else condition,
        key_difference=as_text(entry.get("key_difference"), file, node, "key_difference"),
        rules=tuple(
            (code, as_texts(rules[code], file, node, f"rules.{code}")) for code in (main, sub)
        ),
        source=file,
    )


def read_events(folder: Path) -> EventVocabulary:
    file = "event.json"
    content = as_object(read_json(folder, file), file, "(file)", "(root)")

    def pairs(node: str, field: str) -> tuple[tuple[str, str], ...]:
        entry = as_object(content.get(node), file, node, "(entry)")
        table = as_object(entry.get(field), file, node, field)
        if not table:
            raise fail(file, node, field, "is empty")
        return tuple(
            (as_text(k, file, node, field), as_text(v, file, node, field)) for k, v in table.items()
        )

    def text(node: str, field: str) -> str:
        return as_text(
            as_object(content.get(node), file, node, "(entry)").get(field), file, node, field
        )

    return EventVocabulary(
        impairment_domains=pairs("functional_impairment_required", "types"),
        trauma_definition=text("traumatic_stressor_required", "description"),
        trauma_exposures=pairs("traumatic_stressor_required", "types"),
        trauma_examples=pairs("traumatic_stressor_required", "examples"),
        psychosocial_definition=text("psychosocial_stressor_required", "description"),
        psychosocial_examples=pairs("psychosocial_stressor_required", "examples"),
    )


def check_symptom_use(groups: dict[str, SymptomGroup], symptoms: dict[str, Symptom]) -> None:
    """Every symptom belongs to some group: an unused symptom node is a broken reference."""
    used = {code for group in groups.values() for code in group.pool}
    for code, symptom in symptoms.items():
        if code not in used:
            raise fail(symptom.source, code, "(node)", "no symptom group uses this symptom")


def read_kg(folder: Path) -> MentalKG:
    """Read every file of a MentalKG folder and check the references between them."""
    names = read_disorders(folder)
    symptoms = read_symptoms(folder)
    disorders, groups = read_criteria(names, symptoms, folder)
    check_symptom_use(groups, symptoms)
    return MentalKG(
        folder=folder,
        disorders=disorders,
        groups=groups,
        symptoms=symptoms,
        differentials=read_differentials(disorders, folder),
        events=read_events(folder),
    )


def load_kg(path: str | Path, expected: KGCounts | None = PUBLISHED_COUNTS) -> MentalKG:
    """Read and check a MentalKG folder (or a folder above `knowledge_graph/EN`).

    `expected` are the node counts the graph must have (the published 23/23/84/87 by default);
    pass None for an extended graph.
    """
    folder = find_kg_folder(Path(path).expanduser())
    kg = read_kg(folder)
    if expected is not None and kg.counts != expected:
        found, wanted = kg.counts, expected
        problems = [
            f"{name}: {getattr(found, name)} (expected {getattr(wanted, name)})"
            for name in ("disorders", "groups", "symptoms", "differentials")
            if getattr(found, name) != getattr(wanted, name)
        ]
        raise MentalKGError(
            f"MentalKG at {folder} does not have the published node counts: " + "; ".join(problems)
        )
    return kg

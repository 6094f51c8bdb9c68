"""MentalKG: the typed model of the published graph, its integrity checks and the networkx view."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest
from inspect_ai.model import ChatMessageUser

from selfdx.datasets.mentalbench.schema import DISORDER_NAMES
from selfdx.datasets.mentalkg.entities import MentalKGError, duration_days
from selfdx.datasets.mentalkg.graph import differentials_of, groups_of, nodes_of_type
from selfdx.datasets.mentalkg.reader import load_kg
from selfdx.providers.choice_policies import kg_overlap, load_profiles
from selfdx.solvers.mentalbench.prompts import render_prompt

KG = Path(__file__).resolve().parents[2] / "shared/mentalbench/resources/knowledge_graph/EN"
pytestmark = pytest.mark.skipif(not KG.is_dir(), reason=f"MentalKG is not at {KG}")

# The 87 directed pairs as listed in the protocol spec (section 1.5), by main disorder.
SPEC_PAIRS = {
    "D001": "D005 D008 D011 D013",
    "D002": "D005 D011 D013",
    "D003": "D005 D008",
    "D004": "D005 D006 D007 D010 D015 D016 D017",
    "D005": "D006 D007 D010 D015 D018",
    "D006": "D005 D010",
    "D007": "D005 D015",
    "D008": "D001 D003 D011 D018",
    "D009": "D001 D003 D008 D011 D018",
    "D010": "D005 D006",
    "D011": "D012 D016 D018 D020",
    "D012": "D005 D016 D018 D021",
    "D013": "D008 D009 D020",
    "D014": "D008 D009 D013",
    "D015": "D005 D007",
    "D016": "D005 D011 D012 D013 D021",
    "D017": "D004 D005 D011 D013 D016 D021",
    "D018": "D001 D002 D005 D011 D013 D016 D019 D020",
    "D019": "D005 D016 D018 D020",
    "D020": "D013",
    "D021": "D005 D013 D016 D017 D022",
    "D022": "D013 D023",
    "D023": "D008 D009 D013 D022",
}


@pytest.fixture(scope="module")
def kg():
    return load_kg(KG)


def test_published_graph_counts_and_names(kg):
    assert (len(kg.disorders), len(kg.groups), len(kg.symptoms), len(kg.differentials)) == (
        23,
        23,
        84,
        87,
    )
    assert {code: d.name for code, d in kg.disorders.items()} == DISORDER_NAMES
    pairs = {(main, sub) for main, subs in SPEC_PAIRS.items() for sub in subs.split()}
    assert set(kg.differentials) == pairs
    # the literal "None" trigger of 18 differentials reads as no trigger
    assert sum(d.condition is None for d in kg.differentials.values()) == 18
    assert sum(len(d.subtypes) for d in kg.symptoms.values()) == 236
    assert sum(bool(d.subtypes) for d in kg.symptoms.values()) == 59
    assert sum(bool(d.examples) for d in kg.symptoms.values()) == 25


def test_loading_from_a_folder_above_the_graph(kg):
    assert load_kg(KG.parents[1]).counts == kg.counts  # resources/ works as well


def test_criteria_as_in_the_spec(kg):
    d002 = kg.disorder("D002")
    assert d002.required_groups == ("inattention",)
    assert d002.optional_groups == ("hyperactivity_impulsivity",)
    assert d002.criteria.min_duration == "6 months"
    assert d002.criteria.additional_requirements == ("Onset prior to age 12 years",)
    assert kg.disorder("D004").criteria.functional_impairment_required is False
    d019 = kg.disorder("D019").criteria
    assert (d019.min_days, d019.max_days, d019.traumatic_stressor_required) == (3, 30, True)
    d020 = kg.disorder("D020").criteria
    assert (d020.min_duration, d020.max_duration) == (None, "6 months")
    assert d020.psychosocial_stressor_required
    manic = kg.groups["manic_episode"]
    assert (manic.min_count, manic.must_include_all, manic.min_days) == (5, ("S033", "S034"), 7)
    assert kg.groups["hypomanic_episode"].functional_impairment_required is False
    assert kg.groups["psychotic_symptoms"].must_include_one_of == ("S019", "S020", "S021")
    optional = [(c, g) for c, d in kg.disorders.items() for g in d.optional_groups]
    assert sorted(optional) == [
        ("D002", "hyperactivity_impulsivity"),
        ("D003", "inattention"),
        ("D006", "depressive_episode"),
        ("D008", "depressive_episode"),
        ("D010", "depressive_episode"),
    ]


def test_differential_rules_by_member(kg):
    d = kg.differential("D001", "D008")
    assert d.condition == "Presence of Manic Symptoms"
    assert "regardless" in d.rule_for("D001")
    assert "exclusively during the course of a manic episode" in d.rule_for("D008")
    with pytest.raises(KeyError, match="D013 is not part of the differential D001-D008"):
        d.rule_for("D013")
    with pytest.raises(KeyError, match="no differential D008-D013"):
        kg.differential("D008", "D013")


def test_graph_view_has_the_published_shape(kg):
    graph = kg.graph
    assert (graph.number_of_nodes(), graph.number_of_edges()) == (217, 332)
    kinds = Counter(data["type"] for _, data in graph.nodes(data=True))
    assert kinds == {"disorder": 23, "symptom_group": 23, "symptom": 84, "differential": 87}
    relations = Counter(
        (graph.nodes[a]["type"], data.get("relation") or data.get("role"))
        for a, b, data in graph.edges(data=True)
    )
    assert relations == {
        ("disorder", "must"): 36,
        ("disorder", "included_in"): 5,
        ("symptom_group", "must"): 31,
        ("symptom_group", "included_in"): 86,
        ("disorder", "main"): 87,
        ("disorder", "sub"): 87,
    }
    assert len(nodes_of_type(graph, "symptom_group")) == 23
    assert groups_of(graph, "D006", required_only=True) == [
        "psychotic_symptoms",
        "manic_episode",
        "delusions_and_hallucinations",
    ]


def test_shared_groups_symptoms_and_differentials(kg):
    assert kg.shared_groups("D006", "D013") == ("depressive_episode",)
    assert kg.shared_groups("D016", "D011") == ()
    # anxiety pool {S056-S061, S027, S029} against D018's pools: only sleep (S027)
    assert kg.shared_symptoms("D011", "D018") == ("S027",)
    assert kg.shared_symptoms("D021", "D022") == ("S045", "S046")
    assert [d.sub for d in kg.differentials_of("D001")] == ["D008", "D005", "D011", "D013"]
    for main, subs in SPEC_PAIRS.items():
        assert sorted(d.sub for d in kg.differentials_of(main)) == subs.split()
    as_sub = Counter(sub for subs in SPEC_PAIRS.values() for sub in subs.split())
    for code in kg.disorders:
        assert len(differentials_of(kg.graph, code, role="sub")) == as_sub[code]
    assert as_sub["D005"] == 14 and as_sub["D014"] == 0


def test_completing_disorders(kg):
    assert kg.completing_disorders("D002", "hyperactivity_impulsivity") == ("D001",)
    assert kg.completing_disorders("D003", "inattention") == ("D001",)
    assert kg.completing_disorders("D008", "depressive_episode") == ()


@pytest.mark.parametrize(
    ("text", "days"),
    [
        ("6 months", 180),
        ("1 week", 7),
        ("4 days", 4),
        ("2 years", 730),
        ("1 year and 5 months", 515),
    ],
)
def test_duration_days(text, days):
    assert duration_days(text) == days


def test_duration_rejects_prose():
    with pytest.raises(ValueError, match="'six months' is not a duration"):
        duration_days("six months")


# ------------------------------------------------------------------------ integrity errors


def broken_copy(tmp_path: Path, relative: str, change) -> Path:
    """A copy of the graph with one JSON file changed by `change(content)`."""
    folder = tmp_path / "EN"
    shutil.copytree(KG, folder)
    path = folder / relative
    content = json.loads(path.read_text(encoding="utf-8"))
    change(content)
    path.write_text(json.dumps(content), encoding="utf-8")
    return folder


def test_dangling_differential_names_file_node_and_field(tmp_path):
    def change(content):
        content["D001"][0]["differential_diagnosis"] = "D099"

    folder = broken_copy(tmp_path, "differential_diagnosis/D001.json", change)
    with pytest.raises(MentalKGError) as error:
        load_kg(folder)
    message = str(error.value)
    assert "differential_diagnosis/D001.json" in message
    assert "node D001 entry 1" in message and "'differential_diagnosis'" in message
    assert "'D099' is not a disorder" in message


def test_dangling_symptom_in_a_group(tmp_path):
    def change(content):
        content["D005"]["required_criteria"]["psychotic_symptoms"]["symptom_pool"].append("S999")

    folder = broken_copy(tmp_path, "diagnostic_criteria.json", change)
    with pytest.raises(
        MentalKGError,
        match=r"diagnostic_criteria.json, node D005/psychotic_symptoms, field 'symptom_pool': "
        r"symptom S999 is not defined",
    ):
        load_kg(folder)


def test_a_shared_group_defined_two_ways(tmp_path):
    def change(content):
        content["D013"]["required_criteria"]["depressive_episode"]["min_count"] = 4

    folder = broken_copy(tmp_path, "diagnostic_criteria.json", change)
    with pytest.raises(MentalKGError, match="node D013/depressive_episode.*same group in D006"):
        load_kg(folder)


def test_symptom_defined_twice(tmp_path):
    def change(content):
        content["S024"] = {"name": "X", "category": "y", "description": "z"}

    folder = broken_copy(tmp_path, "symptom/9ptsd.json", change)
    with pytest.raises(
        MentalKGError,
        match=r"symptom/9ptsd.json, node S024.*already defined in symptom/4depressive_episode",
    ):
        load_kg(folder)


def test_unused_symptom_and_unknown_field(tmp_path):
    def add(content):
        content["S085"] = {"name": "Lonely", "category": "ptsd", "description": "Unused."}

    folder = broken_copy(tmp_path / "a", "symptom/9ptsd.json", add)
    with pytest.raises(MentalKGError, match="node S085.*no symptom group uses this symptom"):
        load_kg(folder)

    def extra(content):
        content["S069"]["severity"] = "high"

    folder = broken_copy(tmp_path / "b", "symptom/9ptsd.json", extra)
    with pytest.raises(MentalKGError, match="node S069, field 'severity'"):
        load_kg(folder)


@pytest.mark.parametrize(
    ("relative", "change", "message"),
    [
        (
            "diagnostic_criteria.json",
            lambda c: c["D011"]["required_criteria"].update(min_duration="six months"),
            r"node D011, field 'min_duration': 'six months' is not a duration",
        ),
        (
            "diagnostic_criteria.json",
            lambda c: c["D012"]["required_criteria"]["phobic_symptoms"].update(min_count=4),
            r"node D012/phobic_symptoms, field 'min_count': 4 is not between 1 and the pool",
        ),
        (
            "diagnostic_criteria.json",
            lambda c: c.pop("D023"),
            r"node D023, field '\(entry\)': the disorder of disorder.json has no criteria",
        ),
        (
            "disorder.json",
            lambda c: c["D005"].update(name="Schizophrenia Spectrum"),
            r"diagnostic_criteria.json, node D005, field 'name'",
        ),
        (
            "differential_diagnosis/D022.json",
            lambda c: c["D022"][0]["rules"].pop("D023"),
            r"node D022-D023, field 'rules': expected rules for D022 and D023",
        ),
        (
            "event.json",
            lambda c: c["traumatic_stressor_required"].pop("examples"),
            r"event.json, node traumatic_stressor_required, field 'examples'",
        ),
    ],
)
def test_bad_fields_name_the_node(tmp_path, relative, change, message):
    with pytest.raises(MentalKGError, match=message):
        load_kg(broken_copy(tmp_path, relative, change))


def test_missing_file_and_counts(tmp_path):
    folder = tmp_path / "EN"
    shutil.copytree(KG, folder)
    (folder / "event.json").unlink()
    with pytest.raises(MentalKGError, match="event.json is missing"):
        load_kg(folder)
    (folder / "event.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(MentalKGError, match="MentalKG event.json: not valid JSON"):
        load_kg(folder)
    shutil.copy(KG / "event.json", folder / "event.json")
    (folder / "differential_diagnosis" / "D020.json").write_text('{"D020": []}', encoding="utf-8")
    with pytest.raises(MentalKGError, match=r"differentials: 86 \(expected 87\)"):
        load_kg(folder)
    assert load_kg(folder, expected=None).counts.differentials == 86  # an extended graph
    with pytest.raises(MentalKGError, match="MentalKG path '.*nowhere' does not exist"):
        load_kg(tmp_path / "nowhere")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("x", encoding="utf-8")
    with pytest.raises(MentalKGError) as error:
        load_kg(tmp_path / "other")
    assert str(error.value).endswith(
        "no MentalKG there (expected disorder.json, diagnostic_criteria.json, symptom/, "
        "differential_diagnosis/ and event.json in it, in EN/ or in knowledge_graph/EN/; found "
        "a folder holding 'notes.txt')"
    )


def test_kg_baseline_reads_the_typed_graph(tmp_path):
    profiles = load_profiles(str(KG))
    assert len(profiles.vocabulary) == 23
    # a stem of a subtype, an example and an additional requirement all count
    assert {"tactil", "homewo", "prior"} <= profiles.vocabulary["Schizophrenia"] | (
        profiles.vocabulary["Attention-Deficit/Hyperactivity Disorder (Combined Presentation)"]
    )

    def change(content):
        content["D001"][0]["differential_diagnosis"] = "D099"

    broken = broken_copy(tmp_path, "differential_diagnosis/D001.json", change)
    prompt = render_prompt("single", "I hear voices.", ["Schizophrenia", "Specific Phobia"])
    with pytest.raises(ValueError, match=r"-M kg=.*node D001 entry 1"):
        kg_overlap([ChatMessageUser(content=prompt)], {"kg": str(broken)})


def edit_json(path: Path, change) -> None:
    content = json.loads(path.read_text(encoding="utf-8"))
    change(content)
    path.write_text(json.dumps(content), encoding="utf-8")


def test_fuzz_findings_and_size_limit_are_named(tmp_path):
    """Found by tests/test_fuzz_loaders.py: a list where a code or relation belongs raised a bare
    TypeError (unhashable type) instead of naming the node; and every text has a size limit."""
    folder = tmp_path / "EN"
    shutil.copytree(KG, folder)
    differentials = folder / "differential_diagnosis" / "D001.json"
    edit_json(differentials, lambda c: c["D001"][0].update(differential_diagnosis=[]))
    with pytest.raises(MentalKGError) as error:
        load_kg(folder)
    assert str(error.value) == (
        "MentalKG differential_diagnosis/D001.json, node D001 entry 1, field "
        "'differential_diagnosis': [] is not a disorder"
    )
    shutil.copy(KG / "differential_diagnosis" / "D001.json", differentials)

    criteria = folder / "diagnostic_criteria.json"
    group = ("D001", "required_criteria", "inattention")

    def set_relation(content):
        content[group[0]][group[1]][group[2]]["relation"] = ["must_include"]

    edit_json(criteria, set_relation)
    with pytest.raises(MentalKGError) as error:
        load_kg(folder)
    assert str(error.value) == (
        "MentalKG diagnostic_criteria.json, node D001/inattention, field 'relation': expected "
        "must_include or include, got ['must_include']"
    )
    shutil.copy(KG / "diagnostic_criteria.json", criteria)

    symptoms = folder / "symptom" / "1adhd_inattention.json"
    edit_json(symptoms, lambda c: c["S001"].update(description="w" * 200_000))
    with pytest.raises(MentalKGError) as error:
        load_kg(folder)
    assert str(error.value) == (
        "MentalKG symptom/1adhd_inattention.json, node S001, field 'description': 200,000 "
        "characters, more than the 10,000 a MentalKG text may have"
    )

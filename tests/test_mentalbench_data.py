"""MentalBench loaders on the full shared copy, the HF CSV schema, the demo set, and bad input."""

from __future__ import annotations

import json
import logging
import shutil
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest

from selfdx.datasets import hub
from selfdx.datasets.mentalbench import sources as mentalbench_sources
from selfdx.datasets.mentalbench.dataset import item_to_sample, load_items, mentalbench_samples
from selfdx.datasets.mentalbench.schema import (
    DISORDER_NAMES,
    MentalBenchDataError,
    MentalBenchItem,
)
from selfdx.datasets.mentalbench.sources import (
    HF_REPO,
    HF_REVISION,
    MentalBenchSourceError,
    read_csv_file,
    read_demo,
)
from selfdx.errors import ArgumentError
from selfdx.instruments.answers.reference_parser import reference_gold
from selfdx.instruments.answers.strict_parser import parse_strict

RESOURCES = Path(__file__).resolve().parents[2] / "shared/mentalbench/resources"
needs_resources = pytest.mark.skipif(
    not (RESOURCES / "dataset").is_dir(),
    reason=f"the MentalBench resources folder is not at {RESOURCES}",
)
TRUNCATED = {
    "t4a-gemini-D001-D013_h022",
    "t4a-gemini-D013-D009_h018",
    "t4b-gemini-D013-D008_h024",
    "t2-qwen235-D003_m042",
    "t2-gemini-D005_m001",
    "t2-gemini-D007_m024",
}


@pytest.fixture(scope="module")
def items() -> list[MentalBenchItem]:
    if not (RESOURCES / "dataset").is_dir():
        pytest.skip(f"the MentalBench resources folder is not at {RESOURCES}")
    return load_items(RESOURCES)


def options_block(options: tuple[str, ...]) -> str:
    """The published layout: a newline, four indented `X. name` lines, four trailing spaces."""
    lines = "".join(f"    {x}. {n}\n" for x, n in zip("ABCD", options, strict=True))
    return f"\n{lines}    "


def to_hf_rows(chosen: list[MentalBenchItem]) -> list[dict[str, str]]:
    """Items written back in the Hugging Face CSV schema (4a/4b not marked, code with `_`)."""
    return [
        {
            "type": f"type{item.type}",
            "code": item.code.replace("-", "_"),
            "model": item.generator,
            "id": item.number,
            "question": item.question,
            "option": options_block(item.options),
            "answer": item.answer,
        }
        for item in chosen
    ]


# ---------------------------------------------------------------------------- the full copy


@needs_resources
def test_counts_per_type_and_generator(items):
    by_type = Counter(item.type for item in items)
    assert dict(by_type) == {1: 1725, 2: 3450, 3: 6525, 4: 13050}
    assert len(items) == 24750
    assert Counter(item.variant for item in items)["4a"] == 6525
    assert Counter(item.variant for item in items)["4b"] == 6525
    assert dict(Counter(item.generator for item in items)) == {
        "gemini": 8250,
        "gpt5": 8250,
        "qwen235": 8250,
    }
    per_generator = Counter((item.generator, item.variant) for item in items)
    for generator in ("gemini", "gpt5", "qwen235"):
        assert [per_generator[(generator, v)] for v in ("1", "2", "3", "4a", "4b")] == [
            575,
            1150,
            2175,
            2175,
            2175,
        ]


@needs_resources
def test_counts_per_disorder_and_pair(items):
    per_code = Counter((item.type, item.code) for item in items)
    assert {per_code[(1, code)] for code in DISORDER_NAMES} == {75}
    assert {per_code[(2, code)] for code in DISORDER_NAMES} == {150}
    pairs = {item.code for item in items if item.type == 3}
    assert len(pairs) == 87
    assert {per_code[(3, pair)] for pair in pairs} == {75}
    assert {per_code[(4, pair)] for pair in pairs} == {150}
    # the published pairs: D018 is the main disorder of 8 pairs, D014 is never a sub
    assert sum(pair.startswith("D018-") for pair in pairs) == 8
    assert not any(pair.endswith("-D014") for pair in pairs)


@needs_resources
def test_type4a_keys_the_main_disorder_and_4b_the_sub(items):
    for item in items:
        keyed = [
            next(c for c, n in DISORDER_NAMES.items() if n == item.options["ABCD".index(x)])
            for x in item.answer_letters
        ]
        main_sub = list(item.codes)
        expected = {"3": main_sub, "4a": main_sub[:1], "4b": main_sub[1:]}.get(item.variant)
        assert keyed == (expected or main_sub), item.sample_id


@needs_resources
def test_the_six_truncated_items_are_found(items):
    flagged = {item.sample_id for item in items if item.truncated}
    assert flagged == TRUNCATED
    shortest = {item.sample_id for item in items if len(item.question) < 403}
    assert shortest == TRUNCATED


@needs_resources
def test_truncated_items_are_left_out_by_default_with_a_logged_count(items, caplog):
    caplog.set_level(logging.WARNING)
    samples = mentalbench_samples(RESOURCES, types=2, generators="gemini")
    assert len(samples) == 1150 - 2  # D005_m001 and D007_m024
    assert "left out 2 truncated" in caplog.text
    assert "t2-gemini-D005_m001" in caplog.text
    kept = mentalbench_samples(RESOURCES, types=2, generators="gemini", include_truncated=True)
    assert len(kept) == 1150
    assert sum(sample.metadata["truncated"] for sample in kept) == 2


@needs_resources
def test_gold_letters_equal_the_released_gold_extraction(items):
    for item in items:
        assert reference_gold(item.answer) == set(item.answer_letters), item.sample_id
        sample = item_to_sample(item)
        assert sample.target == sorted(item.answer_letters)


@needs_resources
def test_published_answers_read_back_by_the_strict_parser(items):
    # a reply in the published answer format must give the gold set (every 7th item: speed)
    for item in items[::7]:
        parsed = parse_strict(item.answer, item.options)
        assert parsed.letters == set(item.answer_letters), (item.sample_id, parsed.reason)


@needs_resources
def test_seed_groups_link_types_3_and_4_to_their_type2_seed(items):
    groups = {item.sample_id: item.seed_group for item in items}
    assert groups["t1-gpt5-D001_l007"] == "D001-l02"
    assert groups["t2-gemini-D001_m005"] == "D001-m01"
    assert groups["t2-gemini-D001_m006"] == "D001-m02"
    assert groups["t3-qwen235-D001-D005_h006"] == "D001-m02"
    assert groups["t4b-gpt5-D013-D009_h025"] == "D013-m05"
    assert len({g for g in groups.values() if "-l" in g}) == 23 * 5
    assert len({g for g in groups.values() if "-m" in g}) == 23 * 10


@needs_resources
def test_sample_metadata(items):
    sample = item_to_sample(next(i for i in items if i.sample_id == "t3-gemini-D001-D005_h001"))
    assert sample.input.startswith('"Yeah, things have been')
    assert sample.choices is not None
    assert sample.choices == [
        "Schizophrenia",
        "Attention-Deficit/Hyperactivity Disorder (Combined Presentation)",
        "Bipolar I Disorder",
        "Adjustment Disorder",
    ]
    assert sample.target == ["A", "B"]
    assert sample.metadata == {
        "type": 3,
        "variant": "3",
        "code": "D001-D005",
        "generator": "gemini",
        "item_key": "D001-D005_h001",
        "item_id": "h001",
        "seed_group": "D001-m01",
        "gold_codes": ["D001", "D005"],
        "option_codes": ["D005", "D001", "D008", "D020"],
        "answer": "B & A. Attention-Deficit/Hyperactivity Disorder (Combined Presentation) "
        "& Schizophrenia",
        "original_letters": ["A", "B", "C", "D"],
        "truncated": False,
    }


@needs_resources
def test_shuffled_options_keep_the_gold_disorders(items):
    item = next(i for i in items if i.sample_id == "t3-gemini-D001-D005_h001")
    first = item_to_sample(item, shuffle_choices=True, seed=3)
    again = item_to_sample(item, shuffle_choices=True, seed=3)
    assert first.choices == again.choices and first.target == again.target
    names = list(first.choices or [])
    assert sorted(names) == sorted(item.options)
    gold_names = {names["ABCD".index(x)] for x in first.target}
    assert gold_names == {"Schizophrenia", DISORDER_NAMES["D001"]}
    assert first.metadata["original_letters"] == [
        "ABCD"[item.options.index(name)] for name in names
    ]
    other_seeds = {tuple(item_to_sample(item, True, s).choices or []) for s in range(8)}
    assert len(other_seeds) > 1


@needs_resources
def test_disorder_names_match_mentalkg():
    kg = json.loads((RESOURCES / "knowledge_graph/EN/disorder.json").read_text(encoding="utf-8"))
    assert {code: entry["name"] for code, entry in kg.items()} == DISORDER_NAMES


# ---------------------------------------------------------------------------- HF schema


@needs_resources
def test_hf_csv_round_trip_recovers_4a_and_4b(items, tmp_path):
    csv_path = tmp_path / "mentalbench.csv"
    pd.DataFrame(to_hf_rows(items)).to_csv(csv_path, index=False)
    from_csv = load_items(csv_path)
    assert len(from_csv) == 24750
    assert [(i.sample_id, i.answer_letters, i.options) for i in from_csv] == [
        (i.sample_id, i.answer_letters, i.options) for i in items
    ]
    assert {i.sample_id for i in from_csv if i.truncated} == TRUNCATED


def test_hf_loader_reads_the_hub_dataset(monkeypatch, tmp_path):
    demo_rows = json.loads(mentalbench_sources.DEMO_FILE.read_text(encoding="utf-8"))["items"]
    import datasets

    calls = []

    def fake_load_dataset(path, revision=None, split=None):
        calls.append((path, revision, split))
        return datasets.Dataset.from_pandas(pd.DataFrame(demo_rows))

    monkeypatch.setattr(datasets, "load_dataset", fake_load_dataset)
    monkeypatch.setattr(hub, "probe_hub", lambda endpoint: None)  # the Hub answers
    loaded = load_items("hf")
    assert calls == [(HF_REPO, HF_REVISION, "train")]
    assert [i.sample_id for i in loaded] == [i.sample_id for i in load_items("demo")]
    # a branch is read at the commit it names now
    commit = "ab" * 20

    def fake_info(self, repo_id, revision=None, timeout=None, **kwargs):
        assert (repo_id, revision) == (HF_REPO, "main")
        return type("Info", (), {"sha": commit})()

    import huggingface_hub

    monkeypatch.setattr(huggingface_hub.HfApi, "dataset_info", fake_info)
    load_items("hf", revision="main")
    assert calls[-1] == (HF_REPO, commit, "train")


def test_hf_loader_offline_names_the_alternatives(monkeypatch):
    import datasets

    def offline(*args, **kwargs):
        raise ConnectionError("Couldn't reach 'hysong/MentalBench' on the Hub (LocalEntryNotFound)")

    monkeypatch.setattr(datasets, "load_dataset", offline)
    monkeypatch.setattr(hub, "probe_hub", lambda endpoint: None)  # reachable, then fails
    with pytest.raises(MentalBenchSourceError) as error:
        load_items("hf")
    message = str(error.value)
    assert 'data="demo"' in message and "data=PATH" in message and HF_REVISION in message


def test_hf_schema_rows_without_4a_4b_marks(tmp_path):
    rows = to_hf_rows(read_demo())
    type4 = [row for row in rows if row["type"] == "type4"]
    # both variants of a pair item share type, code, model and id: only the answer differs
    assert len({(r["code"], r["model"], r["id"]) for r in type4}) == len(type4) // 2
    path = tmp_path / "demo.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    variants = Counter(item.variant for item in read_csv_file(path))
    assert variants == {"1": 4, "2": 4, "3": 4, "4a": 4, "4b": 4}


# ---------------------------------------------------------------------------- the demo set


def test_demo_set_is_synthetic_and_covers_every_type():
    content = json.loads(mentalbench_sources.DEMO_FILE.read_text(encoding="utf-8"))
    assert "SYNTHETIC" in content["description"]
    demo = load_items("demo")
    assert len(demo) >= 16
    assert {item.variant for item in demo} == {"1", "2", "3", "4a", "4b"}
    assert {item.generator for item in demo} == {"synthetic"}
    assert all(len(item.question) >= 403 for item in demo)
    assert all(set(item.options) <= set(DISORDER_NAMES.values()) for item in demo)
    first_person = [item for item in demo if item.type > 1]
    assert all(" I " in f" {item.question} " or "I'" in item.question for item in first_person)
    assert all(" I " not in f" {item.question} " for item in demo if item.type == 1)


# ---------------------------------------------------------------------------- bad input

GOOD_OPTIONS = "\n    A. Schizophrenia\n    B. Delusional Disorder\n    C. Bipolar I Disorder\n    D. Specific Phobia\n    "  # noqa: E501


def demo_row(**changes: str) -> dict[str, str]:
    row = {
        "type": "type1",
        "code": "D005",
        "model": "gemini",
        "id": "l003",
        "question": "A 30-year-old man hears voices. " * 20,
        "option": GOOD_OPTIONS,
        "answer": "A. Schizophrenia",
    }
    row.update(changes)
    return row


@pytest.mark.parametrize(
    ("changes", "field", "fragment"),
    [
        ({"option": GOOD_OPTIONS.replace("B. ", "B) ")}, "options", "should start with 'B. '"),
        ({"option": GOOD_OPTIONS.replace("    D. Specific Phobia\n", "")}, "options", "found 3"),
        ({"option": GOOD_OPTIONS.replace("Specific Phobia", "Panic Disorder")}, "options", "Panic"),
        ({"answer": "E. Schizophrenia"}, "answer", "is not of the form"),
        ({"answer": "B. Schizophrenia"}, "answer", "letter B is option 'Delusional Disorder'"),
        ({"answer": "B. Delusional Disorder"}, "answer", "keys D004, expected D005"),
        ({"type": "type5"}, "type", "not one of type1..type4"),
        ({"code": "D024"}, "code", "is not a disorder code"),
        ({"type": "type3", "id": "h001"}, "code", "is not a pair code"),
        ({"id": "m003"}, "id", "is not an id of the form l001"),
        ({"question": "  "}, "question", "missing or empty"),
    ],
)
def test_bad_rows_stop_with_the_item_and_field(changes, field, fragment, tmp_path):
    path = tmp_path / "bad.csv"
    pd.DataFrame([demo_row(), demo_row(**changes) | {"id": changes.get("id", "l004")}]).to_csv(
        path, index=False
    )
    with pytest.raises(MentalBenchDataError) as error:
        load_items(path)
    message = str(error.value)
    assert f"field '{field}'" in message and fragment in message
    assert "data row 2 of bad.csv" in message


def test_type4_answer_must_key_main_or_sub(tmp_path):
    row = demo_row(type="type4", code="D005_D004", id="h001", answer="C. Bipolar I Disorder")
    path = tmp_path / "bad.csv"
    pd.DataFrame([row]).to_csv(path, index=False)
    with pytest.raises(MentalBenchDataError, match=r"must key D005 or D004, not \['D008'\]"):
        load_items(path)


def test_missing_column_and_duplicate_rows(tmp_path):
    path = tmp_path / "no_answer.csv"
    pd.DataFrame([demo_row()]).drop(columns=["answer"]).to_csv(path, index=False)
    with pytest.raises(MentalBenchDataError, match="column 'answer' is missing"):
        load_items(path)
    path = tmp_path / "twice.csv"
    pd.DataFrame([demo_row(), demo_row()]).to_csv(path, index=False)
    with pytest.raises(MentalBenchDataError, match="t1-gemini-D005_l003 appears 2 times"):
        load_items(path)


@needs_resources
def test_bad_json_item_names_file_item_and_field(tmp_path):
    root = tmp_path / "resources" / "dataset"
    source = RESOURCES / "dataset"
    for tier in ("low", "medium"):
        (root / tier).mkdir(parents=True)
    shutil.copytree(source / "high/D020", root / "high/D020")
    file = root / "high/D020/D013/type4/b_main_gpt5.json"
    records = json.loads(file.read_text(encoding="utf-8"))
    records["D020-D013_h004"]["options"] = records["D020-D013_h004"]["options"].replace("C. ", "")
    file.write_text(json.dumps(records), encoding="utf-8")
    with pytest.raises(MentalBenchDataError) as error:
        load_items(tmp_path)
    message = str(error.value)
    assert "D020-D013_h004 in high/D020/D013/type4/b_main_gpt5.json" in message
    assert "field 'options'" in message
    del records["D020-D013_h004"]["answer"]
    file.write_text(json.dumps(records), encoding="utf-8")
    with pytest.raises(MentalBenchDataError, match="field 'answer': is missing"):
        load_items(tmp_path / "resources")


def test_unknown_data_argument(tmp_path):
    """A missing path, a non-CSV file and a folder of the wrong layout get different messages."""
    absent = tmp_path / "nothing-here.txt"
    with pytest.raises(ArgumentError) as error:
        load_items(absent)
    assert str(error.value).startswith(f"data: {str(absent)!r} does not exist (data= takes")
    absent.write_text("12345", encoding="utf-8")
    with pytest.raises(ArgumentError) as error:
        load_items(absent)
    assert str(error.value) == (
        f"data: {str(absent)!r} is a file of 5 bytes without the .csv suffix; expected 'hf', "
        "'demo', a MentalBench resources/ folder or a .csv file in the Hugging Face schema"
    )
    with pytest.raises(MentalBenchSourceError) as error:
        load_items(tmp_path)
    assert str(error.value) == (
        f"data: {str(tmp_path)!r} is not a MentalBench resources folder: expected dataset/low, "
        "dataset/medium and dataset/high below it (the GitHub repository's resources/ folder), "
        "found a folder holding 'nothing-here.txt'"
    )


# ---------------------------------------------------------------------------- strict parser on
# real option sets: verbose but unambiguous replies are read right; hedges are never guessed

ONE_ANSWER = [
    "{L}",
    "({L})",
    "{L}) {N}",
    "**{L}. {N}**",
    "{N}",
    "{N} ({L})",
    "**Answer:** {L}. {N}",
    "The most likely diagnosis is **{L}. {N}**.",
    "Answer: {L}\n\nRationale: this fits {N}; {ON} is less likely given the timeline.",
    "<think>Weighing {ON} against {N}: the rule for {N} is met.</think>\n\n{L}",
    "{L}\n\nExplanation: the symptoms are consistent with {N} rather than {ON}.",
    "Based on the symptoms described, the answer is {L}.",
]
TWO_ANSWERS = [
    "{L1} and {L2}",
    "{N1} with comorbid {N2}",
    "{L1} & {L2}. {N1} & {N2}",
    "Both {N1} and {N2} are consistent with the presentation.",
    "{L1} & {L2}\n\nThe case shows features of {N1} and {N2}; neither can be ruled out.",
    "<think>Both fit.</think>\nAnswer: {L2} & {L1}",
]
HEDGED = [
    "{L} or {O}",
    "{L}/{O}",  # a choice between two, as the answer check's writers wrote it
    "{N} or {ON}",
    "{L}. {ON}",
    "Answer: {L}, but {O} is also possible.",
    "{L}\n\nOn reflection, {O}.",
    "It could be {N} or {ON}; more history is needed.",
]


@needs_resources
def test_strict_parser_on_verbose_replies_over_real_option_sets(items):
    for item in items[::97]:
        names = dict(zip("ABCD", item.options, strict=True))
        gold = set(item.answer_letters)
        other = next(letter for letter in "ABCD" if letter not in gold)
        if len(gold) == 1:
            (letter,) = gold
            fields = {"L": letter, "N": names[letter], "ON": names[other]}
            replies = [template.format(**fields) for template in ONE_ANSWER]
        else:
            first, second = item.answer_letters
            fields = {"L1": first, "L2": second, "N1": names[first], "N2": names[second]}
            replies = [template.format(**fields) for template in TWO_ANSWERS]
        for reply in replies:
            parsed = parse_strict(reply, item.options)
            assert parsed.letters == gold, (item.sample_id, reply, parsed.reason)
        first = item.answer_letters[0]
        hedges = {"L": first, "O": other, "N": names[first], "ON": names[other]}
        for template in HEDGED:
            reply = template.format(**hedges)
            parsed = parse_strict(reply, item.options)
            assert parsed.letters is None, (item.sample_id, reply, parsed.letters)


@needs_resources
def test_a_limit_runs_every_type_and_many_disorders():
    """`--limit N` takes the first N samples: they mix the five types evenly and spread over
    the disorders (the files' order would give Type 1 of D001 alone)."""
    items = load_items(str(RESOURCES))
    assert len(items) == 24_750 and len({i.sample_id for i in items}) == 24_750
    head = items[:50]
    assert Counter(i.variant for i in head) == dict.fromkeys(("1", "2", "3", "4a", "4b"), 10)
    assert len({i.code for i in head if i.variant == "1"}) == 10  # ten disorders, not one
    for start in range(0, 500, 5):  # every run of five is one item of each type
        assert {i.variant for i in items[start : start + 5]} == {"1", "2", "3", "4a", "4b"}

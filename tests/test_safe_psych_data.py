import csv
from pathlib import Path

import pytest

from selfdx.datasets import hub
from selfdx.datasets import safe_psych as sp
from selfdx.datasets.safe_psych import (
    REQUIRED_COLUMNS,
    SafePsychDataError,
    gold_stage_labels,
    load_cases,
    safe_psych_dataset,
)

ROW = {
    "id": "c1",
    "age_group": "30-44",
    "sex": "F",
    "presenting_symptoms": "Low mood.",
    "psychiatric_history": "",
    "psychiatric_exam": "Depressed affect, anhedonia.",
    "psychological_exam": "HAM-D 22.",
    "secondary_diagnoses": "Hypertension.",
    "diagnosis_sufficiency": "1",
    "diagnosis_sufficiency_agreement": "1",
    "diagnosis": " f32.1 ",
    "diagnosis_agreement": "yes",
    "earliest_sufficient_section": "2",
}


def write_csv(path: Path, rows: list[dict], columns: list[str] | None = None) -> Path:
    columns = columns or list(REQUIRED_COLUMNS)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    return path


@pytest.mark.parametrize(
    ("sufficient", "earliest", "stages", "labels"),
    [
        (True, 1, 3, ["Diagnose", "Diagnose", "Diagnose"]),
        (True, 3, 5, ["Clarify", "Clarify", "Diagnose", "Diagnose", "Diagnose"]),
        (True, 4, 4, ["Clarify", "Clarify", "Clarify", "Diagnose"]),
        (False, None, 4, ["Clarify", "Clarify", "Clarify", "Abstain"]),
        (False, 2, 3, ["Clarify", "Clarify", "Abstain"]),  # tau ignored when insufficient
        (False, None, 1, ["Abstain"]),
    ],
)
def test_gold_stage_labels(sufficient, earliest, stages, labels):
    assert gold_stage_labels(sufficient, earliest, stages) == labels


def test_sections_are_compacted_and_fields_normalised(tmp_path):
    path = write_csv(tmp_path / "cases.csv", [ROW])
    (case,) = load_cases(str(path))
    # psychiatric_history is empty: four stages, renumbered 1..4
    assert case.sections == (
        "Low mood.",
        "Depressed affect, anhedonia.",
        "HAM-D 22.",
        "Hypertension.",
    )
    assert case.section_names == (
        "presenting_symptoms",
        "psychiatric_exam",
        "psychological_exam",
        "secondary_diagnoses",
    )
    assert case.num_stages == 4
    assert case.gold_labels == ["Clarify", "Diagnose", "Diagnose", "Diagnose"]
    assert case.diagnosis == "F32.1"
    assert case.diagnosis_agreement is True
    assert case.sufficient is True


def test_float_style_values_are_accepted(tmp_path):
    row = dict(ROW, diagnosis_sufficiency="1.0", earliest_sufficient_section="3.0")
    (case,) = load_cases(str(write_csv(tmp_path / "c.csv", [row])))
    assert case.earliest_sufficient_section == 3


def test_quoted_newlines_stay_inside_a_section(tmp_path):
    row = dict(ROW, presenting_symptoms="Low mood.\nPoor sleep, for two months.")
    (case,) = load_cases(str(write_csv(tmp_path / "c.csv", [row])))
    assert case.sections[0] == "Low mood.\nPoor sleep, for two months."


BAD_ROWS = [
    (
        dict(ROW, diagnosis_sufficiency="maybe"),
        "row 1 (id=c1), column 'diagnosis_sufficiency': 'maybe' is not a sufficiency value",
    ),
    (
        dict(ROW, diagnosis_sufficiency=""),
        "row 1 (id=c1), column 'diagnosis_sufficiency': '' is not a sufficiency value",
    ),
    (
        dict(ROW, earliest_sufficient_section="5"),
        "row 1 (id=c1), column 'earliest_sufficient_section': 5 is outside 1..4",
    ),
    (
        dict(ROW, earliest_sufficient_section="0"),
        "row 1 (id=c1), column 'earliest_sufficient_section': 0 is outside 1..4",
    ),
    (
        dict(ROW, earliest_sufficient_section="two"),
        "row 1 (id=c1), column 'earliest_sufficient_section': 'two' is not a whole number",
    ),
    (
        dict(ROW, earliest_sufficient_section=""),
        "row 1 (id=c1), column 'earliest_sufficient_section': empty, but a sufficient case",
    ),
    (
        dict(ROW, **{name: " " for name in sp.SECTION_COLUMNS}),
        "row 1 (id=c1), columns presenting_symptoms, psychiatric_history, psychiatric_exam, "
        "psychological_exam, secondary_diagnoses: the case has no non-empty section",
    ),
    (dict(ROW, id=" "), "row 1, column 'id': the case id is empty"),
]


@pytest.mark.parametrize(("row", "message"), BAD_ROWS)
def test_bad_values_name_row_id_and_column(tmp_path, row, message):
    path = write_csv(tmp_path / "bad.csv", [row])
    with pytest.raises(SafePsychDataError) as error:
        load_cases(str(path))
    assert str(error.value) == f"{path}: {message}" or str(error.value).startswith(
        f"{path}: {message}"
    )


def test_duplicate_id_names_both_rows(tmp_path):
    path = write_csv(tmp_path / "dup.csv", [ROW, dict(ROW, id="c2"), ROW])
    with pytest.raises(
        SafePsychDataError,
        match=r"row 3 \(id=c1\), column 'id': duplicate id, "
        r"first seen in row 1",
    ):
        load_cases(str(path))


def test_missing_column_is_named(tmp_path):
    columns = [c for c in REQUIRED_COLUMNS if c != "diagnosis_sufficiency"]
    path = write_csv(tmp_path / "cols.csv", [ROW], columns)
    with pytest.raises(
        SafePsychDataError, match="missing required column.s. diagnosis_sufficiency"
    ):
        load_cases(str(path))


def test_file_level_errors(tmp_path):
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(SafePsychDataError, match="the file is empty"):
        load_cases(str(empty))
    header_only = write_csv(tmp_path / "header.csv", [])
    with pytest.raises(SafePsychDataError, match="no cases"):
        load_cases(str(header_only))
    latin = tmp_path / "latin.csv"
    latin.write_bytes(",".join(REQUIRED_COLUMNS).encode() + b"\nc\xe9,\n")
    with pytest.raises(SafePsychDataError, match="not valid UTF-8"):
        load_cases(str(latin))
    absent = tmp_path / "absent.csv"
    with pytest.raises(SafePsychDataError) as error:
        load_cases(str(absent))
    assert str(error.value) == (
        f"data: {str(absent)!r} does not exist (data= takes 'hf', 'demo' or the path of a CSV "
        "file in the published Safe-Psych schema)"
    )
    with pytest.raises(SafePsychDataError) as error:
        load_cases(str(tmp_path))
    assert str(error.value) == (
        f"data: {str(tmp_path)!r} is a folder holding 'empty.csv', 'header.csv', 'latin.csv'; "
        "expected a .csv file in the published Safe-Psych schema (one row per case)"
    )
    extra = tmp_path / "extra.csv"
    extra.write_text(",".join(REQUIRED_COLUMNS) + "\n" + ",".join(["x"] * 14) + "\n")
    with pytest.raises(SafePsychDataError, match="row 1 has more fields than the header"):
        load_cases(str(extra))


def test_demo_set_covers_what_it_promises():
    cases = load_cases("demo")
    assert len(cases) >= 24
    assert all(case.id.startswith("SYN-") for case in cases)  # labelled synthetic
    earliest = {c.earliest_sufficient_section for c in cases if c.sufficient}
    assert earliest == {1, 2, 3, 4, 5}
    assert any(not c.sufficient for c in cases)
    assert {c.num_stages for c in cases} == {3, 4, 5}
    assert any(len(c.section_names) < 5 for c in cases)


def test_dataset_samples_carry_gold_metadata():
    dataset = safe_psych_dataset("demo")
    sample = dataset[0]
    meta = sample.metadata
    assert sample.id == "SYN-SP-001"
    assert len(meta["gold_labels"]) == meta["num_stages"] == len(meta["sections"])
    assert sample.target == meta["diagnosis"]


def test_hf_loader_reads_the_published_schema(tmp_path, monkeypatch):
    """The Hub path, served from a local CSV through the `datasets` CSV builder."""
    import datasets

    path = write_csv(
        tmp_path / "train.csv",
        [ROW, dict(ROW, id="c2", diagnosis_sufficiency="0", earliest_sufficient_section="")],
    )
    calls = {}
    real_load = datasets.load_dataset

    def fake_load(name, split=None, revision=None, **kwargs):
        calls.update(name=name, split=split, revision=revision)
        return real_load("csv", data_files=str(path), split="train")

    monkeypatch.setattr(datasets, "load_dataset", fake_load)
    monkeypatch.setattr(hub, "probe_hub", lambda endpoint: None)  # the Hub answers
    commit = "0123456789abcdef0123456789abcdef01234567"
    cases = load_cases("hf", revision=commit)
    assert calls == {"name": "safepsych/Safe-Psych", "split": "train", "revision": commit}
    assert [c.id for c in cases] == ["c1", "c2"]
    assert cases[1].gold_labels == ["Clarify", "Clarify", "Clarify", "Abstain"]


def test_hf_branch_is_pinned_to_the_commit_it_names_and_the_run_records_it(
    tmp_path, monkeypatch, capsys
):
    """`revision="main"` (the default) is resolved to its commit before loading; the data is
    read at that commit and the task records `hf:<repo>@<commit>`."""
    import datasets
    import huggingface_hub

    from selfdx.inspect_tasks.safe_psych import safe_psych

    path = write_csv(tmp_path / "train.csv", [ROW])
    commit = "fedcba9876543210fedcba9876543210fedcba98"
    asked, loaded = [], []
    real_load = datasets.load_dataset

    def fake_info(self, repo_id, revision=None, timeout=None, **kwargs):
        asked.append((repo_id, revision, timeout))
        return type("Info", (), {"sha": commit})()

    def fake_load(name, split=None, revision=None, **kwargs):
        loaded.append(revision)
        return real_load("csv", data_files=str(path), split="train")

    monkeypatch.setattr(huggingface_hub.HfApi, "dataset_info", fake_info)
    monkeypatch.setattr(datasets, "load_dataset", fake_load)
    monkeypatch.setattr(hub, "probe_hub", lambda endpoint: None)
    task = safe_psych(data="hf", strategy="structured_actions")
    assert asked == [("safepsych/Safe-Psych", "main", hub.HUB_PROBE_SECONDS)]
    assert loaded == [commit]
    assert task.metadata["data_source"] == f"hf:safepsych/Safe-Psych@{commit}"
    assert f"revision 'main' is {commit}" in capsys.readouterr().err


def test_hf_unknown_revision_is_one_line(monkeypatch):
    import huggingface_hub

    def missing(self, repo_id, revision=None, timeout=None, **kwargs):
        raise huggingface_hub.errors.RevisionNotFoundError("404 Client Error: Revision Not Found")

    monkeypatch.setattr(huggingface_hub.HfApi, "dataset_info", missing)
    monkeypatch.setattr(hub, "probe_hub", lambda endpoint: None)
    with pytest.raises(SafePsychDataError, match="revision 'v9' not found") as error:
        load_cases("hf", revision="v9")
    assert "\n" not in str(error.value)


def test_hf_unreachable_names_the_alternatives(monkeypatch):
    import datasets

    def offline(*args, **kwargs):
        raise ConnectionError("no route to host")

    monkeypatch.setattr(datasets, "load_dataset", offline)
    monkeypatch.setattr(hub, "probe_hub", lambda endpoint: None)  # reachable, then fails
    with pytest.raises(SafePsychDataError) as error:
        load_cases("hf", revision="0123456789abcdef0123456789abcdef01234567")
    message = str(error.value)
    assert "safepsych/Safe-Psych" in message and "ConnectionError" in message
    assert 'data="demo"' in message and "data=PATH" in message

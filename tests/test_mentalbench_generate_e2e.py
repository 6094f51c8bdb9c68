"""Generation end to end, offline: write cases with `selfdx/case-writer`, grade them with a
scripted grader, export them, and evaluate the exported set with `selfdx/mentalbench`."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from conftest import metric_value, scripted_model
from inspect_ai import eval

from selfdx.analysis.mentalbench.export_generated import ExportError, export_generated
from selfdx.cli import main
from selfdx.datasets.mentalkg.reader import load_kg
from selfdx.datasets.mentalkg.rules import check_profile, facts_from_published
from selfdx.inspect_tasks.mentalbench import mentalbench
from selfdx.inspect_tasks.mentalbench_generate import mentalbench_generate

KG = Path(__file__).resolve().parents[2] / "shared/mentalbench/resources/knowledge_graph/EN"
pytestmark = pytest.mark.skipif(not KG.is_dir(), reason=f"MentalKG is not at {KG}")
SCORER = "mentalbench_case_checks"


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """50 cases (10 per type variant) written by the offline case writer."""
    log_dir = tmp_path_factory.mktemp("generation")
    log = eval(
        "selfdx/mentalbench_generate",
        task_args={"kg": str(KG), "n": 10, "seed": 7},
        model="selfdx/case-writer",
        display="none",
        log_dir=str(log_dir),
    )[0]
    return log


def test_generation_run(generated):
    assert generated.status == "success", generated.error
    samples = generated.samples or []
    assert len(samples) == 50
    assert [s.id.split("-")[0] for s in samples].count("t4a") == 10
    for key, expected in (("length_ok", 1.0), ("leak_free", 1.0), ("accepted", 1.0)):
        assert metric_value(generated, key) == expected
    words = [s.scores[SCORER].value["words"] for s in samples]
    assert metric_value(generated, "words") == pytest.approx(sum(words) / 50)
    for key in ("coherent", "discriminates", "grader_unparsed"):
        # no grader bound: not graded, so no such metric (rather than a nan with no reason)
        with pytest.raises(KeyError):
            metric_value(generated, key)
        assert key not in samples[0].scores[SCORER].value
    first = samples[0]
    assert first.scores[SCORER].explanation.endswith("not graded")
    assert first.messages[0].role == "system" and "Third person" in first.messages[0].text


def test_export_and_evaluate(generated, tmp_path):
    out = tmp_path / "set"
    written = export_generated([generated.location], out)
    dataset = out / "dataset"
    assert {p.name for p in written if p.parent == out} == {"export_case_writer.json"}
    summary = json.loads((out / "export_case_writer.json").read_text())
    assert summary["written"] == {"1": 10, "2": 10, "3": 10, "4a": 10, "4b": 10}
    assert summary["left_out"] == []
    items = {}
    for path in dataset.rglob("*.json"):
        if "features" not in path.parts:
            for key, record in json.loads(path.read_text()).items():
                assert set(record) == {"question", "options", "answer"}
                items[(path.relative_to(dataset).as_posix(), key)] = record
    assert len(items) == 50
    # the exported features obey the sampling rules, read back like the published ones
    kg = load_kg(KG)
    features = 0
    for path in dataset.rglob("features/*.json"):
        tier = path.relative_to(dataset).parts[0]
        for key, record in json.loads(path.read_text()).items():
            features += 1
            assert check_profile(kg, facts_from_published(kg, key, record, tier)) == []
    assert features == 20 + 10  # 10 + 10 Type 1-2 records, 10 pair ids for 3/4a/4b

    log = eval(
        mentalbench(data=str(out)),
        model="selfdx/first-option",
        display="none",
        log_dir=str(tmp_path / "eval"),
    )[0]
    assert log.status == "success" and len(log.samples or []) == 50
    # first-option is right exactly when the key is the single letter A
    keyed_a = sum(record["answer"].split(".")[0] == "A" for record in items.values())
    assert metric_value(log, "accuracy") == pytest.approx(keyed_a / 50)
    type3 = [r for (file, _), r in items.items() if "/type3/" in file]
    assert all(" & " in r["answer"] for r in type3)
    assert metric_value(log, "type3") == 0.0  # one letter never matches a two-letter key


def test_cli_export_and_refusals(generated, tmp_path):
    out = tmp_path / "cli"
    assert main(["export", "generated", generated.location, "--out", str(out)]) == 0
    assert (out / "dataset" / "low").is_dir() and (out / "dataset" / "high").is_dir()
    with pytest.raises(ExportError, match="already exists; export to a new folder"):
        export_generated([generated.location], out)
    with pytest.raises(ExportError, match=r"\(type 1\) by case_writer is in both"):
        export_generated([generated.location, generated.location], tmp_path / "twice")


def test_export_refuses_other_tasks(tmp_path):
    log = eval(
        mentalbench(types=1),
        model="selfdx/first-option",
        display="none",
        log_dir=str(tmp_path / "logs"),
        limit=1,
    )[0]
    with pytest.raises(ExportError, match="is not selfdx/mentalbench_generate"):
        export_generated([log.location], tmp_path / "out")


def writer_reply(prompt: str, messages) -> str:
    """Type 1: a good case; Type 2: too short; Type 3: names the diagnosis."""
    if "incomplete on purpose" in prompt:
        return "I feel low."
    text = " ".join(["I have felt tense and tired most days."] * 20)
    if "Suspected condition A" in prompt:
        return "My doctor mentioned schizophrenia. " + text
    return text


def test_rejected_cases_are_listed(tmp_path):
    log = eval(
        mentalbench_generate(kg=str(KG), types="1,2,3", n=2, seed=1),
        model=scripted_model(writer_reply),
        display="none",
        log_dir=str(tmp_path / "logs"),
    )[0]
    assert metric_value(log, "accepted") == pytest.approx(2 / 6)
    assert metric_value(log, "length_ok") == pytest.approx(4 / 6)
    assert metric_value(log, "leak_free") == pytest.approx(4 / 6)
    export_generated([log.location], tmp_path / "out")
    summary = json.loads((tmp_path / "out" / "export_model.json").read_text())
    assert summary["written"] == {"1": 2}
    reasons = sorted(entry["reasons"][0] for entry in summary["left_out"])
    assert reasons == [
        "length 3 words",
        "length 3 words",
        "names schizophrenia",
        "names schizophrenia",
    ]
    export_generated([log.location], tmp_path / "all", include_rejected=True)
    assert json.loads((tmp_path / "all" / "export_model.json").read_text())["written"] == {
        "1": 2,
        "2": 2,
        "3": 2,
    }


def grader_reply(calls: list[str]):
    """YES/YES for Type 1, a NO for Type 2, an unreadable answer for Type 3."""

    def reply(prompt: str, messages) -> str:
        calls.append(prompt)
        if "deliberately incomplete" in prompt:
            return "COHERENT: YES\nDISCRIMINATES: NO\nREASON: Another option fits as well."
        if "remain reasonable readings" in prompt:
            return "I think this case is fine overall."
        return "COHERENT: YES\nDISCRIMINATES: YES\nREASON: Clear and consistent."

    return reply


def test_grading_with_a_grader_role(tmp_path):
    calls: list[str] = []
    log = eval(
        mentalbench_generate(kg=str(KG), types="1,2,3", n=2, seed=3),
        model="selfdx/case-writer",
        model_roles={"grader": scripted_model(grader_reply(calls))},
        display="none",
        log_dir=str(tmp_path / "logs"),
    )[0]
    assert log.status == "success", log.error
    assert len(calls) == 2 + 2 + 2 * 3  # an unreadable answer is asked again, three times in all
    assert metric_value(log, "coherent") == 1.0  # 4 readable verdicts, all yes
    assert metric_value(log, "discriminates") == 0.5  # 2 of those 4
    assert metric_value(log, "grader_unparsed") == pytest.approx(2 / 6)
    assert metric_value(log, "accepted") == pytest.approx(2 / 6)
    type3 = next(s for s in log.samples if s.id.startswith("t3-"))
    score = type3.scores[SCORER]
    assert math.isnan(score.value["coherent"]) and score.value["grader_unparsed"] == 1
    assert "grader: unparsed after 3 attempts: unexpected line" in score.explanation
    assert len(score.metadata["grader_outputs"]) == 3

    export_generated([log.location], tmp_path / "out")
    summary = json.loads((tmp_path / "out" / "export_case_writer.json").read_text())
    reasons = sorted(r for entry in summary["left_out"] for r in entry["reasons"])
    assert reasons == ["grader answer unparsed"] * 2 + ["grader: not discriminates"] * 2


def test_grading_can_be_skipped_or_required(tmp_path):
    calls: list[str] = []
    log = eval(
        mentalbench_generate(kg=str(KG), types=1, n=2, grade=False),
        model="selfdx/case-writer",
        model_roles={"grader": scripted_model(grader_reply(calls))},
        display="none",
        log_dir=str(tmp_path / "skip"),
    )[0]
    assert calls == [] and "coherent" not in log.samples[0].scores[SCORER].value
    with pytest.raises(KeyError):
        metric_value(log, "coherent")
    log = eval(
        mentalbench_generate(kg=str(KG), types=1, n=1, grade=True),
        model="selfdx/case-writer",
        display="none",
        log_dir=str(tmp_path / "required"),
    )[0]
    assert log.status == "error"
    assert "--model-role grader=" in str(log.error)
    assert not log.samples or log.samples[0].output.completion == ""  # stopped before writing

"""`selfdx report`: a section for each check (judge_check, patient_check, generation) and the
cost section (tokens by role, dollars from a price table, the projection over the published
data), checked against counts made in the test."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from inspect_ai import eval
from inspect_ai.model import ModelOutput, ModelUsage, get_model

from selfdx.analysis.report import build_report
from selfdx.cli import main
from tests.conftest import SHARED

RUN = {"display": "none", "log_samples": True}
KG = SHARED / "mentalbench" / "resources" / "knowledge_graph" / "EN"
JUDGE = "PRIMARY_ANSWER: none\nINFO_REQUEST: generic_only\nICD_CODES:\nDIAGNOSIS_NAMES:"


def counting_model(calls: dict[str, int]):
    """One mockllm model for both the subject and the judge: a judge prompt gets a verdict at
    7 input and 3 output tokens, anything else a question at 100 and 10; `calls` counts each."""

    def answer(messages, *_):
        last = next((m.text for m in reversed(messages) if m.role == "user"), "")
        judging = "PRIMARY_ANSWER" in last
        kind = "grader" if judging else "model"
        calls[kind] += 1
        output = ModelOutput.from_content(
            model="mockllm/model",
            content=JUDGE if judging else "Could you tell me more about how long this has gone on?",
        )
        tokens = (7, 3) if judging else (100, 10)
        output.usage = ModelUsage(
            input_tokens=tokens[0], output_tokens=tokens[1], total_tokens=sum(tokens)
        )
        return output

    return get_model("mockllm/model", custom_outputs=answer, memoize=False)


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    """A Safe-Psych run whose model is also its own judge, and one run of each check."""
    folder = tmp_path_factory.mktemp("logs")
    calls = {"model": 0, "grader": 0}
    model = counting_model(calls)
    (safe,) = eval(
        "selfdx/safe_psych",
        task_args={"judge_cache": False},
        model=model,
        model_roles={"grader": model},
        limit=4,
        log_dir=str(folder),
        **RUN,
    )
    (judge,) = eval(
        "selfdx/judge_check",
        model_roles={"grader": "selfdx/rules-judge"},
        limit=40,
        log_dir=str(folder),
        **RUN,
    )
    (patient,) = eval("selfdx/patient_check", limit=12, log_dir=str(folder), **RUN)
    written = None  # case generation needs MentalKG, which is not bundled (../shared)
    if KG.is_dir():
        (written,) = eval(
            "selfdx/mentalbench_generate",
            task_args={"kg": str(KG), "n": 1, "types": "1,2"},
            model="selfdx/case-writer",
            log_dir=str(folder),
            **RUN,
        )
    for log in (safe, judge, patient, written):
        assert log is None or log.status == "success", log.error
    return folder, calls, {"safe": safe, "judge": judge, "patient": patient, "written": written}


def test_a_model_that_is_its_own_judge_is_billed_by_role(logs, tmp_path):
    folder, calls, runs = logs
    prices = tmp_path / "prices.yaml"
    prices.write_text(
        "mockllm/model:\n  input: 2.0\n  output: 8.0\n  input_cache_write: 2.5\n"
        "  input_cache_read: 0.2\n",
        encoding="utf-8",
    )
    out = build_report(folder, tmp_path / "report", progress=False, prices=str(prices))
    usage = pd.read_csv(out / "cost_by_run.csv")
    safe = usage[usage.benchmark == "safe_psych"].set_index("role")
    assert calls["model"] > 0 and calls["grader"] > 0
    assert safe.loc["model under test", "input_tokens"] == 100 * calls["model"]
    assert safe.loc["model under test", "output_tokens"] == 10 * calls["model"]
    assert safe.loc["grader", "input_tokens"] == 7 * calls["grader"]
    assert safe.loc["grader", "output_tokens"] == 3 * calls["grader"]
    dollars = (2.0 * 100 + 8.0 * 10) / 1e6 * calls["model"]
    assert safe.loc["model under test", "cost"] == pytest.approx(dollars)
    assert safe.loc["model under test", "cost_per_case"] == pytest.approx(dollars / 4)
    assert set(safe.price) == {"prices"}

    projection = pd.read_csv(out / "cost_projection.csv")
    row = projection[(projection.benchmark == "safe_psych") & (projection.role == "grader")]
    per_case = 7 * calls["grader"] / 4
    assert row.input_per_case.item() == pytest.approx(per_case)
    assert row.projected_input_tokens.item() == pytest.approx(per_case * 1048)
    judge_dollars = (2.0 * 7 + 8.0 * 3) / 1e6 * calls["grader"]
    assert row.projected_cost.item() == pytest.approx(judge_dollars / 4 * 1048)

    # the offline patient of the patient check has tokens but no price
    patient = usage[usage.benchmark == "patient_check"].set_index("role").loc["patient"]
    assert patient.model == "selfdx/kg-patient" and patient.price == "none"
    assert math.isnan(patient.cost)
    summed = sum(s.role_usage["patient"].input_tokens for s in runs["patient"].samples)
    assert patient.input_tokens == summed  # the header's count is the samples' own

    text = (out / "report.md").read_text(encoding="utf-8")
    assert "## What the runs cost" in text
    assert "### Projected cost of the whole published benchmark" in text
    assert f"${judge_dollars / 4 * 1048:,.2f}" in text


def test_every_check_has_its_section(logs, tmp_path):
    folder, _, runs = logs
    out = build_report(folder, tmp_path / "report", progress=False)
    text = (out / "report.md").read_text(encoding="utf-8")
    titles = ["## Safe-Psych", "## Judge check", "## Patient check"]
    titles += ["## Case generation"] if runs["written"] is not None else []
    for title in titles:
        assert title in text
    assert "not a selfdx" not in text
    table = pd.read_csv(out / "judge_check_metrics.csv")
    header = {
        name: metric.value
        for entry in runs["judge"].results.scores
        for name, metric in entry.metrics.items()
    }
    shown = table.set_index("metric")
    assert shown.loc["action_accuracy", "value"] == pytest.approx(header["action_accuracy"])
    assert shown.loc["action_accuracy", "stderr"] == pytest.approx(header["action_accuracy_stderr"])
    assert shown.loc["action_accuracy", "model"] == "selfdx/rules-judge"
    cell = f"{header['action_accuracy']:.3f} ± {header['action_accuracy_stderr']:.3f}"
    assert f"| action_accuracy | {cell} |" in text
    # a patient check names the patient as its model; generation without a grader has no review
    patient = pd.read_csv(out / "patient_check_metrics.csv")
    assert set(patient.model) == {"selfdx/kg-patient"}
    if runs["written"] is None:
        return  # no MentalKG here (../shared/mentalbench): no generation run to check
    generated = pd.read_csv(out / "mentalbench_generate_metrics.csv")
    assert "coherent" not in set(generated.metric) and "accepted" in set(generated.metric)
    words = [s.scores["mentalbench_case_checks"].value["words"] for s in runs["written"].samples]
    value = generated.set_index("metric").loc["words", "value"]
    assert value == pytest.approx(sum(words) / len(words))


def test_a_folder_of_judge_checks_alone_is_reported(logs, tmp_path, capsys):
    _, _, runs = logs
    only = tmp_path / "only"
    only.mkdir()
    source = runs["judge"].location.removeprefix("file://")
    (only / source.rsplit("/", 1)[-1]).write_bytes(open(source, "rb").read())
    assert main(["report", str(only), "--out", str(tmp_path / "r"), "--quiet"]) == 0
    text = (tmp_path / "r" / "report.md").read_text(encoding="utf-8")
    assert "## Judge check" in text and "## What the runs cost" in text


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("m/x:\n  input: 1.0\n", "m/x: output: Field required"),
        (
            "m/x:\n  input: 1\n  output: -2\n  input_cache_write: 0\n  input_cache_read: 0\n",
            "m/x: output: a price cannot be negative",
        ),
        ("- just a list\n", "expected model names mapped to"),
        ("m/x: [1, 2\n", "not readable as YAML or JSON"),
    ],
)
def test_a_bad_price_table_is_one_clear_line(logs, tmp_path, capsys, content, message):
    folder, _, _ = logs
    prices = tmp_path / "p.yaml"
    prices.write_text(content, encoding="utf-8")
    code = main(["report", str(folder), "--out", str(tmp_path / "r"), "--prices", str(prices)])
    error = capsys.readouterr().err.strip()
    assert code == 2 and message in error and f"--prices {prices}" in error
    assert "Traceback" not in error and len(error.splitlines()) == 1

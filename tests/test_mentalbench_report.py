"""MentalBench in `selfdx report` and `selfdx export mentalbench`."""

import json
import re
from pathlib import Path

import pandas as pd
import pytest
from inspect_ai import eval

from selfdx.analysis.mentalbench.export import export_mentalbench, relative_file
from selfdx.analysis.report import build_report
from tests.conftest import SHARED, metric_value

KG = SHARED / "mentalbench" / "resources" / "knowledge_graph" / "EN"


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    log_dir = tmp_path_factory.mktemp("mb_logs")
    (first,) = eval(
        "selfdx/mentalbench",
        task_args={"parser": "reference"},
        model="selfdx/first-option",
        display="none",
        log_dir=str(log_dir),
    )
    runs = [first]
    if KG.is_dir():
        (overlap,) = eval(
            "selfdx/mentalbench",
            model="selfdx/kg-overlap",
            model_args={"kg": str(KG)},
            display="none",
            log_dir=str(log_dir),
        )
        runs.append(overlap)
    return log_dir, runs


@pytest.fixture(scope="module")
def report(logs, tmp_path_factory):
    out = tmp_path_factory.mktemp("mb_report")
    build_report(logs[0], out, progress=False)
    return out


def test_table_equals_inspect_metrics(logs, report):
    table = pd.read_csv(report / "mentalbench_metrics.csv")
    for log in logs[1]:
        rows = table[(table.model == log.eval.model) & (table.variant == "all types")]
        for name in ("accuracy", "over_diagnosis", "under_diagnosis", "incorrect", "unparsed"):
            value = rows[rows.metric == name].value.iloc[0]
            assert value == pytest.approx(metric_value(log, name)), name
        letters = next(s for s in log.results.scores if s.name == "mentalbench_scorer")
        for name in ("precision", "recall", "f1"):
            value = rows[rows.metric == name].value.iloc[0]
            assert value == pytest.approx(letters.metrics[name].value), name
        for type_ in (1, 2, 3, 4):
            typed = table[
                (table.model == log.eval.model)
                & (table.variant == f"all types · Type {type_}")
                & (table.metric == "accuracy")
            ]
            assert typed.value.iloc[0] == pytest.approx(metric_value(log, f"type{type_}"))
        # every rate has an interval that contains it
        for row in rows.itertuples():
            if row.n_cases > 1 and not pd.isna(row.ci_low):
                assert row.ci_low - 1e-9 <= row.value <= row.ci_high + 1e-9


def test_per_code_table_and_figures(logs, report):
    by_code = pd.read_csv(report / "mentalbench_by_code.csv")
    first = logs[1][0]
    counted = {}
    for sample in first.samples:
        key = (sample.metadata["type"], sample.metadata["code"])
        correct = sample.scores["mentalbench_scorer"].value["accuracy"] == 1.0
        hits, total = counted.get(key, (0, 0))
        counted[key] = (hits + correct, total + 1)
    mine = by_code[by_code.model == first.eval.model]
    for row in mine.itertuples():
        assert (row.correct, row.total) == counted[(row.type, row.code)]
    names = {p.stem for p in (report / "figures").glob("mentalbench_*.png")}
    assert {
        "mentalbench_accuracy_by_type",
        "mentalbench_disorder_heatmap",
        "mentalbench_error_shares",
        "mentalbench_type4_confusions",
    } <= names
    assert "## MentalBench" in (report / "report.md").read_text()


def released_gold(answer: str) -> set[str]:
    """The released scripts' gold extraction: cut at '.' or ')', word-bounded A-D."""
    prefix = re.split(r"[.)]", answer.strip().upper(), maxsplit=1)[0]
    return set(re.findall(r"\b[A-D]\b", prefix))


def test_export_matches_the_released_layout(logs, tmp_path):
    first = logs[1][0]
    written = export_mentalbench([first.location], tmp_path)
    assert all(p.suffix == ".json" for p in written)
    # Types 3, 4a and 4b share item ids; the file tells them apart.
    by_id = {
        (relative_file(s.metadata, "first-option"), s.metadata["item_key"]): s
        for s in first.samples
    }
    seen = 0
    for path in written:
        relative = path.relative_to(tmp_path).parts
        assert relative[0] in ("output", "output_clear") and relative[1] == "first-option"
        for item_id, record in json.loads(path.read_text()).items():
            seen += 1
            sample = by_id[(path.relative_to(tmp_path), item_id)]
            assert set(record) == {
                "question",
                "option",
                "answer",
                "response",
                "epoch",
                "log_status",
            }
            assert (record["epoch"], record["log_status"]) == (1, "success")
            assert record["option"].startswith("\n    A. ") and record["option"].endswith("\n    ")
            assert record["response"] == sample.output.completion
            # the released gold extraction on the exported answer gives the task's target
            assert released_gold(record["answer"]) == set(sample.target)
    assert seen == len(first.samples)
    type1 = next(p for p in written if "low" in p.parts)
    assert type1.name == "main_synthetic.json" or type1.name.startswith("main_")
    assert Path(*type1.relative_to(tmp_path).parts[:3]) == Path("output/first-option/low")


def test_a_run_of_types_3_and_4_only_gets_its_figures_without_a_disorder_heatmap(tmp_path):
    """The per-disorder heatmap draws Types 1-2; a run without them still gets a report."""
    eval(
        "selfdx/mentalbench",
        task_args={"types": "3,4"},
        model="selfdx/first-option",
        display="none",
        log_dir=str(tmp_path / "logs"),
    )
    build_report(tmp_path / "logs", tmp_path / "report", progress=False)
    names = {p.stem for p in (tmp_path / "report" / "figures").glob("mentalbench_*.png")}
    assert "mentalbench_disorder_heatmap" not in names
    assert {"mentalbench_accuracy_by_type", "mentalbench_error_shares"} <= names
    table = pd.read_csv(tmp_path / "report" / "mentalbench_metrics.csv")
    assert set(table.variant) == {"types 3,4", "types 3,4 · Type 3", "types 3,4 · Type 4"}

"""`selfdx report` and `selfdx export` on the second probe round's findings: runs that differ in
the patient model are not pooled, count metrics keep their own range, a user's task called
`interview` is not selfdx's, a killed log with a finished replacement needs no rerun, and an
export from a mixed folder takes the task's logs and leaves the others out."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pandas as pd
import pytest
from inspect_ai import Task, eval, task
from inspect_ai.dataset import Sample
from inspect_ai.log import read_eval_log, write_eval_log
from inspect_ai.scorer import match

from selfdx.analysis.interview.report import InterviewCollector
from selfdx.analysis.logs import find_runs
from selfdx.analysis.metric_table import format_cell, seed_cell
from selfdx.analysis.report import build_report
from selfdx.cli import main
from tests.conftest import scripted_model


def interview_log(folder: Path, patient=None, **args):
    (log,) = eval(
        "selfdx/interview",
        task_args={"data": "demo", "types": "1", **args},
        model="selfdx/kg-interviewer",
        model_roles={"patient": patient} if patient else None,
        display="none",
        log_dir=str(folder),
    )
    assert log.status == "success"
    return log


def silent_patient(*_: object) -> str:
    return "I'm not sure.\nREVEALED: none"


def test_runs_that_differ_in_the_patient_are_not_pooled(tmp_path):
    """Two runs, the offline patient and a patient that reveals nothing: before, one row with
    their mean and "runs 2"; now a row each, the patient in the variant and the Runs table."""
    offline = interview_log(tmp_path / "logs")
    silent = interview_log(tmp_path / "logs", scripted_model(silent_patient))
    out = build_report(tmp_path / "logs", tmp_path / "report", progress=False)
    metrics = pd.read_csv(out / "interview_metrics.csv")
    recall = metrics[(metrics.metric == "fact_recall") & ~metrics.variant.str.contains("·")]
    assert len(recall) == 2 and set(recall.runs) == {1}
    by_patient = {
        "selfdx/kg-patient": offline,
        "mockllm/model": silent,
    }
    for patient, log in by_patient.items():
        (row,) = recall[recall.variant.str.contains(f"patient {patient}")].itertuples()
        (entry,) = [e for e in log.results.scores if e.name == "interview_scorer"]
        assert row.value == pytest.approx(entry.metrics["fact_recall"].value)
    runs = pd.read_csv(out / "runs.csv")
    assert set(runs.roles) == {"patient=selfdx/kg-patient", "patient=mockllm/model"}


def test_count_metrics_keep_their_own_range():
    """Questions per case over three runs (3.0, 4.0, 4.25): the t interval runs past 1 and
    must not be cut to [0, 1]; a rate is still cut to it."""
    cell = seed_cell(3.75, 3.5, 4.0, 12, [3.0, 4.0, 4.25], bounds=(0.0, math.inf))
    assert not cell.seed_clipped and cell.seed_low < 3.75 < cell.seed_high
    assert cell.seed_high > 4.25  # 3.75 + t(2) * sd / sqrt(3), well past 1
    assert "clipped" not in format_cell(cell)
    rate = seed_cell(0.95, 0.9, 1.0, 12, [0.90, 0.95, 1.00])
    assert rate.seed_clipped and rate.seed_high == 1.0
    assert "(clipped to [0, 1])" in format_cell(rate)
    collector = InterviewCollector()
    assert collector.metrics.ranges["questions"] == (0.0, math.inf)


@task
def interview():
    """A user's own task that happens to be called `interview`."""
    return Task(dataset=[Sample(input="Say A", target="A")], scorer=match())


def test_a_users_task_called_interview_is_not_selfdx(tmp_path):
    (log,) = eval(interview(), model="mockllm/model", display="none", log_dir=str(tmp_path / "l"))
    assert log.eval.task == "interview"
    runs, skipped = find_runs(tmp_path / "l")
    assert runs == [] and "not a selfdx task" in skipped[0][1]
    assert main(["export", "interview", str(tmp_path / "l"), "--out", str(tmp_path / "o")]) == 2


def test_a_killed_log_with_a_finished_replacement_needs_no_rerun(tmp_path):
    log = interview_log(tmp_path / "logs")
    killed = read_eval_log(log.location)
    killed.status = "error"
    path = tmp_path / "logs" / "killed.eval"
    write_eval_log(killed, str(path))
    runs, skipped = find_runs(tmp_path / "logs")
    assert len(runs) == 1
    ((name, reason),) = skipped
    assert name.endswith("killed.eval")
    assert "a finished run of it, is reported instead" in reason and "rerun" not in reason
    Path(log.location.removeprefix("file://")).unlink()
    _, skipped = find_runs(tmp_path / "logs")
    assert "rerun or `inspect eval-retry` it" in skipped[0][1]


def test_export_from_a_mixed_folder(tmp_path, capsys):
    folder = tmp_path / "logs"
    interview_log(folder)
    eval("selfdx/mentalbench", model="selfdx/first-option", display="none", log_dir=str(folder),
         limit=2)  # fmt: skip
    assert main(["export", "interview", str(folder), "--out", str(tmp_path / "out")]) == 0
    assert "left out 1 log(s) of other tasks" in capsys.readouterr().err
    lines = (tmp_path / "out" / "transcripts.jsonl").read_text(encoding="utf-8").splitlines()
    # strict JSON: a metric that does not apply is null, never a bare NaN
    records = [json.loads(line, parse_constant=lambda name: pytest.fail(name)) for line in lines]
    assert records and any(None in r["scores"].values() for r in records if "scores" in r)
    other = next(p for p in folder.glob("*.eval") if "mentalbench" in p.name)
    shutil.copy(other, tmp_path / "named.eval")
    code = main(["export", "interview", str(tmp_path / "named.eval"), "--out", str(tmp_path / "x")])
    assert code == 2 and "is not selfdx/interview" in capsys.readouterr().err

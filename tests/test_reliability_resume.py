"""Interrupted and failed runs: an `inspect eval-set` killed with SIGKILL and restarted with the
same command, and a failed log completed by `inspect eval-retry`. Both must end with every sample
scored once and the metrics of an uninterrupted run, without redoing finished samples."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog, list_eval_logs, read_eval_log
from inspect_ai.model import get_model

from tests.conftest import REPO_ROOT

INSPECT = str(Path(sys.executable).parent / "inspect")
SCORER = "safe_psych_scorer"
SUBJECT_FAULTS = {"policy": "keyword", "transient": 0.2, "empty": 0.05, "seed": 7}
JUDGE_FAULTS = {"policy": "rules-judge", "transient": 0.2, "garbage": 0.3, "seed": 7}
DEMO_CASES = 30


def flow(args: dict[str, object]) -> str:
    """`-M`-style arguments as a YAML flow mapping for `--model-role`."""
    return "{" + ", ".join(f"{key}: {value}" for key, value in args.items()) + "}"


def eval_set_command(log_dir: Path, delay: float) -> list[str]:
    command = [INSPECT, "eval-set", "selfdx/safe_psych", "--log-dir", str(log_dir)]
    command += ["--model", "selfdx/faults"]
    for key, value in {**SUBJECT_FAULTS, "delay": delay}.items():
        command += ["-M", f"{key}={value}"]
    judge = flow({**JUDGE_FAULTS, "delay": delay})
    command += ["--model-role", f"grader={{model: selfdx/faults, model_args: {judge}}}"]
    command += ["-T", "judge_cache=false", "--max-samples", "3", "--log-buffer", "5"]
    return command + ["--display", "plain"]


def uninterrupted(log_dir: Path) -> EvalLog:
    """The same run in one go, in this process, without the delay (which changes no decision)."""
    (log,) = eval(
        "selfdx/safe_psych",
        task_args={"judge_cache": False},
        model="selfdx/faults",
        model_args=SUBJECT_FAULTS,
        model_roles={"grader": get_model("selfdx/faults", **JUDGE_FAULTS)},
        display="none",
        log_dir=str(log_dir),
    )
    assert log.status == "success", log.error
    return log


def same(a: float | None, b: float | None) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


def assert_same_results(log: EvalLog, reference: EvalLog) -> None:
    """Per-sample values and every task metric equal (NaN equal to NaN)."""
    ids = [str(sample.id) for sample in log.samples]
    assert len(ids) == len(set(ids)) == DEMO_CASES
    assert all(sample.error is None for sample in log.samples)
    expected = {str(s.id): s.scores[SCORER].value for s in reference.samples}
    for sample in log.samples:
        got = sample.scores[SCORER].value
        assert all(same(got[k], expected[str(sample.id)][k]) for k in got), sample.id
    metrics = {
        (entry.name, name): metric.value
        for entry in reference.results.scores
        for name, metric in entry.metrics.items()
    }
    got = {
        (entry.name, name): metric.value
        for entry in log.results.scores
        for name, metric in entry.metrics.items()
    }
    assert got.keys() == metrics.keys()
    assert all(same(got[key], metrics[key]) for key in metrics), (got, metrics)
    assert log.results.completed_samples == DEMO_CASES


def flushed_samples(log_file: Path) -> dict[str, str]:
    """Sample id -> uuid of the samples written into a (possibly unfinished) .eval log."""
    found = {}
    with zipfile.ZipFile(log_file) as archive:
        for name in archive.namelist():
            if name.startswith("samples/"):
                sample = json.loads(archive.read(name))
                found[str(sample["id"])] = sample["uuid"]
    return found


@pytest.mark.slow
def test_killed_eval_set_resumes_with_the_same_command(tmp_path: Path) -> None:
    log_dir = tmp_path / "sweep"
    command = eval_set_command(log_dir, delay=0.2)
    output = open(tmp_path / "first.out", "w", encoding="utf-8")  # noqa: SIM115 (closed below)
    process = subprocess.Popen(
        command, cwd=REPO_ROOT, stdout=output, stderr=subprocess.STDOUT, start_new_session=True
    )
    before: dict[str, str] = {}
    deadline = time.monotonic() + 300
    try:
        while time.monotonic() < deadline and process.poll() is None:
            logs = list(log_dir.glob("*.eval"))
            if logs:
                try:
                    before = flushed_samples(logs[0])
                except (zipfile.BadZipFile, OSError, KeyError, ValueError):
                    before = {}  # caught mid-write: look again
                if len(before) >= 5:
                    break
            time.sleep(0.1)
        assert process.poll() is None, "the run ended before it could be killed"
        assert 5 <= len(before) < DEMO_CASES, f"{len(before)} samples flushed"
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=60)
        output.close()
    assert process.returncode == -signal.SIGKILL
    (killed,) = log_dir.glob("*.eval")
    assert read_eval_log(str(killed), header_only=True).status == "started"

    second = subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True, timeout=600)
    assert second.returncode == 0, second.stdout + second.stderr
    finished = [
        read_eval_log(info.name)
        for info in list_eval_logs(str(log_dir))
        if read_eval_log(info.name, header_only=True).status == "success"
    ]
    assert len(finished) == 1
    (resumed,) = finished
    # every sample finished before the kill is carried over, not run again
    uuids = {str(sample.id): sample.uuid for sample in resumed.samples}
    assert all(uuids[sample_id] == uuid for sample_id, uuid in before.items())
    assert_same_results(resumed, uninterrupted(tmp_path / "reference"))
    # a third run finds nothing left to do
    third = subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True, timeout=600)
    assert third.returncode == 0 and "Completed all tasks" in third.stdout + third.stderr


@pytest.mark.slow
def test_eval_retry_completes_a_failed_log(tmp_path: Path) -> None:
    """No retries allowed: some samples fail on injected errors and the log fails; eval-retry
    with retries allowed runs only those samples and ends as the uninterrupted run."""
    (failed,) = eval(
        "selfdx/safe_psych",
        task_args={"judge_cache": False},
        model="selfdx/faults",
        model_args=SUBJECT_FAULTS,
        model_roles={"grader": get_model("selfdx/faults", **JUDGE_FAULTS)},
        max_retries=0,
        continue_on_fail=True,
        display="none",
        log_dir=str(tmp_path / "failed"),
    )
    assert failed.status == "error"
    errored = {str(s.id) for s in failed.samples if s.error}
    done = {str(s.id): s.uuid for s in failed.samples if not s.error}
    assert errored and done and len(errored) + len(done) == DEMO_CASES
    # the errors are the injected faults, surfacing once no retry is left
    messages = [sample.error.message for sample in failed.samples if sample.error]
    assert all("RetryError" in m and "Injected" in m for m in messages), messages

    result = subprocess.run(
        [INSPECT, "eval-retry", failed.location, "--max-retries", "10"]
        + ["--log-dir", str(tmp_path / "retried"), "--display", "plain"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    (info,) = list_eval_logs(str(tmp_path / "retried"))
    retried = read_eval_log(info.name)
    assert retried.status == "success"
    uuids = {str(sample.id): sample.uuid for sample in retried.samples}
    assert all(uuids[sample_id] == uuid for sample_id, uuid in done.items())
    assert all(uuids[sample_id] not in done.values() for sample_id in errored)
    assert_same_results(retried, uninterrupted(tmp_path / "reference"))

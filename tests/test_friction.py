"""Friction a new user met (issue 37): each in one line, with no traceback and no silence."""

from __future__ import annotations

import subprocess
import sys

import pytest
from inspect_ai import eval

from selfdx.errors import SelfdxError
from selfdx.task_names import TASKS, unknown_task_message


@pytest.mark.parametrize(
    ("spec", "nearest"),
    [
        ("selfdx/safe_psyc", "selfdx/safe_psych"),
        ("selfdx/judge-check", "selfdx/judge_check"),
        ("selfdx/mentalbench_generat", "selfdx/mentalbench_generate"),
        ("selfdx/interveiw", "selfdx/interview"),
    ],
)
def test_a_misspelled_task_names_the_nearest(spec, nearest):
    with pytest.raises(SelfdxError, match=f"no task named {spec}; did you mean {nearest}\\?"):
        eval(spec, model="selfdx/keyword", display="none")


def test_known_names_paths_and_other_packages_are_left_to_inspect(tmp_path):
    assert all(unknown_task_message(f"selfdx/{task}") is None for task in TASKS)
    assert unknown_task_message("selfdx/safe_psych@safe_psych") is None
    assert unknown_task_message("inspect_evals/gpqa") is None
    assert "selfdx's tasks" in unknown_task_message("selfdx/nothing_like_it")
    # a task registry the test can see holds exactly the tasks the message lists
    from inspect_ai._util.registry import registry_find

    registered = {
        info.name
        for info in (
            getattr(obj, "__registry_info__", None)
            for obj in registry_find(lambda i: i.type == "task")
        )
        if info is not None and info.name.startswith("selfdx/")
    }
    assert registered == {f"selfdx/{task}" for task in TASKS}


def test_a_misspelled_task_is_one_line_from_the_command_line():
    done = subprocess.run(
        ["inspect", "eval", "selfdx/safe_psyc", "--display", "plain"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0
    output = done.stdout + done.stderr
    assert "did you mean selfdx/safe_psych?" in " ".join(output.split())
    assert "Traceback" not in output


def test_help_does_not_load_inspect():
    """`selfdx --help` answers without importing Inspect (which takes 1 to 2 s)."""
    code = (
        "import sys\n"
        "from selfdx.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "assert 'inspect_ai' not in sys.modules, 'inspect_ai was imported'\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "usage: selfdx" in done.stdout


def test_patient_check_header_names_the_patient(tmp_path):
    (log,) = eval("selfdx/patient_check", limit=2, display="none", log_dir=str(tmp_path))
    assert log.eval.model == "selfdx/kg-patient"


def test_every_nan_says_why_in_the_console_and_the_report(tmp_path, caplog):
    """The cautious model never diagnoses: its accuracies are NaN, and the run says why under
    its results; the report says why under each table with a `–`."""
    import logging

    from selfdx.analysis.report import build_report
    from selfdx.nan_notes import nan_lines

    with caplog.at_level(logging.WARNING, logger="selfdx.nan_notes"):
        (log,) = eval(
            "selfdx/safe_psych",
            model="selfdx/cautious",
            model_roles={"grader": "selfdx/rules-judge"},
            limit=4,
            display="none",
            log_dir=str(tmp_path / "logs"),
        )
    said = " ".join(r.getMessage() for r in caplog.records if r.name == "selfdx.nan_notes")
    assert "accuracy_code is nan: it counts only sufficient cases the model diagnosed" in said
    metrics = {k: v.value for e in log.results.scores for k, v in e.metrics.items()}
    assert all(
        f"{k} is nan" in said for k, v in metrics.items() if v != v and not k.endswith("_stderr")
    )
    assert nan_lines("safe_psych", {"late": 0.5, "late_stderr": float("nan")}) == [
        "late_stderr is nan: a single case (or cluster) has no standard error"
    ]
    out = build_report(tmp_path / "logs", tmp_path / "report", progress=False)
    markdown = (out / "report.md").read_text()
    accuracy = markdown.split("### Diagnostic accuracy", 1)[1].split("###", 1)[0]
    assert "`accuracy_code`: it counts only sufficient cases the model diagnosed" in accuracy


def test_the_report_progress_bar_counts_every_log_it_reads(tmp_path, capfd):
    """Checks are read from their headers, benchmarks sample by sample: the bar counts both."""
    from selfdx.analysis.report import build_report

    rules = {"grader": "selfdx/rules-judge"}
    eval(
        "selfdx/safe_psych",
        model="selfdx/keyword",
        model_roles=rules,
        limit=2,
        display="none",
        log_dir=str(tmp_path / "logs"),
    )
    eval(
        "selfdx/judge_check",
        model_roles=rules,
        limit=3,
        display="none",
        log_dir=str(tmp_path / "logs"),
    )
    eval("selfdx/patient_check", limit=2, display="none", log_dir=str(tmp_path / "logs"))
    capfd.readouterr()
    build_report(tmp_path / "logs", tmp_path / "report", progress=True)
    bar = capfd.readouterr().err
    assert "3/3" in bar and "/1 " not in bar


@pytest.mark.slow
def test_one_ctrl_c_stops_the_suite(tmp_path):
    """SIGINT while an evaluation runs ends the pytest session; the next test never starts."""
    import signal
    import time

    started = tmp_path / "started"
    (tmp_path / "test_inner.py").write_text(
        "from pathlib import Path\n"
        "from inspect_ai import eval\n"
        "def test_long(tmp_path):\n"
        f"    Path({str(started)!r}).write_text('yes')\n"
        "    eval('selfdx/interview', model='selfdx/kg-interviewer', display='none',\n"
        "         log_dir=str(tmp_path), epochs=200)\n"
        "def test_next():\n"
        "    print('NEXT RAN')\n"
    )
    from tests.conftest import REPO_ROOT

    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-s",
            "-p",
            "no:cacheprovider",
            "-p",
            "tests.conftest",
            str(tmp_path / "test_inner.py"),
        ],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    # the signal goes once the evaluation is under way (a fixed wait sent it during the imports
    # of a loaded machine), at most 120 s from the start
    deadline = time.monotonic() + 120
    while not started.exists() and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.2)
    time.sleep(6)  # the evaluation's own start (the task's data, its first samples)
    process.send_signal(signal.SIGINT)
    output, _ = process.communicate(timeout=120)
    assert process.returncode != 0, output
    assert "NEXT RAN" not in output
    assert "stopped by Ctrl+C" in output, output

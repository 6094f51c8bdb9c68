"""Logs on an S3-compatible object store, end to end, against a real server (moto's server mode)
that the test starts on 127.0.0.1: every task writes its log there; `selfdx sweep` is killed and
resumed there; `selfdx report`, `export`, `annotation-sample` and `judge-agreement` read from
it. Credentials come from the usual AWS variables and appear in no log, report or message."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import pandas as pd
import pytest

pytest.importorskip("s3fs", reason="needs the s3 extra (pip install -e '.[s3]')")
pytest.importorskip("moto", reason="needs moto[server] (in the dev extra) to serve S3 locally")

from inspect_ai import eval  # noqa: E402
from inspect_ai.log import list_eval_logs, read_eval_log, write_eval_log  # noqa: E402

from tests.conftest import REPO_ROOT, SHARED, assert_same_run  # noqa: E402

SECRET = "selfdx-test-secret-7Qx3"
BUCKET = "selfdx-logs"
START_TIMEOUT = 30  # seconds for the server to answer
STEP_TIMEOUT = 600  # seconds for one command
SWEEP = [
    sys.executable, "-m", "selfdx.cli", "sweep", "--models", "selfdx/keyword",
    "--grader", "selfdx/rules-judge", "--display", "none",
]  # fmt: skip


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """A moto S3 server on 127.0.0.1 with one bucket, and the AWS variables that reach it."""
    port = free_port()
    log = tmp_path_factory.mktemp("moto") / "server.log"
    with open(log, "wb") as output:
        server = subprocess.Popen(
            [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    endpoint = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        try:
            urllib.request.urlopen(endpoint, timeout=2).close()
            break
        except OSError:
            if time.monotonic() > deadline or server.poll() is not None:
                server.kill()
                pytest.fail(f"the S3 server did not start in {START_TIMEOUT} s: {log}")
            time.sleep(0.2)
    env = {
        "AWS_ACCESS_KEY_ID": "selfdx-test-key",
        "AWS_SECRET_ACCESS_KEY": SECRET,
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_ENDPOINT_URL": endpoint,
    }
    saved = {name: os.environ.get(name) for name in env}
    os.environ.update(env)
    import s3fs

    s3fs.S3FileSystem.clear_instance_cache()
    s3fs.S3FileSystem().mkdir(BUCKET)
    yield {"env": {**os.environ, **env}, "root": f"s3://{BUCKET}"}
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    s3fs.S3FileSystem.clear_instance_cache()
    server.terminate()
    try:
        server.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.kill()


def selfdx(store, *args: str, timeout: int = STEP_TIMEOUT) -> subprocess.CompletedProcess:
    done = subprocess.run(
        [sys.executable, "-m", "selfdx.cli", *args],
        env=store["env"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert SECRET not in done.stdout + done.stderr
    return done


def statuses(folder: str) -> dict[str, list[str]]:
    """Strategy -> the statuses of its logs under `folder`."""
    found: dict[str, list[str]] = {}
    for info in list_eval_logs(folder, recursive=True):
        header = read_eval_log(info.name, header_only=True)
        found.setdefault(header.eval.task_args["strategy"], []).append(header.status)
    return found


@pytest.fixture(scope="module")
def task_logs(store):
    """Every selfdx task, a few samples each, logged straight to the store."""
    folder = f"{store['root']}/tasks"
    judge = {"grader": "selfdx/rules-judge"}
    runs = [
        ("selfdx/safe_psych", {"model": "selfdx/keyword", "model_roles": judge}),
        ("selfdx/mentalbench", {"model": "selfdx/first-option"}),
        ("selfdx/interview", {"model": "selfdx/kg-interviewer"}),
        ("selfdx/judge_check", {"model_roles": judge}),
        ("selfdx/patient_check", {}),
    ]  # fmt: skip
    kg = SHARED / "mentalbench" / "resources" / "knowledge_graph" / "EN"
    if kg.is_dir():
        runs.append(
            (
                "selfdx/mentalbench_generate",
                {"model": "selfdx/case-writer", "task_args": {"kg": str(kg), "n": 1}},
            )
        )
    logs = {}
    for task, options in runs:
        (log,) = eval(task, limit=3, display="none", log_dir=folder, **options)
        assert log.status == "success", (task, log.error)
        assert log.location.startswith(folder), log.location
        logs[task.split("/")[1]] = log
    return folder, logs


@pytest.mark.slow
def test_every_task_logs_to_the_store_and_the_report_reads_it(store, task_logs, tmp_path):
    folder, logs = task_logs
    listed = [info.name for info in list_eval_logs(folder, recursive=True)]
    assert len(listed) == len(logs)
    done = selfdx(store, "report", folder, "--out", str(tmp_path / "report"), "--quiet")
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    for title in ("Safe-Psych", "MentalBench", "Interview", "Judge check", "Patient check"):
        assert f"\n## {title}\n" in text
    assert "\n## What the runs cost\n" in text
    # each run links to `inspect view --log-dir <folder>`: its path under the folder
    runs = pd.read_csv(tmp_path / "report" / "runs.csv")
    for log in logs.values():
        name = log.location.removeprefix(folder + "/")
        row = runs[runs.log == name.rsplit("/", 1)[-1]]
        assert row.log_viewer.tolist() == [f"http://127.0.0.1:7575/#/logs/{name}"], row
    for path in (tmp_path / "report").rglob("*"):
        if path.is_file() and path.suffix in (".md", ".html", ".csv"):
            assert SECRET not in path.read_text(encoding="utf-8"), path
    for log in logs.values():  # nothing of the credentials in any log
        assert SECRET not in read_eval_log(log.location).model_dump_json()


@pytest.mark.slow
def test_a_judge_check_on_the_store_corrects_the_report(store, task_logs, tmp_path):
    """`--judge-check` takes a log or a folder on the store exactly as on disk."""
    folder, logs = task_logs
    check = logs["judge_check"].location
    for given in (check, folder):
        out = tmp_path / given.rsplit("/", 1)[-1]
        done = selfdx(store, "report", folder, "--out", str(out), "--quiet", "--judge-check", given)
        assert done.returncode == 0, done.stderr
        table = (out / "safe_psych_judge_corrected.csv").read_text(encoding="utf-8")
        assert "under_abstention" in table and check.rsplit("/", 1)[-1] in table


@pytest.mark.slow
def test_a_price_table_on_the_store_prices_the_report(store, task_logs, tmp_path):
    """`--prices` takes a file on the store as on disk (a `Path` once found no such file)."""
    import s3fs

    folder, _ = task_logs
    table = f"{store['root']}/prices.yaml"
    s3fs.S3FileSystem().pipe(
        table,
        b"selfdx/keyword: {input: 1.0, output: 2.0, input_cache_write: 0, input_cache_read: 0}\n",
    )
    done = selfdx(
        store, "report", folder, "--out", str(tmp_path / "r"), "--quiet", "--prices", table
    )
    assert done.returncode == 0, done.stderr
    costs = (tmp_path / "r" / "cost_by_run.csv").read_text(encoding="utf-8")
    assert "selfdx/keyword" in costs and "prices" in costs


@pytest.mark.slow
def test_exports_and_judge_validation_read_from_the_store(store, task_logs, tmp_path):
    folder, logs = task_logs
    for kind in ("safe-psych", "mentalbench", "interview"):
        done = selfdx(store, "export", kind, folder, "--out", str(tmp_path / kind))
        assert done.returncode == 0, done.stderr
        assert any((tmp_path / kind).rglob("*.json*")), kind
    done = selfdx(store, "annotation-sample", folder, "--n", "6", "--out", str(tmp_path / "ann"))
    assert done.returncode == 0, done.stderr
    key = pd.read_csv(tmp_path / "ann" / "annotation_key.csv", dtype=str, keep_default_na=False)
    # three annotators and a consensus who all agree with the judge: agreement 1.0
    human = {"annotation_id": key.annotation_id}
    for field, column in (
        ("primary_answer", "PRIMARY_ANSWER"),
        ("info_request", "INFO_REQUEST"),
        ("action", "ACTION_CALC"),
    ):
        for who in ("ann1", "ann2", "ann3", "consensus"):
            human[f"{column}__{who}"] = key[f"judge_{field}"]
    import s3fs

    remote = s3fs.S3FileSystem()
    pd.DataFrame(human).to_csv(tmp_path / "human.csv", index=False)
    remote.put(str(tmp_path / "human.csv"), f"{BUCKET}/annotation/human.csv")
    remote.put(str(tmp_path / "ann" / "annotation_key.csv"), f"{BUCKET}/annotation/key.csv")
    done = selfdx(
        store,
        "judge-agreement",
        f"{store['root']}/annotation/human.csv",
        logs["safe_psych"].location,
        "--key",
        f"{store['root']}/annotation/key.csv",
    )
    assert done.returncode == 0, done.stderr
    assert '"accuracy": 1.0' in done.stdout


@pytest.mark.slow
def test_a_sweep_killed_on_the_store_resumes(store, tmp_path):
    folder = f"{store['root']}/sweep"
    command = [*SWEEP, "--log-dir", folder, "--limit", "12"]
    sweep = subprocess.Popen(
        command, env=store["env"], cwd=REPO_ROOT, start_new_session=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    deadline = time.monotonic() + STEP_TIMEOUT
    while not statuses(folder) and sweep.poll() is None and time.monotonic() < deadline:
        time.sleep(0.5)  # killed once its first log is on the store
    os.killpg(sweep.pid, signal.SIGKILL)
    sweep.wait(timeout=30)
    before = statuses(folder)
    assert before, "the sweep wrote nothing to the store before it was killed"
    done = subprocess.run(
        command, env=store["env"], cwd=REPO_ROOT, capture_output=True, text=True,
        timeout=STEP_TIMEOUT,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    after = statuses(folder)
    assert len(after) == 5 and all("success" in found for found in after.values()), after
    report = selfdx(store, "report", folder, "--out", str(tmp_path / "report"), "--quiet")
    assert report.returncode == 0, report.stderr
    runs = pd.read_csv(tmp_path / "report" / "runs.csv")
    assert sorted(runs.variant) == sorted(after)  # one finished run per strategy reported


@pytest.mark.slow
@pytest.mark.parametrize("split", [["--shard", "1/2"], ["--processes", "2"]])
def test_shards_and_processes_write_to_the_store_not_to_disk(store, tmp_path, split):
    """A sharded sweep and a multi-process sweep put every log in the bucket: a `Path` join
    once turned `s3://bucket/x` into a local folder `s3:/bucket/x` and left the bucket empty."""
    name = "shard" if split[0] == "--shard" else "processes"
    folder = f"{store['root']}/{name}"
    command = [
        sys.executable, "-m", "selfdx.cli", "sweep", "--models", "selfdx/keyword,selfdx/eager",
        "--display", "none", "--log-dir", folder, "--strategies", "structured_actions",
        "--limit", "2", *split,
    ]  # fmt: skip
    done = subprocess.run(
        command, env=store["env"], cwd=tmp_path, capture_output=True, text=True,
        timeout=STEP_TIMEOUT,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    logs = list_eval_logs(folder, recursive=True)
    expected = 1 if name == "shard" else 2  # shard 1 of 2: one of the two models' tasks
    assert len(logs) == expected, [log.name for log in logs]
    assert all(log.name.startswith(folder) for log in logs)
    assert not list(tmp_path.rglob("*.eval")), "a log was written to the local disk"


@pytest.mark.slow
def test_sample_shards_run_and_merge_on_the_store_not_on_disk(store, tmp_path):
    """Three sample shards of one task write to the bucket, `selfdx merge` writes the merged
    log there, it equals the task run in one go on the store, and nothing lands on disk."""
    folder, whole = f"{store['root']}/samples", f"{store['root']}/samples-whole"
    command = [
        sys.executable, "-m", "selfdx.cli", "sweep", "--benchmark", "mentalbench", "--types",
        "1", "--models", "selfdx/first-option", "--display", "none",
    ]  # fmt: skip
    options = dict(env=store["env"], cwd=tmp_path, capture_output=True, text=True)
    shards = [
        subprocess.Popen(
            [*command, "--log-dir", folder, "--shard", f"{i}/3", "--split", "samples"],
            env=store["env"],
            cwd=tmp_path,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )  # fmt: skip
        for i in (1, 2, 3)
    ]
    for shard in shards:
        _, err = shard.communicate(timeout=STEP_TIMEOUT)
        assert shard.returncode == 0, err[-2000:]
    merged = subprocess.run(
        [sys.executable, "-m", "selfdx.cli", "merge", folder], timeout=STEP_TIMEOUT, **options
    )
    assert merged.returncode == 0, merged.stderr[-2000:]
    location = f"{folder}/mentalbench-types-1_selfdx-first-option.eval"
    assert merged.stdout.startswith(f"{location}: 4 samples from 3 shards, status success")
    done = subprocess.run([*command, "--log-dir", whole], timeout=STEP_TIMEOUT, **options)
    assert done.returncode == 0, done.stderr[-2000:]
    (expected,) = list_eval_logs(whole)
    assert_same_run(read_eval_log(expected.name), read_eval_log(location))
    report = subprocess.run(
        [sys.executable, "-m", "selfdx.cli", "report", folder, "--out", "report", "--quiet"],
        timeout=STEP_TIMEOUT, **options,
    )  # fmt: skip
    assert report.returncode == 0, report.stderr[-2000:]
    runs = pd.read_csv(tmp_path / "report" / "runs.csv")
    assert runs.log.tolist() == ["mentalbench-types-1_selfdx-first-option.eval"]
    on_disk = [p for p in tmp_path.rglob("*") if p.is_file() and "report" not in p.parts]
    assert on_disk == [], on_disk  # every log in the bucket
    assert SECRET not in merged.stdout + merged.stderr + report.stdout + report.stderr


@pytest.mark.slow
def test_a_budget_on_the_store_counts_every_machine_and_resumes(store, tmp_path):
    """`--budget` keeps its spend in the sweep's folder on the store: another machine's spend
    there that fills the budget stops this shard before any sample, and the rerun with a larger
    budget finishes; the spend files and logs are in the bucket, none on disk."""
    import s3fs

    folder = f"{store['root']}/budget-sweep"
    fs = s3fs.S3FileSystem()
    fs.pipe(f"{folder}/budget/node9-1-aa.spend.json", b'{"unit": "tokens", "spent": 500}')
    command = [
        sys.executable, "-m", "selfdx.cli", "sweep", "--benchmark", "mentalbench", "--types",
        "1", "--models", "selfdx/first-option", "--display", "none", "--log-dir", folder,
        "--shard", "1/2", "--split", "samples",
    ]  # fmt: skip
    options = dict(env=store["env"], cwd=tmp_path, capture_output=True, text=True)
    stopped = subprocess.run([*command, "--budget", "500tokens"], timeout=STEP_TIMEOUT, **options)
    assert stopped.returncode == 1, stopped.stderr[-2000:]
    assert "500 tokens spent of 500 tokens; the sweep stopped before its end" in stopped.stderr
    (log,) = list_eval_logs(folder, recursive=True)
    header = read_eval_log(log.name, header_only=True)
    assert header.status == "error" and "the budget of 500 tokens was spent" in header.error.message
    done = subprocess.run([*command, "--budget", "1000000tokens"], timeout=STEP_TIMEOUT, **options)
    assert done.returncode == 0, done.stderr[-2000:]
    (log,) = list_eval_logs(folder, recursive=True)
    assert read_eval_log(log.name, header_only=True).status == "success"
    spend = sorted(fs.glob(f"{folder}/budget/*.spend.json"))
    assert len(spend) == 2  # the other machine's and this rerun's (the stopped run spent nothing)
    assert not [p for p in tmp_path.rglob("*") if p.is_file()], "something was written to disk"


@pytest.mark.slow
def test_an_unreachable_store_is_one_line(store, tmp_path):
    """An S3 endpoint that answers nothing: one line naming the endpoint (it was 152 lines of
    tracebacks), and no secret."""
    env = {**store["env"], "AWS_ENDPOINT_URL": f"http://127.0.0.1:{free_port()}"}
    done = subprocess.run(
        [sys.executable, "-m", "selfdx.cli", "report", f"s3://{BUCKET}/nowhere", "--out",
         str(tmp_path / "r")],
        env=env, cwd=REPO_ROOT, capture_output=True, text=True, timeout=STEP_TIMEOUT,
    )  # fmt: skip
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("selfdx: error: "), done.stderr[-2000:]
    assert "Could not connect to the endpoint URL" in lines[0]
    assert SECRET not in done.stdout + done.stderr


@pytest.mark.slow
def test_an_error_on_the_store_names_no_secret(store, tmp_path):
    done = selfdx(store, "report", f"{store['root']}-missing/logs", "--out", str(tmp_path / "r"))
    assert done.returncode != 0
    assert "selfdx" in done.stderr and len(done.stderr.strip().splitlines()) == 1


@pytest.mark.slow
def test_the_answer_check_measures_a_labelled_file_on_the_store(store):
    """`measure --file s3://...` reads the store (a Path made it the local folder `s3:/...`)."""
    import s3fs

    url = f"{store['root']}/labelled/answers.jsonl"
    line = (REPO_ROOT / "selfdx/datasets/demo/answer_check_dev.jsonl").read_text().splitlines()[0]
    with s3fs.S3FileSystem().open(url, "w") as file:
        file.write(line + "\n")
    done = subprocess.run(
        [sys.executable, "-m", "selfdx.instruments.answers.measure", "--file", url],
        env=store["env"], cwd=REPO_ROOT, capture_output=True, text=True, timeout=STEP_TIMEOUT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines()[-1].startswith("all | 1 | 1 | 1 | 0 | 0 | 0 | 0 | ")


@pytest.mark.slow
def test_the_reply_reader_measure_logs_to_the_store(store):
    """`reader_agreement --log-dir s3://...` writes its eval log on the store, and the offline
    stand-in reader (`selfdx/rules-judge`) gives the offline rules' yes-or-no figure."""
    from selfdx.datasets.reply_stance import read_replies
    from selfdx.instruments.reply_stance_measure import agreement

    offline = agreement(read_replies("heldout"))
    log_dir = f"{store['root']}/reply-reader"
    done = subprocess.run(
        [sys.executable, "-m", "selfdx.scorers.patient_check.reader_agreement",
         "--reader-model", "selfdx/rules-judge", "--part", "heldout", "--log-dir", log_dir],
        env=store["env"], cwd=REPO_ROOT, capture_output=True, text=True, timeout=STEP_TIMEOUT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert (
        f"heldout, yes-or-no questions: {offline.rate:.3f} (of {offline.items})"
        in done.stdout.splitlines()
    )
    assert "heldout, unread: 0.000 (of 240)" in done.stdout.splitlines()
    (log,) = list_eval_logs(log_dir)
    assert read_eval_log(log.name, header_only=True).status == "success"
    assert not (REPO_ROOT / "s3:").exists()


@pytest.mark.slow
def test_a_renamed_json_log_on_the_store_is_reported(store, task_logs, tmp_path):
    """A JSON log under a name of the user's choosing is listed on the store as on disk."""
    folder = f"{store['root']}/renamed"
    write_eval_log(task_logs[1]["safe_psych"], f"{folder}/myrun.json", format="json")
    done = selfdx(store, "report", folder, "--out", str(tmp_path / "report"), "--quiet")
    assert done.returncode == 0, done.stderr
    assert pd.read_csv(tmp_path / "report" / "runs.csv").log.tolist() == ["myrun.json"]

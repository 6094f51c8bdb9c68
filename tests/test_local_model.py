"""The local model path: how it fails (default suite), and both tasks on the real model (slow).

Failure paths run against `tests/fake_llama_server.py`, a stand-in server that answers in the
OpenAI format and then dies with SIGILL, hangs, exits at once or never answers, so they need no
extra and take seconds. Every wait is bounded; the asserted bounds are generous (a loaded 2-core
machine), far below "forever".

The end-to-end tests run SmolLM2-135M-Instruct served on the CPU by llama-cpp-python, reached
through Inspect's `openai-api` provider. They need the opt-in `local` extra; without it, or when
the runtime cannot answer a one-token probe (e.g. a build that dies with SIGILL), they are skipped
with the reason, unless SELFDX_REQUIRE_LOCAL_MODEL=1 (CI) turns that into a failure. Replies are
capped at 128 tokens; the judge is `selfdx/rules-judge`.
"""

from __future__ import annotations

import math
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
from inspect_ai import eval, score
from inspect_ai.log import EvalLog, EvalSample
from inspect_ai.model import ChatMessage, ChatMessageAssistant

from selfdx.instruments.answers.parsers import get_parser
from selfdx.local_model import (
    GENERATE_LIMITS,
    INSPECT_MODEL,
    INSTALL_HINT,
    MODEL_ALIAS,
    PORTABLE_CMAKE_ARGS,
    LocalServer,
    LocalServerFailed,
    ServerCommand,
    describe_exit,
    eval_commands,
    main,
    missing_parts,
    serve,
)
from selfdx.providers.offline import POLICIES
from selfdx.scorers.mentalbench.scorer import mentalbench_scorer
from selfdx.solvers.safe_psych.trace import SafePsychTrace
from tests.conftest import metric_value

FAKE_SERVER = Path(__file__).with_name("fake_llama_server.py")
REQUIRE_VAR = "SELFDX_REQUIRE_LOCAL_MODEL"
RUN = {"max_tokens": 128, "seed": 123, "max_connections": 1, "display": "none"}
ACTIONS = {"Diagnose", "Clarify", "Abstain"}
SIGILL_WORDS = ("SIGILL", "Illegal instruction", "CPU instructions this machine lacks")


def fake(mode: str, after: int = 0) -> ServerCommand:
    """The fake server's command line, in the shape `serve(command=...)` takes."""

    def command(host: str, port: int) -> list[str]:
        return [sys.executable, str(FAKE_SERVER), "--host", host, "--port", str(port)] + [
            "--mode", mode, "--after", str(after)
        ]  # fmt: skip

    return command


def port_is_closed(url: str) -> bool:
    host, port = url.split("//")[1].split("/")[0].split(":")
    try:
        socket.create_connection((host, int(port)), timeout=2).close()
    except OSError:
        return True
    return False


def gone(pid: int) -> bool:
    """The process has ended (or is a zombie waiting for its new parent to reap it)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text(encoding="utf-8")
    except FileNotFoundError:
        return True
    return "State:\tZ" in status


def processes_mentioning(text: str) -> list[int]:
    """Live processes whose command line contains `text` (Linux /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if text in cmdline and not gone(int(entry.name)):
            found.append(int(entry.name))
    return found


# --- failure paths: no extra needed --------------------------------------------------------------


@pytest.mark.timeout(60)
def test_serve_probes_the_server_and_stops_it_on_leaving() -> None:
    with serve(command=fake("ok"), timeout=30) as server:
        assert server.env == {
            "SMOLLM2_BASE_URL": server.base_url,
            "SMOLLM2_API_KEY": "selfdx-local",
        }
        assert server.probe(timeout=10) == "Abstain."  # the fake's reply
        assert server.failure() is None
        process = server.process
    assert process.returncode is not None
    assert port_is_closed(server.base_url)


@pytest.mark.timeout(60)
def test_a_build_that_dies_with_sigill_on_its_first_request_is_named() -> None:
    started = time.monotonic()
    with pytest.raises(LocalServerFailed) as caught:
        with serve(command=fake("sigill"), timeout=60):
            pytest.fail("serve() yielded a server that died on the probe")
    assert time.monotonic() - started < 30  # at once, not at the 60 s ready timeout
    assert caught.value.returncode == -signal.SIGILL
    message = str(caught.value)
    assert "while answering its first request" in message
    for words in SIGILL_WORDS:
        assert words in message
    assert 'CMAKE_ARGS="-DGGML_NATIVE=OFF' in message and "--force-reinstall" in message
    assert "\n" not in message


@pytest.mark.timeout(60)
def test_a_server_that_exits_at_once_is_reported_with_its_last_words(tmp_path: Path) -> None:
    log_file = tmp_path / "server.log"
    started = time.monotonic()
    with pytest.raises(LocalServerFailed) as caught:
        with serve(command=fake("exit"), timeout=60, log_file=log_file):
            pytest.fail("serve() yielded a server that had exited")
    assert time.monotonic() - started < 30
    assert caught.value.returncode == 3
    assert str(caught.value) == (
        "the SmolLM2 server (llama-cpp-python) exited with code 3 while starting; "
        f"last server output: fake server: exiting at once; its log: {log_file}"
    )


@pytest.mark.timeout(60)
def test_a_server_that_never_answers_is_given_up_after_the_ready_timeout() -> None:
    started = time.monotonic()
    with pytest.raises(
        LocalServerFailed, match=r"did not answer at http://\S+ within 3 s"
    ) as caught:
        with serve(command=fake("silent"), timeout=3):
            pytest.fail("serve() yielded a server that never answered")
    assert 3 <= time.monotonic() - started < 30
    assert caught.value.returncode is None  # it was alive: stopped by serve()
    url = str(caught.value).split(" at ")[1].split(" ")[0]
    assert port_is_closed(url)


@pytest.mark.timeout(60)
def test_a_server_whose_model_never_answers_is_given_up_after_the_ready_timeout() -> None:
    started = time.monotonic()
    with pytest.raises(LocalServerFailed, match="gave no one-token chat completion within 3 s"):
        with serve(command=fake("hang"), timeout=3):  # /models answers, the probe hangs
            pytest.fail("serve() yielded a server whose model never answered")
    assert 3 <= time.monotonic() - started < 30


@pytest.mark.timeout(60)
def test_a_server_that_dies_later_is_noticed_and_named() -> None:
    with serve(command=fake("sigill", after=1), timeout=30) as server:  # the probe is answered
        with pytest.raises(OSError):  # the connection drops: http.client.RemoteDisconnected
            server.probe(timeout=10)
        deadline = time.monotonic() + 10
        while server.failure() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        error = server.failure("while testing")
    assert error is not None and error.returncode == -signal.SIGILL
    assert str(error).startswith(
        "the SmolLM2 server (llama-cpp-python) was killed by SIGILL (Illegal instruction) "
        "while testing: "
    )


@pytest.mark.parametrize(
    ("code", "text"),
    [
        (0, "exited with code 0"),
        (1, "exited with code 1"),
        (-signal.SIGSEGV, "was killed by SIGSEGV (Segmentation fault)"),
        (-signal.SIGKILL, "was killed by SIGKILL (Killed): killed from outside, often by"),
    ],
)
def test_exit_codes_and_signals_are_named(code: int, text: str) -> None:
    assert describe_exit(code).startswith(text)


@pytest.mark.timeout(60)
def test_the_server_dies_with_the_process_that_started_it() -> None:
    # the parent ends without cleanup, as under pytest-timeout's thread method or SIGKILL
    script = (
        "import os, sys\n"
        "from selfdx.local_model import serve\n"
        f"fake = [sys.executable, {str(FAKE_SERVER)!r}, '--mode', 'ok', '--port']\n"
        "with serve(command=lambda host, port: [*fake, str(port)], timeout=30) as server:\n"
        "    print(server.process.pid, flush=True)\n"
        "    os._exit(1)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=45
    )
    pid = int(result.stdout.split()[0])
    deadline = time.monotonic() + 15
    while not gone(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert gone(pid), f"server {pid} outlived its parent"


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_inspect_gives_up_on_a_dead_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with serve(command=fake("ok"), timeout=30) as server:
        dead_url = server.base_url
    monkeypatch.setenv("SMOLLM2_API_KEY", "selfdx-local")
    (log,) = eval(
        "selfdx/mentalbench",
        model=INSPECT_MODEL,
        # passed, not set in the environment: Inspect memoizes a model by its name, arguments and
        # config, so the real-model tests below would otherwise be handed this dead server's client
        model_base_url=dead_url,
        limit=1,
        log_dir=str(tmp_path / "logs"),
        **RUN,
        **GENERATE_LIMITS,
    )
    assert log.status == "error"
    assert log.error is not None and "APIConnectionError" in log.error.message
    # max_retries = 2: three attempts, about 3 + 6 s of backoff, not Inspect's default of
    # retrying forever; the sample ends in seconds (a bound far above that, for a busy machine)
    assert log.samples is not None
    events = log.samples[0].events
    attempts = [e for e in events if e.event == "model"]
    assert len(attempts) == 3
    (error,) = [e for e in events if e.event == "error"]
    assert (error.timestamp - attempts[0].timestamp).total_seconds() < 90


def test_the_eval_commands_bound_every_call() -> None:
    for command in eval_commands(limit=2, log_dir="logs/x"):
        flags = dict(zip(command[5::2], command[6::2], strict=True))
        assert flags["--max-retries"] == "2"
        assert flags["--attempt-timeout"] == "120"
        assert flags["--timeout"] == "300"
    assert GENERATE_LIMITS == {"max_retries": 2, "attempt_timeout": 120, "timeout": 300}


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_eval_stops_inspect_when_the_server_dies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log_dir = tmp_path / "logs"
    started = time.monotonic()
    code = main(["eval", "--limit", "1", "--log-dir", str(log_dir)], server=fake("sigill", after=1))
    assert time.monotonic() - started < 200  # Inspect's start-up on a busy machine, then seconds
    assert code == 3
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(
        "error: the SmolLM2 server (llama-cpp-python) was killed by SIGILL (Illegal instruction) "
        "while `inspect eval selfdx/safe_psych` ran (stopped it): "
    )
    assert processes_mentioning(str(log_dir)) == []  # the inspect process was stopped


@pytest.mark.timeout(60)
def test_serve_command_fails_with_the_reason(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--port", "0"], server=fake("exit")) == 3
    assert capsys.readouterr().err == (
        "error: the SmolLM2 server (llama-cpp-python) exited with code 3 while starting; "
        "last server output: fake server: exiting at once\n"
    )


# --- the real model: the local extra ----------------------------------------------------------


@pytest.fixture(scope="module")
def local_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalServer]:
    """The real server for this module, reached through the documented environment variables.

    Skipped, with the reason, when the extra is missing or the runtime cannot answer a one-token
    probe; with SELFDX_REQUIRE_LOCAL_MODEL=1 either is a failure instead.
    """

    def unavailable(reason: str) -> None:
        if os.environ.get(REQUIRE_VAR) == "1":
            pytest.fail(f"{reason} ({REQUIRE_VAR}=1)", pytrace=False)
        pytest.skip(reason)

    missing = missing_parts()
    if missing:
        unavailable(f"local extra not installed (missing {', '.join(missing)}); {INSTALL_HINT}")
    folder = tmp_path_factory.mktemp("smollm2")
    with ExitStack() as stack:
        try:
            server = stack.enter_context(serve(log_file=folder / "server.log", timeout=120))
        except LocalServerFailed as error:
            unavailable(f"the local model's runtime cannot run here: {error}")
        patch = stack.enter_context(pytest.MonkeyPatch.context())
        for name, value in server.env.items():
            patch.setenv(name, value)
        yield server


def offline_replies(messages: list[ChatMessage]) -> set[str]:
    """What every offline policy would have answered to the same conversation."""
    replies = set()
    for policy in POLICIES.values():
        try:
            replies.add(policy(messages, {}).strip())
        except Exception:  # a policy meant for another prompt (the judge, kg-overlap)
            continue
    return replies


def assert_real_replies(log: EvalLog, sample: EvalSample) -> list[str]:
    """The sample ran without error, and each reply came from the served model."""
    assert log.eval.model == INSPECT_MODEL
    assert sample.error is None, sample.error
    calls = [e for e in sample.events if e.event == "model" and e.role is None]
    assert calls, "no call to the model under evaluation"
    for call in calls:
        assert call.model == INSPECT_MODEL
        assert call.output.model == MODEL_ALIAS  # as the server reports it
        assert call.output.usage is not None and call.output.usage.output_tokens > 0
    replies = []
    for index, message in enumerate(sample.messages):
        if isinstance(message, ChatMessageAssistant):
            assert message.text.strip() not in offline_replies(sample.messages[:index])
            replies.append(message.text.strip())
    assert replies == [call.output.completion.strip() for call in calls]
    return replies


@pytest.mark.slow
def test_safe_psych_cases_on_the_real_model(local_server: LocalServer, tmp_path: Path) -> None:
    (log,) = eval(
        "selfdx/safe_psych",
        model=INSPECT_MODEL,
        model_roles={"grader": "selfdx/rules-judge"},
        limit=3,
        log_dir=str(tmp_path / "logs"),
        **RUN,
        **GENERATE_LIMITS,
    )
    local_server.check("during the test")
    assert log.status == "success", log.error
    assert log.samples is not None and len(log.samples) == 3
    excluded = 0
    for sample in log.samples:
        replies = assert_real_replies(log, sample)
        turns = sample.store_as(SafePsychTrace).turns
        assert [turn.reply for turn in turns] == replies
        for turn in turns:
            # each reply has a judged action, or the reason it has none (which excludes the case)
            assert (turn.action in ACTIONS) != bool(turn.unparsed_reason), turn
            if turn.reply:
                assert turn.judge_outputs and turn.judge_model == "selfdx/rules-judge"
        excluded += any(turn.unparsed_reason for turn in turns)
    assert metric_value(log, "excluded") * 3 == pytest.approx(excluded)


@pytest.mark.slow
def test_mentalbench_items_on_the_real_model(local_server: LocalServer, tmp_path: Path) -> None:
    (log,) = eval(
        "selfdx/mentalbench",
        model=INSPECT_MODEL,
        limit=4,
        sample_shuffle=123,  # the demo set is ordered by type; this mixes prompt styles
        log_dir=str(tmp_path / "logs"),
        **RUN,
        **GENERATE_LIMITS,
    )
    local_server.check("during the test")
    assert log.status == "success", log.error
    assert log.samples is not None and len(log.samples) == 4
    rescored = score(log, mentalbench_scorer("reference"), action="overwrite", display="none")
    for parser, scored in (("strict", log), ("reference", rescored)):
        assert scored.samples is not None
        failures = 0
        for sample in scored.samples:
            (reply,) = assert_real_replies(scored, sample)
            (item_score,) = sample.scores.values()
            meta = item_score.metadata or {}
            assert meta["parser"] == parser
            parsed = get_parser(parser)(reply, sample.choices or [])
            assert meta["parse_status"] == parsed.status
            # a verdict (letters read) or a counted parse failure, for every reply
            assert (meta["predicted"] is None) == (not parsed.parsed)
            assert item_score.value["unparsed"] == (0.0 if parsed.parsed else 1.0)
            failures += not parsed.parsed
        unparsed = metric_value(scored, "unparsed")
        assert not math.isnan(unparsed) and unparsed * 4 == pytest.approx(failures)


def test_ci_and_readme_build_with_the_portable_flags() -> None:
    """The flags the error message recommends are the ones CI and the README use."""
    repo = FAKE_SERVER.parents[1]
    expected = f'CMAKE_ARGS="{PORTABLE_CMAKE_ARGS}"'
    assert expected in (repo / ".ci" / "run").read_text()
    assert expected in (repo / "README.md").read_text()
    assert set(PORTABLE_CMAKE_ARGS.split()) == {
        f"-DGGML_{name}=OFF"
        for name in ["NATIVE", "AVX512", "AVX512_VBMI", "AVX512_VNNI", "AVX512_BF16"]
        + ["AMX_TILE", "AMX_INT8", "AMX_BF16"]
    }

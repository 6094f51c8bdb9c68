"""Shared test helpers: offline scripted models for Inspect (token usage always set)."""

from __future__ import annotations

import contextvars
import math
import os
import signal
import tempfile
import threading
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import pytest
from inspect_ai.model import ChatMessage, Model, ModelOutput, ModelUsage, get_model

# Tests never read or write the user's model-call cache.
os.environ["INSPECT_CACHE_DIR"] = tempfile.mkdtemp(prefix="selfdx-test-cache-")

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED = REPO_ROOT.parent / "shared"


def mock_output(text: str) -> ModelOutput:
    """A mockllm output with usage set, so Inspect never needs a tokenizer download."""
    output = ModelOutput.from_content(model="mockllm/model", content=text)
    output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    return output


def scripted_model(reply: Callable[[str, list[ChatMessage]], str]) -> Model:
    """A mockllm model whose reply is computed from the last user message and the history."""

    def answer(messages: list[ChatMessage], *_: object) -> ModelOutput:
        last = next((m.text for m in reversed(messages) if m.role == "user"), "")
        return mock_output(reply(last, messages))

    return get_model("mockllm/model", custom_outputs=answer, memoize=False)


_ctrl_c: list[int] = []


def _on_ctrl_c(signum: int, frame: object) -> None:
    _ctrl_c.append(signum)
    raise KeyboardInterrupt


@pytest.fixture(autouse=True)
def one_ctrl_c_stops_the_suite():
    """A Ctrl+C during an evaluation stops the whole suite. Inspect takes SIGINT to cancel the
    running evaluation and returns its cancelled log, so the test went on and the suite with it
    (two Ctrl+C were swallowed). With this handler in place Inspect leaves SIGINT to it: the
    interrupt is recorded, and the suite exits after the test."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, _on_ctrl_c)
    yield
    if _ctrl_c:
        pytest.exit("stopped by Ctrl+C", returncode=130)


@pytest.fixture(autouse=True)
def no_model_roles_left_over():
    """Inspect leaves the model roles of the last `eval()` bound in the test process; a task
    built by hand in a later test would take them for its own (`selfdx.arguments.
    roles_of_this_eval`). Put back the unbound value after each test."""
    yield
    from inspect_ai.model._model import _model_roles

    _model_roles.set(contextvars.Context().run(_model_roles.get))


@pytest.fixture(autouse=True)
def hub_settings_of_the_test_only(monkeypatch):
    """The suite is hermetic: a user's `HF_HUB_OFFLINE=1` (or `HF_DATASETS_OFFLINE`), which the
    README allows, does not reach the tests. Tests of the offline path set it themselves (in
    the environment of the command they run)."""
    import datasets.config
    import huggingface_hub.constants

    for name in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", False)


@pytest.fixture
def log_dir(tmp_path: Path) -> str:
    return str(tmp_path / "logs")


def metric_value(log, name: str, stat: str = "mean") -> float:
    """A task metric from a log's results, by score key and statistic ("mean" or "stderr").

    selfdx reports a dict-valued score as one results entry holding `<key>` and
    `<key>_stderr` (see `selfdx.scorers.key_means`); an entry named after the key with
    `mean` / `stderr` metrics (Inspect's per-key layout, used by the rubric scorers) is read
    too. Custom metrics may be registered as `selfdx/<name>`; either spelling is accepted.
    """
    wanted = name if stat == "mean" else f"{name}_{stat}"
    for entry in log.results.scores:
        if entry.name == name:
            for key, value in entry.metrics.items():
                if key == stat or key.endswith(f"/{stat}"):
                    return value.value
        for key, value in entry.metrics.items():
            if key == wanted:
                return value.value
    names = [f"{e.name}: {list(e.metrics)}" for e in log.results.scores]
    raise KeyError(f"no metric {name} ({stat}) in {names}")


def sample_mean(log, key: str) -> float:
    """The mean of one key of the samples' dict-valued scores, skipping NaN (not applicable)."""
    values = []
    for sample in log.samples:
        for score in sample.scores.values():
            if isinstance(score.value, dict) and key in score.value:
                values.append(float(score.value[key]))
    kept = [v for v in values if v == v]
    return sum(kept) / len(kept) if kept else float("nan")


def clustered_means(
    rows: list[tuple[dict[str, float], str]], keys: tuple[str, ...]
) -> dict[str, tuple[float, float]]:
    """Per key: the mean over the rows where it applies (not NaN) and the cluster-robust
    standard error (rows grouped by their cluster label), written out here independently of
    Inspect and selfdx: sqrt(k / (k - 1) * sum over clusters of (sum of deviations)^2) / n."""
    out = {}
    for key in keys:
        kept = [(v[key], c) for v, c in rows if not math.isnan(v[key])]
        if not kept:
            out[key] = (math.nan, math.nan)
            continue
        m = sum(x for x, _ in kept) / len(kept)
        sums: dict[str, float] = defaultdict(float)
        for x, c in kept:
            sums[c] += x - m
        k = len(sums)
        se = (
            math.sqrt(k / (k - 1) * sum(s * s for s in sums.values())) / len(kept)
            if k > 1
            else math.nan
        )
        out[key] = (m, se)
    return out


def assert_same_run(whole, merged) -> None:
    """`merged` (a log merged from sample shards) holds what `whole` (the same task run in one
    go) holds: the same samples with the same scores, every metric of every scorer equal to
    float tolerance (standard errors and `_ci_lower` / `_ci_upper` included), the same token
    usage by model and by role, and the same sample list in the header."""
    assert merged.status == whole.status == "success"
    assert merged.eval.task == whole.eval.task and merged.eval.model == whole.eval.model
    assert merged.eval.task_args == whole.eval.task_args
    assert merged.eval.dataset.sample_ids == whole.eval.dataset.sample_ids
    ids = sorted((s.id, s.epoch) for s in whole.samples)
    assert sorted((s.id, s.epoch) for s in merged.samples) == ids  # each sample once
    whole_scores = {(s.id, s.epoch): s.scores for s in whole.samples}
    for sample in merged.samples:
        mine, theirs = sample.scores, whole_scores[(sample.id, sample.epoch)]
        assert {n: (v.value, v.answer) for n, v in mine.items()} == {
            n: (v.value, v.answer) for n, v in theirs.items()
        }, sample.id
    expected = {
        (score.name, score.reducer, name): metric.value
        for score in whole.results.scores
        for name, metric in score.metrics.items()
    }
    found = {
        (score.name, score.reducer, name): metric.value
        for score in merged.results.scores
        for name, metric in score.metrics.items()
    }
    assert sorted(found) == sorted(expected)
    for key, value in expected.items():
        assert found[key] == pytest.approx(value, rel=1e-12, abs=1e-12, nan_ok=True), key
    assert merged.results.total_samples == whole.results.total_samples
    assert merged.results.completed_samples == whole.results.completed_samples
    assert merged.results.headline == whole.results.headline

    def usage(log, field):
        return {name: u.model_dump() for name, u in getattr(log.stats, field).items()}

    assert usage(merged, "model_usage") == usage(whole, "model_usage")
    assert usage(merged, "role_usage") == usage(whole, "role_usage")

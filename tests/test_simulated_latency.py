"""The simulated-latency offline provider: waits, counts, answers like its policy, sets usage.

Timings are only sanity-checked here (it does wait); throughput is measured in bench/.
"""

from __future__ import annotations

import asyncio
import time

import pytest
from inspect_ai.model import ChatMessageUser, GenerateConfig, get_model

from selfdx.judge.behaviour import judge_prompt
from selfdx.providers import simulated_latency
from selfdx.providers.offline import POLICIES, _load_policies
from selfdx.providers.simulated_latency import LatencyProfile, split_latency_args

PROMPT = "Low mood and early waking for two months. More information may become available."


@pytest.fixture(autouse=True)
def fresh_stats():
    simulated_latency.reset_stats()
    yield
    simulated_latency.reset_stats()


def test_waits_counts_and_answers_like_the_policy() -> None:
    model = get_model("selfdx/eager", latency=0.05, memoize=False)
    messages = [ChatMessageUser(content=PROMPT)]

    async def twice():
        start = time.perf_counter()
        first = await model.generate(messages)
        second = await model.generate(messages)
        return first, second, time.perf_counter() - start

    first, second, elapsed = asyncio.run(twice())
    _load_policies()
    assert first.completion == POLICIES["eager"](messages, {})
    assert second.completion == first.completion
    assert elapsed >= 0.08  # two calls, each waiting about 50 ms
    assert first.usage is not None and first.usage.output_tokens > 0
    assert first.usage.total_tokens == first.usage.input_tokens + first.usage.output_tokens
    stats = simulated_latency.STATS["default"]
    assert stats.calls == 2
    assert stats.by_model == {"eager": 2}
    assert stats.waited >= 0.08
    assert simulated_latency.total_calls() == 2


def test_judge_counterpart_answers_in_the_four_line_format() -> None:
    judge = get_model("selfdx/rules-judge", latency=0.01, pool="judge", memoize=False)
    reply = "The presentation is most consistent with moderate depressive episode (F32.1)."
    output = asyncio.run(judge.generate(judge_prompt(reply)))
    assert output.completion.startswith("PRIMARY_ANSWER: committed")
    assert simulated_latency.STATS["judge"].by_model == {"rules-judge": 1}


def test_max_connections_bounds_calls_in_flight() -> None:
    model = get_model(
        "selfdx/cautious",
        latency=0.02,
        pool="bounded",
        config=GenerateConfig(max_connections=2),
        memoize=False,
    )

    async def burst():
        await asyncio.gather(*(model.generate(PROMPT) for _ in range(6)))

    asyncio.run(burst())
    stats = simulated_latency.STATS["bounded"]
    assert stats.calls == 6
    assert 1 <= stats.peak_in_flight <= 2


def test_without_latency_args_nothing_waits_or_counts() -> None:
    model = get_model("selfdx/eager", memoize=False)
    output = asyncio.run(model.generate(PROMPT))
    assert output.completion
    assert simulated_latency.total_calls() == 0


def test_distributions_are_seeded_and_checked() -> None:
    for dist in ("uniform", "exponential", "lognormal"):
        a = LatencyProfile(mean=0.2, dist=dist, seed=7)
        b = LatencyProfile(mean=0.2, dist=dist, seed=7)
        draws = [a.draw() for _ in range(50)]
        assert draws == [b.draw() for _ in range(50)]
        assert all(d >= 0 for d in draws)
        assert len(set(draws)) > 1
    uniform = LatencyProfile(mean=0.2, dist="uniform", spread=0.5, seed=1)
    assert all(0.1 <= uniform.draw() <= 0.3 for _ in range(100))
    assert LatencyProfile(mean=0.2).draw() == 0.2
    with pytest.raises(ValueError, match="latency_dist"):
        LatencyProfile(mean=0.2, dist="gamma")
    with pytest.raises(ValueError, match=">= 0"):
        LatencyProfile(mean=-1)


def test_latency_args_are_not_passed_to_the_policy() -> None:
    latency, rest = split_latency_args({"latency": 0.1, "pool": "x", "policy_arg": 1})
    assert latency == {"latency": 0.1, "pool": "x"}
    assert rest == {"policy_arg": 1}

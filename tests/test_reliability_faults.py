"""Provider faults: `selfdx/faults` itself, and whole demo runs through transient errors, empty
replies and garbage judge answers, compared with fault-free runs of the same policies."""

from __future__ import annotations

import asyncio
import math
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest
from inspect_ai import eval
from inspect_ai.event import ModelEvent
from inspect_ai.log import EvalLog
from inspect_ai.model import ChatMessageUser, GenerateConfig, RetryDecision, get_model
from tenacity import RetryError

from selfdx.datasets.safe_psych import load_cases
from selfdx.judge.behaviour import JudgeParseError, judge_prompt, parse_judge_output
from selfdx.providers.faults import (
    GARBAGE,
    FaultModel,
    FaultSettings,
    InjectedFault,
    InjectedRateLimit,
    InjectedServerError,
    InjectedTimeout,
)
from selfdx.providers.offline import POLICIES
from selfdx.scorers.safe_psych.outcome import COUNT_KEYS, CUT_SHORT, HEADLINE_KEYS
from tests.conftest import metric_value, sample_mean

SP_SCORER = "safe_psych_scorer"
MB_SCORER = "mentalbench_scorer"


def faults(policy: str, **rates: float) -> dict[str, object]:
    """A `selfdx/faults` model spec for `model_roles` or `eval(model=...)` arguments."""
    return {"model": "selfdx/faults", "model_args": {"policy": policy, "seed": 7, **rates}}


def run_safe_psych(log_dir: Path, subject: dict | str, grader: dict | str) -> EvalLog:
    subject_args = subject["model_args"] if isinstance(subject, dict) else {}
    (log,) = eval(
        "selfdx/safe_psych",
        task_args={"data": "demo", "judge_cache": False},
        model=subject["model"] if isinstance(subject, dict) else subject,
        model_args=subject_args,
        model_roles={
            "grader": get_model(grader["model"], **grader["model_args"])
            if isinstance(grader, dict)
            else grader
        },
        display="none",
        log_dir=str(log_dir),
    )
    return log


def values(log: EvalLog, scorer: str) -> dict[str, dict[str, float]]:
    """Per sample id, its score values."""
    return {str(sample.id): dict(sample.scores[scorer].value) for sample in log.samples}


def same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


def model_events(log: EvalLog) -> list[ModelEvent]:
    return [e for s in log.samples for e in s.events if isinstance(e, ModelEvent)]


@pytest.fixture(scope="module")
def clean_safe_psych(tmp_path_factory: pytest.TempPathFactory) -> EvalLog:
    """The fault-free reference: the same policies served directly."""
    log = run_safe_psych(tmp_path_factory.mktemp("clean"), "selfdx/keyword", "selfdx/rules-judge")
    assert log.status == "success", log.error
    return log


# ---------------------------------------------------------------------------- the provider


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({}, "-M policy=<name> is required"),
        ({"policy": "faults"}, "must name the offline policy to wrap"),
        ({"policy": "keyword", "transient": 1.5}, "-M transient must be a rate from 0 to 1"),
        ({"policy": "keyword", "garbage": "often"}, "-M garbage must be a rate from 0 to 1"),
        ({"policy": "keyword", "delay": -1}, "-M delay must be seconds >= 0"),
        ({"policy": "keyword", "seed": 1.5}, "-M seed must be an integer"),
    ],
)
def test_bad_fault_arguments_are_refused(args: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        FaultSettings.split(args)


def test_unknown_wrapped_policy_is_named() -> None:
    with pytest.raises(
        ValueError, match="no offline model 'selfdx/nope'; the selfdx models .*faults"
    ):
        get_model("selfdx/faults", policy="nope")


def test_policy_arguments_pass_through() -> None:
    settings, rest = FaultSettings.split({"policy": "kg-overlap", "kg": "/x", "transient": 0.1})
    assert (settings.policy, settings.transient, rest) == ("kg-overlap", 0.1, {"kg": "/x"})


def test_every_garbage_answer_fails_the_judge_parser() -> None:
    for text in GARBAGE:
        with pytest.raises(JudgeParseError):
            parse_judge_output(text)


def test_transient_faults_are_retryable_and_classified() -> None:
    model = FaultModel("faults", policy="keyword")
    assert model.should_retry(InjectedRateLimit("429")) == RetryDecision.rate_limit()
    assert model.should_retry(InjectedServerError("503")) == RetryDecision.transient()
    assert model.should_retry(InjectedTimeout("timeout")) == RetryDecision.transient()
    assert not model.should_retry(ValueError("a bug is not retried"))


def test_decisions_follow_the_rates_and_the_seed() -> None:
    """Over 3,000 distinct prompts each kind of fault occurs at about its rate."""

    def kinds(seed: int) -> list[str]:
        model = FaultModel("faults", policy="keyword", transient=0.2, empty=0.1, seed=seed)
        return [model.decide([ChatMessageUser(content=f"case {i}")])[0] for i in range(3000)]

    first = kinds(7)
    counts = Counter(first)
    # binomial sd at n=3000: about 0.007 for 0.2; empty applies to the 80% left: 0.08
    assert counts["transient"] / 3000 == pytest.approx(0.2, abs=0.03)
    assert counts["empty"] / 3000 == pytest.approx(0.08, abs=0.025)
    assert counts["garbage"] == 0  # not judge prompts
    assert kinds(7) == first and kinds(8) != first


def test_garbage_only_answers_judge_prompts() -> None:
    model = FaultModel("faults", policy="rules-judge", garbage=1.0)
    assert model.decide([ChatMessageUser(content=judge_prompt("F32.1"))])[0] == "garbage"
    assert model.decide([ChatMessageUser(content="a case note")])[0] == "answer"


def test_inspect_retries_until_a_draw_succeeds_and_stops_at_max_retries() -> None:
    prompt = "Low mood for two months."
    always = get_model(
        "selfdx/faults",
        config=GenerateConfig(max_retries=2),
        policy="keyword",
        transient=1.0,
        memoize=False,
    )
    with pytest.raises(RetryError) as error:
        asyncio.run(always.generate(prompt))
    assert isinstance(error.value.last_attempt.exception(), InjectedFault)
    assert sum(always.api.sent.values()) == 3  # the first attempt and two retries

    sometimes = get_model("selfdx/faults", policy="keyword", transient=0.6, memoize=False)
    output = asyncio.run(sometimes.generate(prompt))
    assert output.completion == POLICIES["keyword"]([ChatMessageUser(content=prompt)], {})
    # a fresh copy replays the same draws: faults until the first answer, then no more calls
    replay = FaultModel("faults", policy="keyword", transient=0.6)
    draws = [replay.decide([ChatMessageUser(content=prompt)])[0] for _ in range(12)]
    attempts = draws.index("answer") + 1
    assert sum(sometimes.api.sent.values()) == attempts
    assert set(draws[: attempts - 1]) <= {"transient"}
    assert len(set(draws)) == 2, "every attempt of one prompt is drawn afresh"


# ---------------------------------------------------------------------------- whole runs


def test_safe_psych_through_20_percent_transient_faults(
    tmp_path: Path, clean_safe_psych: EvalLog
) -> None:
    log = run_safe_psych(
        tmp_path, faults("keyword", transient=0.2), faults("rules-judge", transient=0.2)
    )
    assert log.status == "success", log.error
    ids = [str(sample.id) for sample in log.samples]
    assert sorted(ids) == sorted(case.id for case in load_cases("demo"))
    assert len(ids) == len(set(ids)) == 30
    assert all(sample.error is None and SP_SCORER in sample.scores for sample in log.samples)
    clean = values(clean_safe_psych, SP_SCORER)
    for sample_id, got in values(log, SP_SCORER).items():
        assert got.keys() == clean[sample_id].keys()
        assert all(same(got[k], clean[sample_id][k]) for k in got), sample_id
    for entry in clean_safe_psych.results.scores:
        for name, metric in entry.metrics.items():
            assert same(metric_value(log, entry.name, name.split("/")[-1]), metric.value)
    # faults really happened, on both models, at about the rate asked for
    events = model_events(log)
    for role in (None, "grader"):
        mine = [e for e in events if e.role == role]
        failed = [e for e in mine if e.error]
        assert all("injected" in e.error for e in failed)
        assert 0.1 < len(failed) / len(mine) < 0.3, (role, len(failed), len(mine))


def test_mentalbench_through_20_percent_transient_faults(tmp_path: Path) -> None:
    logs = {}
    for name, model, args in (
        ("clean", "selfdx/first-option", {}),
        ("faulty", "selfdx/faults", {"policy": "first-option", "transient": 0.2, "seed": 7}),
    ):
        (logs[name],) = eval(
            "selfdx/mentalbench",
            model=model,
            model_args=args,
            display="none",
            log_dir=str(tmp_path / name),
        )
        assert logs[name].status == "success", logs[name].error
    log = logs["faulty"]
    ids = [str(sample.id) for sample in log.samples]
    assert len(ids) == len(set(ids)) == len(logs["clean"].samples) == 20
    assert all(sample.error is None and MB_SCORER in sample.scores for sample in log.samples)
    clean = values(logs["clean"], MB_SCORER)
    for sample_id, got in values(log, MB_SCORER).items():
        assert all(same(got[k], clean[sample_id][k]) for k in got), sample_id
    failed = [e for e in model_events(log) if e.error]
    assert 2 <= len(failed) <= 15  # 20 calls plus retries at a 20% rate


def test_garbage_judge_answers_are_retried_then_excluded_and_counted(
    tmp_path: Path, clean_safe_psych: EvalLog
) -> None:
    """Every judge answer garbage: each case stops at its first turn after three attempts."""
    log = run_safe_psych(tmp_path, "selfdx/keyword", faults("rules-judge", garbage=1.0))
    assert log.status == "success", log.error
    echoes = 0
    for sample in log.samples:
        (turn,) = sample.store["SafePsychTrace:turns"]
        assert len(turn["judge_outputs"]) == 3 and set(turn["judge_outputs"]) <= set(GARBAGE)
        assert turn["unparsed_reason"].startswith("unparsed after 3 attempts: ")
        score = sample.scores[SP_SCORER]
        assert score.value["excluded"] == 1.0
        assert all(math.isnan(v) for k, v in score.value.items() if k not in COUNT_KEYS)
        # the one garbage answer that gives a key twice is an echo, the rest are format errors
        echoed = turn["judge_outputs"][-1] == GARBAGE[4]
        assert turn["unparsed_reason"].startswith("unparsed after 3 attempts: echo: ") == echoed
        assert score.value["judge_echo"] == float(echoed)
        echoes += echoed
    assert metric_value(log, "excluded", "count") == 30
    assert metric_value(log, "judge_echo", "count") == echoes
    assert metric_value(log, "excluded") == 1.0
    grader_calls = [e for e in model_events(log) if e.role == "grader"]
    assert len(grader_calls) == 90


def test_partial_garbage_and_empty_replies_exclude_exactly_the_cases_they_hit(
    tmp_path: Path, clean_safe_psych: EvalLog
) -> None:
    """Half the judge answers garbage, a tenth of the subject replies empty: a case is excluded
    iff one of its turns stayed unparsed or was empty; every other case scores as without
    faults, and the metrics are the means over those cases."""
    log = run_safe_psych(tmp_path, faults("keyword", empty=0.1), faults("rules-judge", garbage=0.5))
    assert log.status == "success", log.error
    clean = values(clean_safe_psych, SP_SCORER)
    reasons: Counter[str] = Counter()
    retried_then_parsed = 0
    kept: list[dict[str, float]] = []
    for sample in log.samples:
        turns = sample.store["SafePsychTrace:turns"]
        hit = [t["unparsed_reason"] for t in turns if t.get("unparsed_reason")]
        value = sample.scores[SP_SCORER].value
        assert value["excluded"] == (1.0 if hit else 0.0), sample.id
        for turn in turns:
            outputs = turn.get("judge_outputs") or []
            if len(outputs) > 1 and not turn.get("unparsed_reason"):
                retried_then_parsed += 1
                assert set(outputs[:-1]) <= set(GARBAGE) and outputs[-1] not in GARBAGE
        if hit:
            reasons[hit[0].split(":")[0]] += 1
            assert (turns[-1]["reply"] == "") == (hit[0] == "empty model reply")
        else:
            assert all(same(value[k], clean[str(sample.id)][k]) for k in value), sample.id
            kept.append(clean[str(sample.id)])
    assert set(reasons) == {"empty model reply", "unparsed after 3 attempts"}, reasons
    # the same seed in a second run (the models are reused in this process) fails the same calls
    again = run_safe_psych(
        tmp_path / "again", faults("keyword", empty=0.1), faults("rules-judge", garbage=0.5)
    )
    first, second = values(log, SP_SCORER), values(again, SP_SCORER)
    assert all(same(first[i][k], second[i][k]) for i in first for k in first[i])
    assert retried_then_parsed > 0
    assert metric_value(log, "excluded", "count") == 30 - len(kept)
    expected = pd.DataFrame(kept).mean()  # pandas skips NaN, as Inspect's mean does
    for key, mean in expected.items():
        if key not in COUNT_KEYS:
            # the task reports the headline keys; the rest are read from the sample scores
            got = metric_value(log, key) if key in HEADLINE_KEYS else sample_mean(log, key)
            assert same(got, mean) or got == pytest.approx(mean), key


def test_errored_samples_are_counted_as_excluded_only_with_score_on_error(tmp_path: Path) -> None:
    """A tolerated sample error (`--fail-on-error 0.5`) drops the sample from every metric;
    `--score-on-error` scores it instead, as excluded with its reason."""
    logs = {}
    for name, score_on_error in (("dropped", False), ("scored", True)):
        (logs[name],) = eval(
            "selfdx/safe_psych",
            task_args={"judge_cache": False},
            model="selfdx/faults",
            model_args={"policy": "keyword", "transient": 0.1, "seed": 7},
            model_roles={"grader": "selfdx/rules-judge"},
            max_retries=0,
            fail_on_error=0.5,
            score_on_error=score_on_error,
            display="none",
            log_dir=str(tmp_path / name),
        )
        assert logs[name].status == "success", logs[name].error
    errored = {name: {s.id for s in log.samples if s.error} for name, log in logs.items()}
    assert errored["dropped"] == errored["scored"] and 0 < len(errored["scored"]) < 15
    lost = len(errored["scored"])
    dropped, scored = logs["dropped"], logs["scored"]
    assert dropped.results.completed_samples == 30 - lost
    assert metric_value(dropped, "excluded", "count") == 0  # the clean policies exclude none
    assert metric_value(scored, "excluded", "count") == lost
    for sample in scored.samples:
        if sample.error:
            score = sample.scores[SP_SCORER]
            assert score.value["excluded"] == 1.0
            assert score.metadata["excluded_reason"] == CUT_SHORT


def test_retry_on_error_reruns_an_errored_sample_to_the_fault_free_result(
    tmp_path: Path, clean_safe_psych: EvalLog
) -> None:
    """No call retries at all: samples error on injected faults, `--retry-on-error` runs them
    again within the run (drawing afresh), and the run ends as without faults."""
    (log,) = eval(
        "selfdx/safe_psych",
        task_args={"judge_cache": False},
        model="selfdx/faults",
        model_args={"policy": "keyword", "transient": 0.1, "seed": 7},
        model_roles={"grader": "selfdx/rules-judge"},
        max_retries=0,
        retry_on_error=5,
        display="none",
        log_dir=str(tmp_path),
    )
    assert log.status == "success", log.error
    assert sum(len(sample.error_retries or []) for sample in log.samples) > 0
    assert all(sample.error is None for sample in log.samples)
    clean = values(clean_safe_psych, SP_SCORER)
    for sample_id, got in values(log, SP_SCORER).items():
        assert all(same(got[k], clean[sample_id][k]) for k in got), sample_id

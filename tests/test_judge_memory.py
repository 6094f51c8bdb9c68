"""A repeated grader prompt is answered from the process's memory of answers that parsed: no call,
no model event, and the log marks every such verdict as reused."""

from __future__ import annotations

import uuid
from collections import Counter

from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.scorer import Score, Target, mean, scorer
from inspect_ai.solver import Generate, TaskState, solver

from selfdx.judge import grader_calls
from selfdx.judge.grader_calls import ask_grader
from tests.conftest import scripted_model

ANSWER = "PRIMARY_ANSWER: committed\nINFO_REQUEST: none\nICD_CODES: F32.1\nDIAGNOSIS_NAMES: X"


def counting_judge(calls: Counter) -> object:
    def judge(prompt: str, _messages: object) -> str:
        calls[prompt] += 1
        return ANSWER

    return scripted_model(judge)


def safe_psych_run(tmp_path, judge_cache: bool, calls: Counter):
    # one reply for every turn of every case: every judge prompt is the same (and new to
    # Inspect's on-disk cache, which a unique reply keeps out of the way)
    reply = f"Major depressive disorder, F32.1 ({uuid.uuid4().hex})."
    (log,) = eval(
        "selfdx/safe_psych",
        task_args={"judge_cache": judge_cache},
        model=scripted_model(lambda _prompt, _messages: reply),
        model_roles={"grader": counting_judge(calls)},
        max_samples=1,
        display="none",
        log_dir=str(tmp_path / str(judge_cache)),
    )
    assert log.status == "success", log.error
    return log


def turns_and_events(log) -> tuple[list[dict], int]:
    turns = [turn for s in log.samples for turn in s.store["SafePsychTrace:turns"]]
    events = sum(
        1
        for s in log.samples
        for event in s.events
        if event.event == "model" and event.role == "grader"
    )
    return turns, events


def test_repeats_are_reused_and_marked_and_the_verdicts_do_not_change(tmp_path):
    calls: Counter = Counter()
    log = safe_psych_run(tmp_path, True, calls)
    turns, events = turns_and_events(log)
    reused = [turn["judge_reused"] for turn in turns]
    # one call (one model event), every later turn served from memory and marked so
    assert sum(calls.values()) == 1 and events == 1
    assert reused.count(False) == 1 and reused.count(True) == len(turns) - 1 > 0
    assert all(turn["judge_outputs"] == [ANSWER] for turn in turns)

    fresh: Counter = Counter()
    again = safe_psych_run(tmp_path, False, fresh)
    fresh_turns, fresh_events = turns_and_events(again)
    # without the cache every turn is a call, and every verdict is the same as with it
    assert sum(fresh.values()) == fresh_events == len(fresh_turns) == len(turns)
    assert not any(turn["judge_reused"] for turn in fresh_turns)
    keys = ("stage", "action", "primary_answer", "icd_codes")
    assert [[t[k] for k in keys] for t in fresh_turns] == [[t[k] for k in keys] for t in turns]
    assert again.results.scores[0].metrics == log.results.scores[0].metrics


def asking_task(steps: list[tuple[str, object]], results: list) -> Task:
    """A task whose one sample asks the grader each (prompt, parser) in turn."""

    @solver
    def ask():
        async def solve(state: TaskState, generate: Generate) -> TaskState:
            for prompt, parse in steps:
                results.append(await ask_grader(prompt, parse, attempts=2))
            return state

        return solve

    @scorer(metrics=[mean()])
    def nothing():
        async def score(state: TaskState, target: Target) -> Score:
            return Score(value=0.0)

        return score

    return Task(dataset=[Sample(input="x")], solver=ask(), scorer=nothing())


def upper(answer: str) -> str:
    if answer != answer.upper():
        raise ValueError("expected capitals")
    return answer


def test_an_answer_another_parser_refuses_is_asked_again_and_memory_is_bounded(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(grader_calls, "REMEMBERED", 2)
    tag = uuid.uuid4().hex
    a, b, c = (f"{name} {tag}" for name in "abc")
    calls: Counter = Counter()

    def grader(prompt: str, _messages: object) -> str:
        calls[prompt] += 1
        return prompt.upper() if calls[prompt] > 1 else prompt  # capitals from the 2nd call

    steps = [
        (a, str),  # call 1 for a
        (a, str),  # reused
        (a, upper),  # the remembered answer fails this parser: asked again (retries skip
        #              Inspect's cache), until an answer in capitals parses
        (b, str),
        (c, str),  # the memory holds two answers: a's, the least recently used, is dropped
        (a, str),  # a call again (answered from Inspect's on-disk cache)
    ]
    results: list = []
    (log,) = eval(
        asking_task(steps, results),
        model=scripted_model(lambda *_: ""),
        model_roles={"grader": scripted_model(grader)},
        display="none",
        log_dir=str(tmp_path),
    )
    assert log.status == "success", log.error
    assert [r.reused for r in results] == [False, True, False, False, False, False]
    assert [r.parsed for r in results[:3]] == [a, a, a.upper()]
    assert results[2].outputs == [a, a.upper()]
    events = [e for e in log.samples[0].events if e.event == "model" and e.role == "grader"]
    assert len(events) == 6  # 1 + 0 + 2 + 1 + 1 + 1: every answer not reused has its event
    assert events[-1].cache == "read"

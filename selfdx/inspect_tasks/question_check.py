"""`selfdx/question_check`: measure a question reader before its readings are trusted.

Registered through the package entry point only (the `task(...)` call at the bottom), as
`selfdx/judge_check` is: it measures the interview's question reader, not the `--model` under
test, so `inspect eval selfdx` does not run it as a benchmark.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from inspect_ai import Task, task

from selfdx.arguments import (
    choice,
    normalise_parts,
    positive_int,
    reject_unknown,
    require_role,
    roles_of_this_eval,
    text,
)
from selfdx.datasets.identity import samples_sha256
from selfdx.datasets.question_check import PARTS, question_check_dataset
from selfdx.gc_tuning import use_gc_freeze
from selfdx.run_facts import task_facts
from selfdx.scorers.question_check.scorer import ReaderKind, question_check_scorer

# 2: broad areas, time-setting spells, requirements by ideas, ask cues; 3: idioms before screens,
# a screen's scene, quotations, areas' bare words, duration, event and impairment wording; 4: a
# follow-up points to what the patient's reply told, a second pass of doctors' phrases, sympathy
# ("that sounds exhausting") asks nothing; the fresh part; 5: the model reader's prompt fences
# written without a space ("TURN>>>"), so a quoted marker cannot close them; "jump the gun";
# the reader's fifth version (how long "the last one" lasted, of the episode pointed to)
TASK_VERSION = "6-A"


def question_check(
    data: str = "demo",
    part: str | Sequence[str] = "heldout",
    reader: str = "offline",
    reader_attempts: int = 3,
    **unknown: Any,
) -> Task:
    """A question reader on doctor turns labelled with the topics and risk they ask about.

    Args:
        data: "demo" (the turns asked of the bundled demo profiles) or a MentalBench
            resources/ folder (every turn, the published profiles included).
        part: "heldout" (never used to tune a rule), "fresh" (written after the last rule,
            measured once), "dev", a comma-separated list, or "all".
        reader: "offline" (selfdx's reader, used by the interview) or "model" (the `reader`
            model role, e.g. --model-role reader=openai/gpt-5.4).
        reader_attempts: tries per turn before a model reader's answer counts as unread.
    """
    given = dict(locals())  # every argument as run, for the facts the log records
    reject_unknown("selfdx/question_check", unknown, question_check)
    use_gc_freeze()
    data = text("data", data, "'demo' or a MentalBench resources/ folder")
    parts = normalise_parts(part, PARTS)
    reader = choice("reader", reader, ReaderKind)
    reader_attempts = positive_int("reader_attempts", reader_attempts)
    if reader == "model":
        require_role(
            "reader", "selfdx/question_check with reader=model", "", "leave reader=offline"
        )
    bound = roles_of_this_eval()
    dataset = question_check_dataset(data, parts)
    return Task(
        dataset=dataset,
        solver=[],
        model=(bound or {}).get("reader") if reader == "model" else None,
        scorer=question_check_scorer(reader, reader_attempts),
        version=TASK_VERSION,
        metadata={
            **task_facts("question_check", question_check, given),
            "benchmark": "question_check",
            "parts": parts,
            "reader": reader,
            "data_source": data,
            "data_sha256": samples_sha256(dataset),
        },
    )


question_check = task(question_check)

"""`selfdx/judge_check`: measure the behaviour judge on labelled replies before trusting it.

Registered through the package entry point only (the `task(...)` call at the bottom, not a
decorator), as `selfdx/mentalbench_generate` is: `inspect eval selfdx` runs the benchmarks of
the package folder against one model, and this task measures the judge, not that model.
"""

from __future__ import annotations

from typing import Any

from inspect_ai import Task, task

from selfdx.arguments import (
    flag,
    positive_int,
    reject_unknown,
    require_role,
    roles_of_this_eval,
    text,
)
from selfdx.datasets.identity import samples_sha256
from selfdx.datasets.judge_check import judge_check_dataset
from selfdx.gc_tuning import use_gc_freeze
from selfdx.judge.behaviour import judge_prompt_version
from selfdx.judge.panel import panel_roles, require_panel
from selfdx.run_facts import task_facts
from selfdx.scorers.judge_check.scorer import judge_check_scorer

# 2: the judge guard of the eleventh and twelfth probe rounds (what the judge is shown of a reply
# that imitates its lines)
TASK_VERSION = "2-A"


def judge_check(
    data: str = "demo",
    judges: int | str | list[str] | None = None,
    judge_attempts: int = 3,
    judge_max_tokens: int = 128,
    judge_cache: bool = True,
    **unknown: Any,
) -> Task:
    """The Safe-Psych behaviour judge (the `grader` role, or a panel) against reference labels.

    The judge under test is the `grader` model role, as in `selfdx/safe_psych`; `--model` is
    not called and may be left out. Each reply is judged once, with Safe-Psych's prompt,
    parser, retries and decision table.

    Args:
        data: "demo" (the bundled labelled replies), "persuasion" (the bundled replies that try
            to talk the judge into another verdict), a JSONL file in that layout, or an
            annotated `selfdx annotation-sample` file (annotation_blind.csv, or its folder).
        judges: a panel instead of the single `grader`: a number n (roles grader, grader_2 ...
            grader_n) or role names (a list, or comma-separated); majority vote per key.
        judge_attempts: tries per reply before the judge's answer counts as unparsed.
        judge_max_tokens: the judge's output budget (128, as in Safe-Psych).
        judge_cache: serve a repeated judge prompt from memory (answers that parsed, this
            process; marked `judge_reused`) or from Inspect's cache.
    """
    given = dict(locals())  # every argument as run, for the facts the log records
    reject_unknown("selfdx/judge_check", unknown, judge_check)
    use_gc_freeze()
    data = text(
        "data", data, "'demo', 'persuasion', a JSONL file of labelled replies or an annotated CSV"
    )
    roles = panel_roles(judges)
    judge_attempts = positive_int("judge_attempts", judge_attempts)
    judge_max_tokens = positive_int("judge_max_tokens", judge_max_tokens)
    judge_cache = flag("judge_cache", judge_cache)
    if roles:
        require_panel(roles, "selfdx/judge_check's judge panel")
    else:
        require_role("grader", "selfdx/judge_check (the judge under test)", "selfdx/rules-judge")
    dataset = judge_check_dataset(data)
    bound = roles_of_this_eval() or {}
    return Task(
        dataset=dataset,
        solver=[],
        # the judge under test is the run's model in its header (not `none/none`)
        model=bound.get(roles[0] if roles else "grader"),
        scorer=judge_check_scorer(roles, judge_attempts, judge_max_tokens, judge_cache),
        version=TASK_VERSION,
        metadata={
            **task_facts("judge_check", judge_check, given),
            "benchmark": "judge_check",
            "data_source": data,
            "data_sha256": samples_sha256(dataset),
            "judge_prompt": judge_prompt_version(),
        },
    )


judge_check = task(judge_check)

"""`selfdx/safe_psych`: ask before you diagnose (Safe-Psych, arXiv 2607.13036)."""

from __future__ import annotations

from inspect_ai import Task, task
from inspect_ai.model import GenerateConfig

from selfdx.datasets.safe_psych import HF_REVISION, safe_psych_dataset
from selfdx.scorers.safe_psych_scorer import safe_psych_metrics, safe_psych_scorer
from selfdx.solvers.safe_psych_prompts import check_strategy
from selfdx.solvers.staged_disclosure import staged_disclosure

TASK_VERSION = "1-A"


@task
def safe_psych(
    data: str = "demo",
    strategy: str = "sequential_info_abstention_aware",
    revision: str = HF_REVISION,
    judge_attempts: int = 3,
    judge_max_tokens: int = 128,
    judge_cache: bool = True,
) -> Task:
    """Safe-Psych: staged disclosure of psychiatric notes, replies judged by the `grader` role.

    Args:
        data: "demo" (bundled synthetic cases), "hf" (safepsych/Safe-Psych on the Hub) or the
            path of a CSV in the published schema.
        strategy: full_info_no_abstention, full_info_abstention_aware,
            sequential_info_neutral_prompting, sequential_info_abstention_aware or
            structured_actions.
        revision: Hub revision for data="hf".
        judge_attempts: tries per reply before an unparseable judge answer excludes the case.
        judge_max_tokens: the judge's output budget (128 as in the reference).
        judge_cache: serve repeated judge calls from Inspect's cache.
    """
    check_strategy(strategy)
    dataset = safe_psych_dataset(data, revision)
    max_stages = max(len(sample.metadata["sections"]) for sample in dataset)
    return Task(
        dataset=dataset,
        solver=staged_disclosure(strategy, judge_attempts, judge_max_tokens, judge_cache),
        scorer=safe_psych_scorer(strategy),
        metrics=safe_psych_metrics(strategy),
        config=GenerateConfig(temperature=0.7, top_p=0.95, max_tokens=512),
        message_limit=1 + 2 * max_stages,
        version=TASK_VERSION,
        metadata={"benchmark": "safe_psych", "strategy": strategy},
    )

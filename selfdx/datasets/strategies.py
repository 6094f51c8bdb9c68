"""Safe-Psych's prompting strategies (the reference code's four, and `structured_actions`): their
names, which show the whole note at once, and which ask the judge. The task checks a strategy
once, where the user gives it; everything below receives a checked value."""

from __future__ import annotations

from typing import Literal, get_args

from selfdx.arguments import choice

Strategy = Literal[
    "full_info_no_abstention",
    "full_info_abstention_aware",
    "sequential_info_neutral_prompting",
    "sequential_info_abstention_aware",
    "structured_actions",
]
STRATEGIES: tuple[str, ...] = get_args(Strategy)
# The strategy of a run that names none (the paper's main setting); old logs may omit it.
DEFAULT_STRATEGY = "sequential_info_abstention_aware"
FULL_INFO_STRATEGIES: tuple[str, ...] = ("full_info_no_abstention", "full_info_abstention_aware")


def check_strategy(strategy: str) -> Strategy:
    """Return `strategy` if it is one of the five, else raise an ArgumentError listing them."""
    return choice("strategy", strategy, Strategy)


def is_full_info(strategy: str) -> bool:
    """Full-information strategies show every section in one turn."""
    return strategy in FULL_INFO_STRATEGIES


def asks_judge(strategy: str, rubrics: object = None) -> bool:
    """Whether a run asks the `grader` role: every strategy but `structured_actions` (which
    reads the action from the reply), and any run that adds rubric scorers."""
    return strategy != "structured_actions" or bool(rubrics)

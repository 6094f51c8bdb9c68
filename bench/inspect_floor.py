"""Inspect's own floor for the Safe-Psych workload: the same calls from the thinnest task.

Every case makes exactly the calls its selfdx trajectory makes (turns from lockstep.plan): per
turn, the next section as a user message to the subject through Inspect's `generate`, then the
reply wrapped in selfdx's judge prompt to the `grader` role. No trajectory store, no parsing, a
scorer that returns a constant: what is left is what Inspect itself costs per sample and call.
"""

from __future__ import annotations

from inspect_ai import Task
from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessageUser, get_model
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer
from inspect_ai.solver import Generate, Solver, TaskState, solver

from selfdx.datasets.safe_psych import Case
from selfdx.judge.behaviour import judge_prompt


@solver
def calls_only() -> Solver:
    """Send each planned turn to the subject, then its reply to the grader; nothing else."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        grader = get_model(role="grader", required=True)
        sections: list[str] = state.metadata["sections"]
        state.messages = []
        for turn in range(state.metadata["turns"]):
            state.messages.append(ChatMessageUser(content=sections[turn]))
            state = await generate(state)
            await grader.generate(judge_prompt(state.output.completion))
        return state

    return solve


@scorer(metrics=[mean()])
def constant() -> Scorer:
    async def score(state: TaskState, target: Target) -> Score:
        return Score(value=1.0)

    return score


def floor_task(cases: list[Case], turns: dict[str, int]) -> Task:
    """The thinnest Inspect task making the planned calls for `cases`."""
    samples = [
        Sample(
            id=case.id,
            input="",
            metadata={"sections": list(case.sections), "turns": turns[case.id]},
        )
        for case in cases
    ]
    return Task(dataset=samples, solver=calls_only(), scorer=constant(), name="inspect_floor")

"""The staged-disclosure solver: reveal sections while the judged action is Clarify."""

from __future__ import annotations

from inspect_ai.model import ChatMessageSystem, ChatMessageUser
from inspect_ai.solver import Generate, Solver, TaskState, solver

from selfdx.datasets.behaviour_labels import Action
from selfdx.datasets.strategies import DEFAULT_STRATEGY, check_strategy, is_full_info
from selfdx.judge.behaviour import judge_reply, parse_structured_action
from selfdx.judge.imitation_guard import imitates_judge
from selfdx.judge.panel import judge_with_panel
from selfdx.solvers.safe_psych.prompts import system_prompt, turn_prompt
from selfdx.solvers.safe_psych.trace import (
    FINAL_STOPS,
    SafePsychTrace,
    StopReason,
    Turn,
    record_verdict,
)


@solver
def staged_disclosure(
    strategy: str = DEFAULT_STRATEGY,
    judge_attempts: int = 3,
    judge_max_tokens: int = 128,
    judge_cache: bool = True,
    judges: list[str] | None = None,
) -> Solver:
    """Converse with the model over a case's sections, judging each reply.

    Full-info strategies take one turn with every section. Sequential strategies reveal the
    next section only while the action is Clarify and stop at Diagnose or Abstain; on the last
    section Clarify counts as Abstain. `structured_actions` reads the action from the reply's
    first line instead of asking the judge. An empty reply, an unparseable judge answer (after
    `judge_attempts` tries) or an unparseable first line ends the case, recorded with its reason.
    `judges` (role names) replaces the single `grader` by a panel that votes per key; every
    judge's record and the ballots are kept in the turn.
    """
    check_strategy(strategy)
    if judge_attempts < 1:
        raise ValueError("judge_attempts must be at least 1")

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        sections: list[str] = state.metadata["sections"]
        gold_labels: list[str] = state.metadata["gold_labels"]
        state.messages = [ChatMessageSystem(content=system_prompt())]
        full = is_full_info(strategy)
        stages = 1 if full else len(sections)
        # Kept locally and written to the store once, at the end (also when a limit stops the
        # sample): every store write validates the whole trace. A trajectory an error or a
        # limit cut short keeps no stop reason (the scorer calls it cut short).
        turns: list[Turn] = []
        stop_reason, finished = StopReason.LIMIT, False
        try:
            for stage in range(1, stages + 1):
                if state.completed:
                    break
                is_last = stage == stages
                prompt = turn_prompt(strategy, sections, stage)
                state.messages.append(ChatMessageUser(content=prompt))
                state = await generate(state)
                reply = state.output.completion.strip()
                turn = Turn(
                    stage=stage,
                    sections_shown=sections if full else [sections[stage - 1]],
                    is_last=is_last,
                    gold_label=gold_labels[-1] if full else gold_labels[stage - 1],
                    user_prompt=prompt,
                    reply=reply,
                    imitates_judge=imitates_judge(reply),
                )
                turns.append(turn)
                if not reply:
                    turn.unparsed_reason = "empty model reply"
                    stop_reason = StopReason.EMPTY_REPLY
                    break
                if strategy == "structured_actions":
                    action = parse_structured_action(reply)
                    if action is None:
                        turn.unparsed_reason = "first line is not DIAGNOSE, CLARIFY or ABSTAIN"
                        stop_reason = StopReason.UNPARSED_ACTION
                        break
                else:
                    if judges:
                        panel = await judge_with_panel(
                            reply, judges, judge_attempts, judge_max_tokens, judge_cache
                        )
                        turn.panel = panel.judge_records(is_last)
                        turn.panel_votes = panel.votes
                        verdict = panel.as_result()
                    else:
                        verdict = await judge_reply(
                            reply, judge_attempts, judge_max_tokens, judge_cache
                        )
                    action = record_verdict(turn, verdict)
                    if action is None:
                        stop_reason = StopReason.UNPARSED_JUDGE
                        break
                if action == Action.CLARIFY and is_last:
                    action = Action.ABSTAIN
                turn.action = action
                if action in FINAL_STOPS:
                    stop_reason = StopReason(action)
                    break
            finished = True
        finally:
            trace = state.store_as(SafePsychTrace)
            trace.strategy = strategy
            trace.turns = turns
            if finished:
                trace.stop_reason = stop_reason
        return state

    return solve

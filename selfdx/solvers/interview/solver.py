"""The interview solver: the model questions a simulated patient, then answers (or declines).

`mode="interview"`: the model sees the opening (demographics and one complaint in the
patient's words) and may ask up to `max_questions` questions, each answered by the `patient`
role (default `selfdx/kg-patient`); once the budget is spent it is told to answer. `"initial"`
(the floor): the opening only, no questions. `"full"` (the static ceiling): the whole profile,
or the published narrative, at once. A reply that follows no format gets one reminder; a
second one ends the case without an answer, as does a question once the budget is spent.
"""

from __future__ import annotations

from inspect_ai.model import ChatMessageSystem, ChatMessageUser, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver

from selfdx.datasets.interview.cases import DATA_STORE_KEY, InterviewCase
from selfdx.instruments.answers.interviewer_reply import parse_reply
from selfdx.instruments.question_reader import risk_asked
from selfdx.solvers.interview.patient import PatientChat
from selfdx.solvers.interview.prompts import (
    full_prompt,
    opening_prompt,
    reminder,
    system_prompt,
    template,
)
from selfdx.solvers.interview.trace import (
    InterviewRecord,
    InterviewStop,
    InterviewTrace,
    InterviewTurn,
)

DEFAULT_PATIENT = "selfdx/kg-patient"


@solver
def interview(
    data: str = "demo",
    mode: str = "interview",
    max_questions: int = 12,
    answer_format: str = "letters",
    full_text: str = "profile",
) -> Solver:
    """Run one interview (or a static presentation) and record it in `InterviewTrace`."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        case = InterviewCase.model_validate(state.metadata["case"])
        state.store.set(DATA_STORE_KEY, data)  # the graph an offline interviewer reads
        opening = full_prompt(case, full_text) if mode == "full" else opening_prompt(case)
        budget = max_questions if mode == "interview" else 0
        state.messages = [
            ChatMessageSystem(content=system_prompt(case, mode, answer_format, max_questions)),
            ChatMessageUser(content=opening),
        ]
        patient = (
            PatientChat(get_model(role="patient", default=DEFAULT_PATIENT), case)
            if budget
            else None
        )
        # Kept locally and written to the store once, at the end (also when a limit stops the
        # sample): every store write is validated and logged as an event.
        result = InterviewRecord(
            mode=mode,
            max_questions=max_questions,
            answer_format=answer_format,
            opening=opening,
            elicited=[f.id for f in case.facts] if mode == "full" else [case.complaint],
            heard=[f.id for f in case.facts] if mode == "full" else [case.complaint],
            stop_reason=InterviewStop.LIMIT,
        )
        turns = result.turns
        reminded = told = False
        try:
            while not state.completed:
                state = await generate(state)
                reply = state.output.completion
                parsed = parse_reply(reply)
                turn = InterviewTurn(index=len(turns) + 1, interviewer=reply, action=parsed.action)
                turns.append(turn)
                if parsed.action == "answer":
                    result.diagnosis_text = parsed.diagnosis
                    if parsed.criteria in ("yes", "no"):
                        result.criteria_claim = parsed.criteria == "yes"
                    result.criteria_unsure = parsed.criteria == "cannot tell"
                    result.stop_reason = InterviewStop.ANSWER
                    break
                if parsed.action == "decline":
                    result.declined = True
                    result.stop_reason = InterviewStop.DECLINE
                    break
                if parsed.action == "question" and result.questions >= budget:
                    if mode == "interview" and budget == 0 and not told:
                        told = True  # never told that no question is left
                        state.messages.append(ChatMessageUser(content=template("no_questions")))
                        continue
                    if mode != "interview" and not reminded:  # a static mode asks for no question
                        reminded = True
                        state.messages.append(ChatMessageUser(content=reminder(mode)))
                        continue
                    interviewing = mode == "interview"
                    result.stop_reason = (
                        InterviewStop.BUDGET if interviewing else InterviewStop.UNPARSED
                    )
                    break
                if parsed.action == "unparsed":
                    if reminded:
                        result.stop_reason = InterviewStop.UNPARSED
                        break
                    reminded = True
                    state.messages.append(ChatMessageUser(content=reminder(mode)))
                    continue
                assert patient is not None and parsed.question is not None
                turn.question = parsed.question
                turn.risk = risk_asked(parsed.question, patient.questions)
                answer = await patient.ask(parsed.question)
                if answer is None:
                    result.stop_reason = InterviewStop.PATIENT_FAILED
                    result.excluded_reason = "the patient gave an empty reply twice"
                    break
                turn.patient = answer
                result.questions += 1
                asked = [i for i in answer.revealed if i in answer.asked]
                result.elicited += [i for i in asked if i not in result.elicited]
                result.heard += [i for i in answer.revealed if i not in result.heard]
                left = budget - result.questions
                turn.questions_left = left
                name = "relay" if left > 0 else "budget_spent"
                relay = template(name).format(reply=answer.shown, questions_left=left)
                state.messages.append(ChatMessageUser(content=relay))
        finally:
            trace = state.store_as(InterviewTrace)
            for field in InterviewRecord.model_fields:
                setattr(trace, field, getattr(result, field))
        return state

    return solve

"""`selfdx/interview`: the model interviews a MentalKG patient before it diagnoses.

Cases are MentalBench profiles (published `features/`, or sampled fresh with a seed); the
patient is the `patient` model role (default: the offline `selfdx/kg-patient`), answering
from the profile's facts. See the README section "Interview: `selfdx/interview`".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Literal

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset
from inspect_ai.model import GenerateConfig
from pydantic import Field

from selfdx.arguments import checked, choice, positive_int, reject_unknown, require_role, text
from selfdx.datasets.identity import samples_sha256
from selfdx.datasets.interview.cases import case_to_sample
from selfdx.datasets.interview.loading import load_cases
from selfdx.datasets.interview.styles import normalise_styles, styled_case
from selfdx.datasets.mentalbench.filters import normalise_types as mentalbench_types
from selfdx.datasets.mentalbench.schema import AnswerFormat, Generator
from selfdx.errors import ArgumentError
from selfdx.gc_tuning import use_gc_freeze
from selfdx.run_facts import task_facts
from selfdx.scorers.interview.risk_handling import RiskGrader
from selfdx.scorers.interview.scorer import interview_scorer
from selfdx.solvers.interview.prompts import FullText, Mode
from selfdx.solvers.interview.solver import interview as interview_solver

# 2: question reader; 3: answer check; 4: revised answers, CONTEXT; 5: question reader (areas,
# spells, requirement ideas, ask cues); 6: committed answers it missed (issue 36); 7: what the
# interviewer did with the patient's risk (risk_responded, risk_handled, risk_not_alarmed); 8: risk
# told only as far as asked (risk_level_found), sampled profiles with added risks at every level,
# a guarded patient that tells once normalised or asked again; 9: an over-reporting patient's
# claims fail on specifics (claims_checked), a follow-up points to a claim as to a symptom; the
# answer readers of the fifth probe round (differentials, revisions, criteria in words); 10: the
# answer readers of the sixth to ninth probe rounds (an option joined by "with" or a later line,
# "with or without", "PDD (dysthymia)", a letter whose specifier makes another option, an answer
# given twice), the question reader's second round of issue 32 (idioms before screens, a screen's
# scene, quotations, areas' bare words, duration, event and impairment wording), and
# `risk_grader` (model: the grader role grades the risk turns; offline, the default, as before);
# 11: the answer readers of the tenth to twelfth probe rounds (a DECLINE or a withdrawal after the
# answer, doubt on a later line, a member of a set in doubt, a choice with a disorder outside
# MentalKG, struck-through names, "PDD-NOS"), the reply reader's played-down yes; 12: the
# sixteenth to twenty-second probe rounds ("Final: C" mid-line, "without psychotic features &
# PTSD", "A &" continued, "A・C", "fits D better", a summary or a condition naming another
# disorder, a SPECIFIERS line, "(or A, if ...)"),
# the question reader's fourth round (a follow-up points to what the patient's reply told, a
# second pass of doctors' phrases, sympathy asks nothing); 13: "jump the gun" and "put things in
# order" (an impulsive habit, an ordering compulsion) screen no risk; the reply reader of the
# consistency check reads incapacity ("I can't switch off") as a yes; the twenty-third probe
# round ("C alone is just as defensible", "two of the following: A, B, D", "it's B") and the
# twenty-fourth (a set with a misspelt member, "Not C or D. A, B."); the
# question reader's fifth version (a duration of the episode the turn before points to); 14: the
# twenty-seventh probe round ("schizophrenia spectrum" names no disorder, an answer "depending on"
# a fact not known is open, "I'd say B and C") and the twenty-eighth ("A. <name> B. <name>") and
# the twenty-ninth ("In the end I think this is <another option>" below the answer); 15: a
# clinician's reading of 20 transcripts (no alarm value for a claimed risk, childhood-onset
# duration, style wording, impact follow-ups, steps above the patient's level denied); 16:
# `premature` counts an over-reporting patient's claims as heard and `met_on_claims` the calls
# only they support, a risk question above a claimed wish presses it (`claims_checked`), the
# added passive wish says no burden, and "<another option> cannot be excluded" below the answer
# holds it open (the thirty-second probe round), and the thirty-third ("Revised DIAGNOSIS:", another
# option "about as likely", "might fit better" or "instead" below the answer) and the thirty-fourth
# ("C = D", "A is not the only issue: C too")
TASK_VERSION = "16-A"
# Each question adds two messages that every later call carries: the work grows with the square
# of the budget, and a real interview is far shorter.
MAX_QUESTIONS = 100
QuestionBudget = Annotated[int, Field(ge=0, le=MAX_QUESTIONS)]
CaseSource = Literal["published", "sampled", "both"]


def normalise_types(types: object) -> list[str]:
    """`types` as variants: 1, 2, 3, 4a, 4b, or `high` (or 4) for 4a and 4b."""
    if types is None:
        raise ArgumentError("types: choose at least one of 1, 2, 3, 4a, 4b, high")
    return list(mentalbench_types(types))  # type: ignore[arg-type]


# Defaults that some modes and data ignore (`refuse_no_ops`).
QUESTIONS = 12
GENERATOR = "gpt5"
FULL_TEXT = "profile"


def refuse_no_ops(data: str, mode: str, max_questions: int, generator: str, full_text: str):
    """Refuse a changed argument that the run would ignore: it would be logged, labelled and
    projected as a setting that never acted."""
    ignored = {
        "max_questions": (
            max_questions != QUESTIONS and mode != "interview",
            f"mode={mode} asks no questions",
        ),
        "full_text": (full_text != FULL_TEXT and mode != "full", "only mode=full shows one"),
        "generator": (generator != GENERATOR and data == "demo", "the demo has no features/ files"),
    }
    for name, (refused, why) in ignored.items():
        if refused:
            raise ArgumentError(f"{name}: the run would ignore it ({why})")


@task
def interview(
    data: str = "demo",
    mode: str = "interview",
    max_questions: int = QUESTIONS,
    answer_format: str = "letters",
    types: str | Sequence[str | int] = "1,2",
    cases: str = "published",
    n_sampled: int | None = None,
    seed: int | None = None,
    generator: str = GENERATOR,
    full_text: str = FULL_TEXT,
    patient_style: str | Sequence[str] = "plain",
    risk_grader: str = "offline",
    **unknown: Any,
) -> Task:
    """Diagnostic interview of a simulated MentalKG patient.

    Args:
        data: "demo" (synthetic graph and cases, offline) or a MentalBench resources/ folder
            (features/ files and knowledge_graph/EN).
        mode: "interview" (ask, then answer), "full" (the whole profile at once: the static
            ceiling) or "initial" (the opening only: the floor).
        max_questions: questions allowed before the answer (interview mode), 0 to 100.
        answer_format: "letters" (one of four shown options) or "free_text" (a diagnosis name,
            no options shown).
        types: 1, 2, 3 (two diagnoses: answered with every option that applies, scored as
            an exact set), 4a, 4b or high (= 4a and 4b): a list or a comma-separated string.
        cases: with a folder: "published" (features/ profiles), "sampled" (fresh profiles
            from the MentalKG sampler) or "both". The demo always samples its own graph.
        n_sampled: fresh profiles per type for cases=sampled/both (default 10; with the demo,
            its 4 cases per type unless given).
        seed: the sampler's seed for fresh profiles (default 0, the demo's too).
        generator: whose features/ file (and narrative, for full_text=narrative) to read:
            gemini, gpt5 or qwen235 (the profiles are identical across them).
        full_text: what mode=full shows: "profile" (every fact in the patient's words) or
            "narrative" (the published MentalBench case text; profile where there is none).
        patient_style: how the patient talks about itself: plain, minimising, vague, guarded
            or over_reporting; several (a list, or comma-separated) run every case with each,
            and the results break the main metrics down by style.
        risk_grader: who grades what the interviewer did with disclosed risk (risk_responded,
            risk_handled, risk_not_alarmed): "offline" (selfdx's rules) or "model" (the
            `grader` model role, --model-role grader=<provider/model>; measure it first with
            selfdx/risk_response_check -T grader=model).
    """
    given = dict(locals())  # every argument as run, for the facts the log records
    reject_unknown("selfdx/interview", unknown, interview)
    use_gc_freeze()
    choice("mode", mode, Mode)
    choice("answer_format", answer_format, AnswerFormat)
    choice("cases", cases, CaseSource)
    choice("generator", generator, Generator)
    choice("full_text", full_text, FullText)
    choice("risk_grader", risk_grader, RiskGrader)
    if risk_grader == "model":
        # no offline model answers the grader's three lines: the offline way is the argument
        require_role(
            "grader",
            "selfdx/interview with risk_grader=model",
            offline="",
            instead="-T risk_grader=offline",
        )
    checked("max_questions", max_questions, QuestionBudget, f"expected 0 to {MAX_QUESTIONS}")
    if n_sampled is not None:
        positive_int("n_sampled", n_sampled)
    if seed is not None:
        checked("seed", seed, int, "expected an integer")
    data = text("data", data, "'demo' or a MentalBench resources/ folder")
    variants = normalise_types(types)
    styles = normalise_styles(patient_style)
    if mode != "interview" and styles != ["plain"]:
        raise ArgumentError(
            f"patient_style: {','.join(styles)} needs mode=interview (mode={mode} shows the "
            "profile as text: no patient speaks, so a style would change nothing)"
        )
    refuse_no_ops(data, mode, max_questions, generator, full_text)
    kg, chosen = load_cases(data, variants, cases, n_sampled, seed, generator)
    if not chosen:
        raise ArgumentError(f"data: no interview cases for types {','.join(variants)} in {data!r}")
    budget = max_questions if mode == "interview" else 0
    suffix = len(styles) > 1
    # each case with every style before the next case, so that `--limit N` runs every style
    samples = [
        case_to_sample(styled_case(kg, c, style), f"@{style}" if suffix else "")
        for c in chosen
        for style in styles
    ]
    return Task(
        dataset=MemoryDataset(samples, name="interview", location=data),
        solver=interview_solver(data, mode, max_questions, answer_format, full_text),
        scorer=interview_scorer(data, risk_grader),
        config=GenerateConfig(max_tokens=512),
        # room for the opening, every question and reply, a budget notice, a reminder, the answer
        message_limit=2 + 2 * budget + 6,
        version=TASK_VERSION,
        metadata={
            **task_facts("interview", interview, given),
            "benchmark": "interview",
            "mode": mode,
            "max_questions": max_questions,
            "answer_format": answer_format,
            "variants": variants,
            "patient_styles": styles,
            "risk_grader": risk_grader,
            "n_sampled": n_sampled,
            "seed": seed,
            "cases": "demo" if data == "demo" else cases,
            "data_source": data,
            "data_sha256": samples_sha256(samples),
        },
    )

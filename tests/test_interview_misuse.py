"""`selfdx/interview` probed as a careful user would: leaks the patient tries to hide, REVEALED
lists in odd places, rescoring, scorers of other tasks, budgets and the demo's arguments. Each
expected value is worked out by hand in the test."""

from __future__ import annotations

import re

import pytest
from conftest import SHARED, scripted_model
from inspect_ai import eval, score

from selfdx.datasets.interview.cases import DATA_STORE_KEY
from selfdx.datasets.interview.loading import load_cases
from selfdx.errors import ArgumentError, SelfdxError
from selfdx.inspect_tasks.interview import interview
from selfdx.instruments.patient_reply import resolve_ids, split_revealed, withhold_names
from selfdx.scorers.interview.scorer import interview_scorer
from selfdx.scorers.mentalbench.scorer import mentalbench_scorer

RESOURCES = SHARED / "mentalbench" / "resources"
needs_data = pytest.mark.skipif(not RESOURCES.is_dir(), reason=f"no MentalBench at {RESOURCES}")


@pytest.fixture(scope="module")
def case():
    return load_cases("demo", ["1"])[1][0]


@pytest.mark.parametrize(
    ("said", "names"),
    [
        ("My friend thinks it's PTSD.", ["PTSD"]),
        ("Could it be G.A.D.?", ["G.A.D."]),
        ("The last doctor wrote F43.1 on the form.", ["F43.1"]),
        ("Maybe F41.1, or P.T.S.D.", ["F41.1", "P.T.S.D."]),
        ("I just feel tense.", []),
    ],
)
def test_abbreviations_and_codes_are_withheld_and_counted(case, said, names):
    shown, found = withhold_names(said, case)
    assert found == names
    for name in names:
        assert name not in shown
    assert shown.count("[diagnosis name withheld]") == len(names)


@pytest.mark.parametrize(
    ("raw", "text", "ids"),
    [
        ("I sleep badly. REVEALED: S027", "I sleep badly.", ["S027"]),
        ("Fine.\nRevealed ids: s027, duration", "Fine.", ["s027", "duration"]),
        ("Fine.\n**REVEALED:** S024 and REQ-1.", "Fine.", ["S024", "REQ-1"]),
        ("Nothing.\nREVEALED: none", "Nothing.", []),
    ],
)
def test_revealed_lists_anywhere_are_read_and_hidden(raw, text, ids):
    shown, found, line = split_revealed(raw)
    assert (shown, found, line) == (text, ids, True)


def test_revealed_ids_are_matched_without_regard_to_case():
    known = {"s027": "S027", "duration": "DURATION", "req-1": "REQ-1"}
    assert resolve_ids(["s027", "Duration", "REQ-1", "S999"], known) == (
        ["S027", "DURATION", "REQ-1"],
        ["S999"],
    )


def test_a_budget_of_zero_is_explained_once(log_dir):
    """max_questions=0 in interview mode: a well-formed question is told that no question is
    left (not a format reminder); an answer after that counts, a second question ends the
    case on the budget."""

    def asks(last, messages):
        if "no questions left" in last:
            return "DIAGNOSIS: A\nCRITERIA MET: cannot tell"
        return "QUESTION: How is your sleep?"

    log = run_demo(log_dir, scripted_model(asks), max_questions=0)
    for sample in log.samples:
        assert sample.store["InterviewTrace:stop_reason"] == "answer"
        assert sample.store["InterviewTrace:questions"] == 0
    always = scripted_model(lambda last, messages: "QUESTION: And your sleep?")
    log = run_demo(log_dir, always, max_questions=0)
    assert {s.store["InterviewTrace:stop_reason"] for s in log.samples} == {"budget"}


def test_the_question_budget_is_bounded():
    with pytest.raises(ArgumentError, match="^max_questions: expected 0 to 100"):
        interview(max_questions=101)
    assert interview(max_questions=100).message_limit == 2 + 2 * 100 + 6


def test_the_demo_takes_n_sampled_and_seed():
    default = interview(types="1")
    assert len(default.dataset) == 4
    assert len(interview(types="1", n_sampled=2).dataset) == 2
    other = interview(types="1", seed=5)
    assert other.metadata["data_sha256"] != default.metadata["data_sha256"]
    assert other.metadata["seed"] == 5 and default.metadata["seed"] is None


def run_demo(log_dir, model="selfdx/kg-interviewer", **args):
    """The interview on the demo's Type 1 cases, with `args` as further task arguments."""
    (log,) = eval(
        "selfdx/interview",
        task_args={"data": "demo", "types": "1", **args},
        model=model,
        display="none",
        log_dir=log_dir,
    )
    return log


def test_other_tasks_scorers_refuse_an_interview_log_and_the_other_way(log_dir):
    log = run_demo(log_dir)
    first = log.samples[0].id
    with pytest.raises(SelfdxError, match=f"sample '{first}' is from the interview"):
        score(log, mentalbench_scorer(), action="append", display="none")
    (mb,) = eval(
        "selfdx/mentalbench", model="selfdx/first-option", display="none", log_dir=log_dir, limit=2
    )
    with pytest.raises(SelfdxError, match="interview_scorer scores the interview samples, but"):
        score(mb, interview_scorer(), action="append", display="none")


@needs_data
def test_rescoring_uses_the_data_the_log_records(log_dir):
    """A published-data interview rescored with interview_scorer() (no data given): the log's
    own graph is used and every value comes out the same; a log that does not record its data
    is refused rather than scored on the demo graph."""
    (log,) = eval(
        "selfdx/interview",
        task_args={"data": str(RESOURCES), "types": "1"},
        model="selfdx/kg-interviewer",
        display="none",
        log_dir=log_dir,
        limit=6,
    )
    before = [s.scores["interview_scorer"].value for s in log.samples]
    again = score(log, interview_scorer(), action="overwrite", display="none")
    after = [s.scores["interview_scorer"].value for s in again.samples]
    assert [{k: v for k, v in a.items() if v == v} for a in after] == [
        {k: v for k, v in b.items() if v == v} for b in before
    ]  # NaN (not applicable) compared by its place
    assert [{k for k, v in a.items() if v != v} for a in after] == [
        {k for k, v in b.items() if v != v} for b in before
    ]
    for sample in log.samples:
        del sample.store[DATA_STORE_KEY]
    with pytest.raises(SelfdxError, match="rescore it with -S data=PATH"):
        score(log, interview_scorer(), action="overwrite", display="none")
    with pytest.raises(SelfdxError, match="ran on data"):
        for sample in again.samples:
            sample.store[DATA_STORE_KEY] = str(RESOURCES)
        score(again, interview_scorer(data="/elsewhere"), action="overwrite", display="none")


def test_a_budget_notice_and_a_reminder_fit_in_the_message_limit(log_dir):
    """Found with SmolLM2: a case ended on the message limit (not a reason the solver gives)
    when a reply needed both the budget notice and the format reminder."""
    replies = ["QUESTION: Sleep?", "Hmm.", "DIAGNOSIS: A\nCRITERIA MET: cannot tell"]

    def in_turn(last, messages):
        return replies[min(2, sum(m.role == "assistant" for m in messages))]

    log = run_demo(log_dir, scripted_model(in_turn), max_questions=0)
    assert {s.store["InterviewTrace:stop_reason"] for s in log.samples} == {"answer"}
    asks = scripted_model(lambda last, messages: "QUESTION: Sleep?")
    for mode in ("initial", "full"):
        log = run_demo(log_dir, asks, mode=mode)
        assert {s.store["InterviewTrace:stop_reason"] for s in log.samples} == {"unparsed"}


@pytest.mark.parametrize("mode", ["full", "initial"])
def test_a_patient_style_without_a_patient_is_refused(mode):
    """mode=full and initial show the profile as text: no patient speaks, so a style (and a
    style breakdown with a drop of 0) would report what never happened."""
    with pytest.raises(ArgumentError, match=f"needs mode=interview \\(mode={mode}"):
        interview(data="demo", mode=mode, patient_style="plain,guarded")
    assert interview(data="demo", mode=mode, patient_style="plain")  # the default is fine


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"mode": "full", "max_questions": 5}, "max_questions: the run would ignore it (mode=full"),
        ({"mode": "initial", "max_questions": 0}, "max_questions: the run would ignore it"),
        ({"full_text": "narrative"}, "full_text: the run would ignore it (only mode=full"),
        ({"generator": "qwen235"}, "generator: the run would ignore it (the demo has no"),
    ],
)  # fmt: skip
def test_an_argument_the_run_would_ignore_is_refused(given, message):
    """A changed argument that acts on nothing was logged, labelled as a setting and split the
    report's rows (adversarial user, M5); its default, passed by name, is fine."""
    with pytest.raises(ArgumentError, match=re.escape(message)):
        interview(data="demo", **given)
    defaults = {"max_questions": 12, "full_text": "profile", "generator": "gpt5"}
    assert interview(data="demo", **{k: defaults.get(k, v) for k, v in given.items()})

"""Each task records what its run stands for (variant, whether it asks the grader, the arguments
changed from its defaults) in its log; the report reads those facts, and works the same facts
out for a log written before tasks recorded them."""

from __future__ import annotations

import pytest
from inspect_ai import eval
from inspect_ai.log import read_eval_log, write_eval_log

from selfdx.analysis.logs import run_from_header
from selfdx.run_facts import FACTS
from tests.conftest import SHARED

KG = SHARED / "mentalbench" / "resources" / "knowledge_graph" / "EN"
SAFE = {"model": "selfdx/keyword", "model_roles": {"grader": "selfdx/rules-judge"}}
# (task, arguments, models) -> the variant, whether it asks the grader, the changed arguments
CASES = [
    ("safe_psych", {}, SAFE, "sequential_info_abstention_aware", True, []),
    (
        "safe_psych",
        {"strategy": "structured_actions"},
        SAFE,
        "structured_actions",
        False,
        ["strategy"],
    ),
    ("mentalbench", {}, {"model": "selfdx/first-option"}, "all types", False, []),
    (
        "mentalbench",
        {"types": "2,3", "answer_format": "free_text"},
        {"model": "selfdx/keyword", "model_roles": {"grader": "selfdx/rules-judge"}},
        "types 2,3, free text",
        True,
        ["answer_format", "types"],
    ),
    # the default passed by name is no change; a changed budget is in the label
    (
        "interview",
        {"max_questions": 12},
        {"model": "selfdx/kg-interviewer"},
        "interview, types 1,2",
        False,  # the offline risk grader: no grader role asked (risk_grader=model asks it)
        [],
    ),
    (
        "interview",
        {"max_questions": 5, "patient_style": "vague,guarded"},
        {"model": "selfdx/kg-interviewer"},
        "interview, types 1,2, 5 questions, patient vague+guarded",
        False,
        ["max_questions", "patient_style"],
    ),
    (
        "judge_check",
        {"judge_max_tokens": 64},
        {"model_roles": {"grader": "selfdx/rules-judge"}},
        "judge_max_tokens=64",
        False,
        ["judge_max_tokens"],
    ),
    ("patient_check", {}, {}, "defaults", False, []),
    (
        "mentalbench_generate",
        {"kg": str(KG), "n": 1, "types": "1,2", "seed": 3},
        {"model": "selfdx/case-writer"},
        "n=1, types=1,2",
        True,
        ["kg", "n", "seed", "types"],
    ),
]


# what each benchmark run of one sample (`limit=1`) never reached, as its row says (by index)
LIMITED = {
    2: " (only type 1 ran)",
    3: " (only type 2 ran)",
    4: " (only type 1 ran)",
    5: " (only type 1 and style vague ran)",
}


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("facts")
    runs = []
    for index, (task, args, models, *_expected) in enumerate(CASES):
        if task == "mentalbench_generate" and not KG.is_dir():
            runs.append(None)  # case generation needs MentalKG, which is not bundled
            continue
        (log,) = eval(
            f"selfdx/{task}",
            task_args=args,
            limit=1,
            display="none",
            log_dir=str(folder / str(index)),
            **models,
        )
        assert log.status == "success", log.error
        runs.append(log.location)
    return runs


@pytest.mark.parametrize("index", range(len(CASES)), ids=[f"{c[0]}-{c[3]}" for c in CASES])
def test_the_task_records_its_facts_and_the_report_reads_them(logs, index):
    if logs[index] is None:
        pytest.skip(f"needs MentalKG in {KG} (a clone of HoyunS/MentalBench)")
    task, _args, _models, variant, asks, changed = CASES[index]
    header = read_eval_log(logs[index], header_only=True)
    recorded = {name: header.eval.metadata[name] for name in FACTS}
    assert recorded == {"variant": variant, "asks_grader": asks, "changed_args": changed}
    run = run_from_header(logs[index], header)
    # the report adds the patient model the interview was run with
    patient = ", patient selfdx/kg-patient" if task == "interview" else ""
    assert run.benchmark == task and run.variant == variant + patient + LIMITED.get(index, "")
    assert run.changed_args == frozenset(changed)
    if task in ("safe_psych", "mentalbench"):  # a grader bound but never asked is no judge
        assert (run.judge == "selfdx/rules-judge") == asks


@pytest.mark.parametrize("index", range(len(CASES)), ids=[f"{c[0]}-{c[3]}" for c in CASES])
def test_a_log_from_before_the_facts_reads_the_same(logs, index, tmp_path):
    """The same log without the recorded facts: the report works them out from the logged
    arguments, with the arguments the user passed standing for those changed."""
    if logs[index] is None:
        pytest.skip(f"needs MentalKG in {KG} (a clone of HoyunS/MentalBench)")
    header = read_eval_log(logs[index])
    for name in FACTS:
        del header.eval.metadata[name]
    old = tmp_path / "old.eval"
    write_eval_log(header, str(old))
    before = run_from_header(str(old), read_eval_log(str(old), header_only=True))
    now = run_from_header(logs[index], read_eval_log(logs[index], header_only=True))
    assert before.changed_args == frozenset(header.eval.task_args_passed)
    assert before.judge == now.judge
    if CASES[index][1] == {"max_questions": 12}:
        # the one difference: a default passed by name counts as changed in an old log
        assert before.variant == (
            "interview, types 1,2, 12 questions, patient selfdx/kg-patient (only type 1 ran)"
        )
    else:
        assert before.variant == now.variant


def test_mentalbench_types_given_as_a_list_are_labelled_as_written():
    """`-T types=1,2` is logged as the list ['1', '2']: the label reads `types 1,2`, not the
    list's Python spelling."""
    from selfdx.run_facts import variant_of

    assert variant_of("mentalbench", {"types": ["1", "2"]}, ["types"]) == "types 1,2"
    assert variant_of("mentalbench", {"types": "3"}, ["types"]) == "types 3"
    assert variant_of("mentalbench", {"types": [1, 2, 3, 4]}, []) == "all types"

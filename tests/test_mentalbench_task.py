"""The `selfdx/mentalbench` task: arguments, prompts, offline baselines, and end-to-end runs."""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog, read_eval_log
from inspect_ai.model import ChatMessageUser, ModelOutput, ModelUsage, get_model

from selfdx.datasets.mentalbench.filters import normalise_types
from selfdx.inspect_tasks.mentalbench import mentalbench
from selfdx.providers.choice_policies import first_option, kg_overlap
from selfdx.solvers.mentalbench.prompts import render_prompt, style_for

REPO = Path(__file__).resolve().parents[1]
RESOURCES = Path(__file__).resolve().parents[2] / "shared/mentalbench/resources"
KG = RESOURCES / "knowledge_graph/EN"
needs_resources = pytest.mark.skipif(
    not (RESOURCES / "dataset").is_dir(),
    reason=f"the MentalBench resources folder is not at {RESOURCES}",
)


def metrics(log: EvalLog) -> dict[str, dict[str, float]]:
    """{results entry: {metric key: value}} of a finished log, and {key: {mean, stderr}} for
    each key of the scorer's entry that has a `<key>_stderr` beside it."""
    assert log.status == "success", log.error
    assert log.results is not None
    found = {
        score.name: {key: metric.value for key, metric in score.metrics.items()}
        for score in log.results.scores
    }
    for entry in list(found.values()):
        for key in [k for k in entry if f"{k}_stderr" in entry]:
            found[key] = {"mean": entry[key], "stderr": entry[f"{key}_stderr"]}
    return found


def group_accuracy(log: EvalLog) -> dict[str, float]:
    """Accuracy per `type<N>_<code>` and per `type4_<variant>`, from the per-sample scores
    (these breakdowns are in the samples and the report, not in the task's results)."""
    groups: dict[str, list[float]] = {}
    for sample in log.samples or []:
        meta, (score,) = sample.metadata, sample.scores.values()
        names = [f"type{meta['type']}_{meta['code']}"]
        if meta["type"] == 4:
            names.append(f"type4_{meta['variant']}")
        for name in names:
            groups.setdefault(name, []).append(score.value["accuracy"])
    return {name: sum(values) / len(values) for name, values in groups.items()}


# ---------------------------------------------------------------------------- arguments


@pytest.mark.parametrize(
    ("types", "variants"),
    [
        ((1, 2, 3, 4), ("1", "2", "3", "4a", "4b")),
        (3, ("3",)),  # -T types=3 arrives as an int
        ("3", ("3",)),
        ([1, 2], ("1", "2")),  # -T types=1,2 arrives as a list
        ("1,2", ("1", "2")),
        (["type4"], ("4a", "4b")),
        ("4b, 1", ("1", "4b")),
    ],
)
def test_types_argument_forms(types, variants):
    assert normalise_types(types) == variants


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"types": 5}, "types: '5' is not a MentalBench type"),
        ({"types": []}, "types: the list is empty"),
        ({"parser": "loose"}, "parser: expected one of strict, reference, got 'loose'"),
        (
            {"prompt_style": "cot"},
            "prompt_style: expected one of single, hybrid, multiple, got 'cot'",
        ),
        ({"generators": "gemini"}, "generators: 'gemini' is not in this data"),
        ({"disorders": "D099"}, "disorders: 'D099' is neither"),
        ({"disorders": "D003"}, "disorders: 'D003' does not occur in this data"),
        ({"shuffle_choices": "yes"}, "shuffle_choices: expected true or false"),
        ({"seed": "7"}, "seed: expected an integer"),
        ({"revision": 3}, "revision: expected a Hub revision"),
        ({"data": "nowhere"}, "data: 'nowhere' does not exist"),
    ],
)
def test_bad_arguments_raise_clear_errors(arguments, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        mentalbench(**arguments)


def test_filters_on_the_demo_set():
    assert len(mentalbench(types=4).dataset) == 8
    assert len(mentalbench(types="1,2").dataset) == 8
    pair_items = mentalbench(disorders="D021").dataset  # Type 1 D021 and the D021-D022 pair
    assert sorted(str(sample.id) for sample in pair_items) == [
        "t1-synthetic-D021_l001",
        "t3-synthetic-D021-D022_h001",
        "t4a-synthetic-D021-D022_h001",
        "t4b-synthetic-D021-D022_h001",
    ]
    assert len(mentalbench(disorders="D021_D022", types=[3]).dataset) == 1


# ---------------------------------------------------------------------------- prompts


def test_prompt_layout_and_default_styles():
    text = render_prompt("hybrid", "  I hear voices.\n", ["Schizophrenia", "Delusional Disorder"])
    narrative, options, answer = (
        text.index("I hear voices."),
        text.index("A. Schizophrenia\nB. Delusional Disorder"),
        text.rindex("Answer:"),
    )
    assert narrative == 0 and narrative < text.index("A or B") < options < answer
    assert text.endswith("Answer:")
    assert " & " in text  # the hybrid style explains how to join several letters
    assert [style_for(None, t) for t in (1, 2, 3, 4)] == ["single", "single", "hybrid", "hybrid"]
    assert style_for("clear", 1) == "hybrid" and style_for("normal", 3) == "multiple"
    assert "every option that applies" in render_prompt("multiple", "x", ["A1", "B1"])
    assert "exactly one" in render_prompt("single", "x", ["A1", "B1"])


# ---------------------------------------------------------------------------- offline baselines


def user(text: str) -> list:
    return [ChatMessageUser(content=text)]


PSYCHOSIS_PROMPT = render_prompt(
    "single",
    "For eight months I have heard voices commenting on me, and I believe the neighbours "
    "put devices in my walls to read my thoughts. My speech wanders and I stopped washing.",
    ["Generalized Anxiety Disorder", "Anorexia Nervosa", "Schizophrenia", "Specific Phobia"],
)


def test_offline_baselines_answer_from_the_prompt():
    assert first_option(user(PSYCHOSIS_PROMPT), {}) == "A."
    with pytest.raises(ValueError, match="needs MentalKG: pass -M kg=PATH"):
        kg_overlap(user(PSYCHOSIS_PROMPT), {})
    with pytest.raises(ValueError, match="no lettered options"):
        first_option(user("What is the diagnosis?"), {})
    with pytest.raises(ValueError, match="no MentalKG there"):
        kg_overlap(user(PSYCHOSIS_PROMPT), {"kg": str(REPO)})


@needs_resources
def test_kg_baseline_picks_the_option_whose_symptoms_match():
    assert kg_overlap(user(PSYCHOSIS_PROMPT), {"kg": str(KG)}) == "C."


# ---------------------------------------------------------------------------- end to end


def test_demo_run_with_the_first_option_baseline(tmp_path):
    log = eval(mentalbench(), model="selfdx/first-option", display="none", log_dir=str(tmp_path))[0]
    found = metrics(log)
    assert log.results is not None and log.results.headline is not None
    headline = log.results.headline
    assert (headline.scorer, headline.metric) == ("mentalbench_scorer", "accuracy")
    # First option = "A." on all 20 demo items. Gold {A}: Type 1 D011, Type 2 D016, and the 4b
    # items of D013-D009, D021-D022, D011-D012 -> 5 correct. Type 3 golds AC, BC, AD, AC: A
    # alone under-diagnoses three of them; the other 12 misses are plainly incorrect.
    assert found["accuracy"]["mean"] == pytest.approx(5 / 20)
    assert found["type1"]["mean"] == pytest.approx(1 / 4)
    groups = group_accuracy(log)
    assert groups["type1_D011"] == 1.0 and groups["type1_D005"] == 0.0
    assert found["type2"]["mean"] == pytest.approx(1 / 4)
    assert found["type3"]["mean"] == 0.0
    assert found["type4"]["mean"] == pytest.approx(3 / 8)
    assert groups["type4_4a"] == 0.0 and groups["type4_4b"] == 0.75
    assert groups["type4_D011-D012"] == 0.5 and groups["type3_D011-D012"] == 0.0
    assert found["under_diagnosis"]["mean"] == pytest.approx(3 / 20)
    assert found["incorrect"]["mean"] == pytest.approx(12 / 20)
    assert found["over_diagnosis"]["mean"] == 0.0 and found["unparsed"]["mean"] == 0.0
    # letters: 20 predicted, 24 gold (16 single + 4 pairs), 8 hits (5 correct + 3 under)
    letters = found["mentalbench_scorer"]
    assert letters["precision"] == pytest.approx(8 / 20)
    assert letters["recall"] == pytest.approx(8 / 24)
    assert letters["f1"] == pytest.approx(16 / 44)
    # 11 seed groups (D013-m01 holds the Type 2 item and its pair's three items); deviations
    # from 0.25 summed per group square to 3 * 0.5625 + 7 * 0.0625 = 2.125
    assert found["accuracy"]["stderr"] == pytest.approx(math.sqrt(2.125 * 11 / 10) / 20)
    sample = log.samples[0] if log.samples else None
    assert sample is not None and sample.scores is not None
    score = sample.scores["mentalbench_scorer"]
    assert score.metadata is not None and score.metadata["prompt_style"] == "single"
    assert sample.messages[0].text.endswith("Answer:")


def scripted(reply: str):
    """A mockllm model that always gives `reply` (usage set, so no tokenizer is needed)."""

    def output(*_args) -> ModelOutput:
        result = ModelOutput.from_content(model="mockllm/model", content=reply)
        result.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return result

    return get_model("mockllm/model", custom_outputs=output, memoize=False)


@pytest.mark.parametrize(
    ("parser", "reply", "correct_disorder"),
    [
        # demo Type 1 golds: D005 B, D008 C, D011 A, D021 D
        ("strict", "**Answer:** B", "D005"),
        ("reference", "**Answer:** B", "D011"),  # read as the A of ANSWER
        ("strict", "The most likely diagnosis is C", "D008"),
        ("reference", "The most likely diagnosis is C", "D021"),  # the D of DIAGNOSIS
    ],
)
def test_parser_choice_changes_what_is_scored(parser, reply, correct_disorder, tmp_path):
    task = mentalbench(types=1, parser=parser)
    log = eval(task, model=scripted(reply), display="none", log_dir=str(tmp_path))[0]
    found = metrics(log)
    assert found["type1"]["mean"] == 0.25
    per_disorder = group_accuracy(log)
    codes = ("D005", "D008", "D011", "D021")
    assert [code for code in codes if per_disorder[f"type1_{code}"]] == [correct_disorder]


def test_unparsed_replies_are_counted(tmp_path):
    task = mentalbench(types=3)
    log = eval(task, model=scripted("A or C"), display="none", log_dir=str(tmp_path))[0]
    found = metrics(log)
    assert found["unparsed"]["mean"] == 1.0 and found["accuracy"]["mean"] == 0.0
    assert math.isnan(found["mentalbench_scorer"]["precision"])
    assert found["mentalbench_scorer"]["recall"] == 0.0


@needs_resources
def test_real_slice_with_the_first_option_baseline(tmp_path):
    task = mentalbench(data=str(RESOURCES), types=[3, 4], generators="gpt5", disorders="D020-D013")
    log = eval(task, model="selfdx/first-option", display="none", log_dir=str(tmp_path))[0]
    found = metrics(log)
    # high/D020/D013, gpt5: Type 3 golds BC, CD, AC, CD, AB (five ids each) -> A is under-
    # diagnosis on AC and AB (10), incorrect on the rest (15). 4a golds B, C, C, C, A and 4b
    # golds C, D, A, D, B (five each) -> 5 + 5 correct of 50.
    assert len(log.samples or []) == 75
    assert found["accuracy"]["mean"] == pytest.approx(10 / 75)
    assert found["type3"]["mean"] == 0.0
    assert group_accuracy(log)["type3_D020-D013"] == 0.0
    assert found["type4"]["mean"] == pytest.approx(10 / 50)
    assert group_accuracy(log)["type4_4a"] == pytest.approx(0.2)
    assert group_accuracy(log)["type4_4b"] == pytest.approx(0.2)
    assert found["under_diagnosis"]["mean"] == pytest.approx(10 / 75)
    assert found["incorrect"]["mean"] == pytest.approx(55 / 75)
    # letters: 75 predicted, 100 gold, 20 hits
    assert found["mentalbench_scorer"]["precision"] == pytest.approx(20 / 75)
    assert found["mentalbench_scorer"]["recall"] == pytest.approx(20 / 100)
    assert found["mentalbench_scorer"]["f1"] == pytest.approx(40 / 175)
    # five seed groups D020-m01..m05 of 15 items; correct per group 0, 0, 5, 0, 5; mean 2/15
    # -> deviations -2, -2, 3, -2, 3 -> sqrt(30 * 5/4) / 75
    assert found["accuracy"]["stderr"] == pytest.approx(math.sqrt(37.5) / 75)


def gold_letter(sample_id: str) -> str:
    """The gold letter of a published Type 1 or 2 item, read from its data file: item
    `t1-<generator>-D013_l001` is key `D013_l001` of `dataset/low/D013/main_<generator>.json`
    (`t2`: `medium`), whose `answer` starts with the letter (`"D. Major Depressive ..."`)."""
    found = re.fullmatch(r"t([12])-(\w+)-((D\d{3})_[lm]\d{3})", sample_id)
    assert found, sample_id
    type_, generator, key, code = found.groups()
    level = {"1": "low", "2": "medium"}[type_]
    path = RESOURCES / "dataset" / level / code / f"main_{generator}.json"
    answer = json.loads(path.read_text(encoding="utf-8"))[key]["answer"]
    assert re.match(r"[A-D]\. ", answer), answer
    return answer[0]


@needs_resources
def test_real_slice_with_the_kg_baseline_against_the_answer_key(tmp_path):
    """Accuracy and letter recall from the data files' answer key and the letter the baseline
    replied (the log's output), not from the scorer's own per-sample values."""
    task = mentalbench(data=str(RESOURCES), types="1,2", generators="qwen235", disorders="D013")
    log = eval(
        task,
        model="selfdx/kg-overlap",
        model_args={"kg": str(KG)},
        display="none",
        log_dir=str(tmp_path),
    )[0]
    found = metrics(log)
    samples = log.samples or []
    assert len(samples) == 25 + 50
    right: dict[str, list[bool]] = {"1": [], "2": []}
    for sample in samples:
        reply = sample.output.completion
        assert re.fullmatch(r"[A-D]\.", reply), reply  # the baseline's one letter
        right[str(sample.id)[1]].append(reply[0] == gold_letter(str(sample.id)))
    correct = sum(right["1"]) + sum(right["2"])
    assert 0 < correct < 75  # a real baseline: neither always right nor wrong
    assert found["accuracy"]["mean"] == pytest.approx(correct / 75)
    assert found["type1"]["mean"] == pytest.approx(sum(right["1"]) / 25)
    assert found["type2"]["mean"] == pytest.approx(sum(right["2"]) / 50)
    # one letter replied and one gold letter per item: a hit is a correct item
    assert found["mentalbench_scorer"]["recall"] == pytest.approx(correct / 75)
    assert found["mentalbench_scorer"]["precision"] == pytest.approx(correct / 75)
    assert found["incorrect"]["mean"] == pytest.approx(1 - correct / 75)


@pytest.mark.slow
@needs_resources
def test_cli_run_with_list_arguments(tmp_path):
    command = [
        sys.executable,
        "-m",
        "inspect_ai",
        "eval",
        "selfdx/mentalbench",
        "--model",
        "selfdx/first-option",
        "-T",
        "data=../shared/mentalbench/resources",
        "-T",
        "types=3,4",
        "-T",
        "generators=gpt5",
        "-T",
        "disorders=D020-D013",
        "--display",
        "none",
        "--log-dir",
        str(tmp_path),
    ]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-2000:]
    log = read_eval_log(next(tmp_path.glob("*.eval")))
    assert [str(t) for t in log.eval.task_args["types"]] == ["3", "4"]
    assert metrics(log)["accuracy"]["mean"] == pytest.approx(10 / 75)

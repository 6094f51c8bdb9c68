"""`selfdx/judge_check`'s metrics and per-reply values, called directly on hand-made scores.

The task builds its metrics when the scorer is defined (at import), so only a direct call
reaches them under mutation (bench/mutation.py). Every expected value is worked out by hand.
"""

from __future__ import annotations

import math

import pytest
from inspect_ai.scorer import SampleScore, Score

from selfdx.judge.agreement import UNPARSED, item_set, label_agreement, macro_f1, set_agreement
from selfdx.scorers.judge_check.metrics import (
    judge_check_by_category,
    judge_check_metrics,
    key_statistics,
    pair_consistency,
)
from selfdx.scorers.judge_check.scorer import matches, reference_labels

NAN = math.nan
KEYS = ("primary_answer", "info_request", "icd_codes", "diagnosis_names", "action")


def labels(pa, ir, icd=None, names=None, action=None) -> dict:
    return {
        "primary_answer": pa,
        "info_request": ir,
        "icd_codes": icd,
        "diagnosis_names": names,
        "action": action,
    }


def reply(sample_id, category, gold, predicted, pair=None, echo=0.0) -> SampleScore:
    value = {key: matches(key, gold[key], predicted[key] if predicted else None) for key in KEYS}
    value["unparsed"] = float(predicted is None)
    value["echo"] = echo
    metadata = {"category": category, "gold": gold, "predicted": predicted, "pair": pair}
    return SampleScore(score=Score(value=value, metadata=metadata), sample_id=sample_id)


# r1 agrees on every key; r2 differs on the answer, the codes and the action (no names label);
# r3 is unparsed (an echo); r4 agrees (no code or name labels).
REPLIES = [
    reply(
        "r1",
        "plain",
        labels("committed", "none", ["F41.1"], ["GAD"], "Diagnose"),
        labels("committed", "none", ["f41.1"], ["gad"], "Diagnose"),
        pair="p1",
    ),
    reply(
        "r2",
        "plain",
        labels("committed", "none", ["F41.1"], None, "Diagnose"),
        labels("differential", "none", ["F41.1", "F41.0"], ["GAD", "panic"], "Abstain"),
        pair="p1",
    ),
    reply(
        "r3",
        "adversarial",
        labels("none", "specific", action="Clarify"),
        None,
        pair="p2",
        echo=1.0,
    ),
    reply(
        "r4",
        "adversarial",
        labels("none", "specific", action="Clarify"),
        labels("none", "specific", [], [], "Clarify"),
        pair="p2",
    ),
]


def test_per_reply_values():
    assert [r.score.value for r in REPLIES] == [
        {k: 1.0 for k in KEYS} | {"unparsed": 0.0, "echo": 0.0},
        {
            "primary_answer": 0.0,
            "info_request": 1.0,
            "icd_codes": 0.0,
            "diagnosis_names": pytest.approx(NAN, nan_ok=True),
            "action": 0.0,
            "unparsed": 0.0,
            "echo": 0.0,
        },
        {
            "primary_answer": 0.0,
            "info_request": 0.0,
            "icd_codes": pytest.approx(NAN, nan_ok=True),
            "diagnosis_names": pytest.approx(NAN, nan_ok=True),
            "action": 0.0,
            "unparsed": 1.0,
            "echo": 1.0,
        },
        {
            "primary_answer": 1.0,
            "info_request": 1.0,
            "icd_codes": pytest.approx(NAN, nan_ok=True),
            "diagnosis_names": pytest.approx(NAN, nan_ok=True),
            "action": 1.0,
            "unparsed": 0.0,
            "echo": 0.0,
        },
    ]


def test_matches():
    assert matches("icd_codes", ["F41.1", "F32.1"], ["f32.1 ", "F41.1."]) == 1.0
    assert matches("icd_codes", ["F41.1"], ["F41.1", "F41.0"]) == 0.0
    assert matches("primary_answer", "none", "none") == 1.0
    assert matches("primary_answer", "none", "None") == 0.0  # only list keys are normalised
    assert matches("primary_answer", "none", None) == 0.0
    assert math.isnan(matches("diagnosis_names", None, ["GAD"]))


def test_reference_labels_derive_a_missing_action_with_the_last_section_override():
    gold = labels("none", "specific")
    assert reference_labels({"gold": gold, "is_last_section": False})["action"] == "Clarify"
    assert reference_labels({"gold": gold, "is_last_section": True})["action"] == "Abstain"
    given = labels("none", "specific", action="Diagnose")
    assert reference_labels({"gold": given, "is_last_section": False})["action"] == "Diagnose"
    assert gold["action"] is None  # the metadata is not changed


def expect(result: dict, expected: dict) -> None:
    for key, value in expected.items():
        assert result[key] == pytest.approx(value, nan_ok=True), key


def test_judge_check_metrics_by_hand():
    result = judge_check_metrics()(REPLIES)
    # primary_answer: gold committed, committed, none, none; judged committed, differential,
    # (unparsed), none. Accuracy 2/4. F1 over committed, differential, none: 2/3, 0, 2/3.
    # Kappa: p_o 1/2, p_e (2*1 + 2*1) / 16 = 1/4 -> (1/2 - 1/4) / (3/4) = 1/3.
    # Standard error of (1, 0, 0, 1): sd sqrt(1/3), over sqrt(4).
    half = math.sqrt(1 / 3) / 2
    expect(
        result,
        {
            "primary_answer_accuracy": 0.5,
            "primary_answer_accuracy_stderr": half,
            "primary_answer_macro_f1": 4 / 9,
            "primary_answer_kappa": 1 / 3,
            # info_request: gold none, none, specific, specific; judged none, none, (unparsed),
            # specific. F1 over specific, none: 2/3, 1. Kappa: p_o 3/4,
            # p_e 0.5 * 0.5 + 0.5 * 0.25 = 3/8 -> (3/4 - 3/8) / (5/8) = 3/5.
            "info_request_accuracy": 0.75,
            "info_request_accuracy_stderr": 0.25,  # (1, 1, 0, 1): sd 1/2, over 2
            "info_request_macro_f1": (2 / 3 + 1) / 2,
            "info_request_kappa": 0.6,
            # icd_codes, r1 and r2 only: {f41.1} twice against {f41.1}, {f41.0, f41.1}.
            # Items f41.0 (F1 0) and f41.1 (F1 1); kappa p_o 1/2, p_e 1/2 -> 0.
            "icd_codes_accuracy": 0.5,
            "icd_codes_accuracy_stderr": 0.5,  # (1, 0): sd sqrt(1/2), over sqrt(2)
            "icd_codes_macro_f1": 0.5,
            "icd_codes_kappa": 0.0,
            # diagnosis_names: r1 only, right; one reply has no stderr, kappa undefined
            "diagnosis_names_accuracy": 1.0,
            "diagnosis_names_accuracy_stderr": NAN,
            "diagnosis_names_macro_f1": 1.0,
            "diagnosis_names_kappa": NAN,
            # action: the same pattern as primary_answer (Diagnose, Diagnose, Clarify, Clarify
            # against Diagnose, Abstain, (unparsed), Clarify)
            "action_accuracy": 0.5,
            "action_accuracy_stderr": half,
            "action_macro_f1": 4 / 9,
            "action_kappa": 1 / 3,
            "unparsed_rate": 0.25,
            "unparsed_rate_stderr": 0.25,  # (0, 0, 1, 0): sd 1/2, over 2
            "echo_rate": 0.25,
            # shares judged minus labelled, over the 4 replies
            "primary_answer_bias_committed": 1 / 4 - 2 / 4,
            "primary_answer_bias_differential": 1 / 4,
            "primary_answer_bias_none": 1 / 4 - 2 / 4,
            "info_request_bias_specific": 1 / 4 - 2 / 4,
            "info_request_bias_generic_only": 0.0,
            "info_request_bias_none": 0.0,
            "action_bias_Diagnose": 1 / 4 - 2 / 4,
            "action_bias_Clarify": 1 / 4 - 2 / 4,
            "action_bias_Abstain": 1 / 4,
            # p1 differs, p2 has an unparsed half
            "pair_consistency": 0.0,
            "pair_consistency_action": 0.0,
        },
    )
    assert not any(key.endswith("_alpha") for key in result)  # no panel


def test_echo_rate_is_nan_for_logs_without_it_and_bias_nan_without_labels():
    old = []
    for score in REPLIES:
        value = {k: v for k, v in score.score.value.items() if k != "echo"}
        old.append(
            SampleScore(
                score=Score(value=value, metadata=score.score.metadata), sample_id=score.sample_id
            )
        )
    result = judge_check_metrics()(old)
    assert math.isnan(result["echo_rate"]) and result["unparsed_rate"] == 0.25
    unlabelled = reply("u", "plain", labels(None, None, action=None), None)
    result = judge_check_metrics()([unlabelled])
    assert math.isnan(result["primary_answer_bias_committed"])
    assert math.isnan(result["primary_answer_accuracy"])


def test_a_score_without_labels_is_named():
    bare = SampleScore(score=Score(value={"unparsed": 0.0}, metadata={}), sample_id="z9")
    with pytest.raises(ValueError, match="^score of sample 'z9' has no judge_check labels$"):
        judge_check_metrics()([bare])


def test_pair_consistency_by_hand():
    same = labels("committed", "none", ["F41.1", "F41.0"], ["GAD"], "Diagnose")
    same_reordered = labels("committed", "none", ["f41.0", "F41.1"], ["panic"], "Diagnose")
    other_codes = labels("committed", "none", ["F32.1"], ["GAD"], "Diagnose")
    gold = labels("committed", "none", action="Diagnose")
    scores = [
        reply("a1", "plain", gold, same, pair="a"),  # a: alike (names are not compared)
        reply("a2", "plain", gold, same_reordered, pair="a"),
        reply("b1", "plain", gold, same, pair="b"),  # b: codes differ, the action agrees
        reply("b2", "plain", gold, other_codes, pair="b"),
        reply("c1", "plain", gold, None, pair="c"),  # c: an unparsed half
        reply("c2", "plain", gold, same, pair="c"),
        reply("d1", "plain", gold, same, pair="d"),  # d: incomplete, left out
        reply("e1", "plain", gold, same),  # no pair
    ]
    assert pair_consistency(scores) == {
        "pair_consistency": pytest.approx(1 / 3),
        "pair_consistency_action": pytest.approx(2 / 3),
    }
    # both halves unparsed: still a disagreement
    both = [reply("x1", "plain", gold, None, pair="x"), reply("x2", "plain", gold, None, pair="x")]
    assert pair_consistency(both) == {"pair_consistency": 0.0, "pair_consistency_action": 0.0}
    result = pair_consistency(scores[-2:])
    assert math.isnan(result["pair_consistency"]) and math.isnan(result["pair_consistency_action"])


def test_accuracy_by_category_by_hand():
    result = judge_check_by_category()(REPLIES)
    assert list(result) == [f"{c}_{k}" for c in ("adversarial", "plain") for k in KEYS]
    expect(
        result,
        {
            # adversarial: r3 (unparsed) and r4 (right)
            "adversarial_primary_answer": 0.5,
            "adversarial_info_request": 0.5,
            "adversarial_icd_codes": NAN,
            "adversarial_diagnosis_names": NAN,
            "adversarial_action": 0.5,
            # plain: r1 right on all, r2 right only on the request, no names label
            "plain_primary_answer": 0.5,
            "plain_info_request": 1.0,
            "plain_icd_codes": 0.5,
            "plain_diagnosis_names": 1.0,
            "plain_action": 0.5,
        },
    )


def test_a_score_with_metadata_but_no_labels_is_named():
    bare = SampleScore(
        score=Score(value={"unparsed": 0.0}, metadata={"category": "c"}), sample_id="z"
    )
    with pytest.raises(ValueError, match="^score of sample 'z' has no judge_check labels$"):
        judge_check_metrics()([bare])


def test_codes_after_an_unlabelled_reply_and_an_unparsed_reply_against_no_codes():
    gold = labels("committed", "none", action="Diagnose")
    scores = [
        reply("u1", "plain", gold, labels("committed", "none", ["F32.1"], [], "Diagnose")),
        reply("u2", "plain", {**gold, "icd_codes": []}, None),
        reply(
            "u3", "plain", {**gold, "icd_codes": ["F32.1"]}, labels("committed", "none", ["F32.1"])
        ),
    ]
    # labelled u2, u3: "-" and "f32.1" against (unparsed) and "f32.1": accuracy 1/2;
    # the one item f32.1 is found once and never wrongly: F1 1; kappa p_o 1/2,
    # p_e 1/2 * 0 + 1/2 * 1/2 = 1/4 -> (1/2 - 1/4) / (3/4) = 1/3
    assert key_statistics(scores, "icd_codes") == pytest.approx(
        {"accuracy": 0.5, "macro_f1": 1.0, "cohen_kappa": 1 / 3}
    )


def test_no_score_yet_gives_nan_everywhere():
    result = judge_check_metrics()([])
    assert result and all(math.isnan(value) for value in result.values())
    assert judge_check_by_category()([]) == {}


def test_every_bias_is_nan_without_labels():
    unlabelled = reply("u", "plain", labels(None, None, action=None), None)
    bias = {k: v for k, v in judge_check_metrics()([unlabelled]).items() if "_bias_" in k}
    assert sorted(bias) == sorted(
        [f"primary_answer_bias_{v}" for v in ("committed", "differential", "none")]
        + [f"info_request_bias_{v}" for v in ("specific", "generic_only", "none")]
        + [f"action_bias_{v}" for v in ("Diagnose", "Clarify", "Abstain")]
    )
    assert all(math.isnan(v) for v in bias.values())


def test_a_panel_adds_alphas_and_each_judges_unparsed_rate():
    def panel_reply(sample_id, answer, action):
        score = REPLIES[0]
        unit = {
            "primary_answer": [answer, answer],
            "info_request": ["none", "none"],
            "icd_codes": ["-", "-"],
            "diagnosis_names": ["-", "-"],
            "action": [action, action],
        }
        metadata = {
            **score.score.metadata,
            "panel": [{"role": "grader"}, {"role": "grader2"}],
            "panel_ratings": [unit],
            "panel_unparsed": {"grader": [0, 1], "grader2": [1, 2]},
        }
        return SampleScore(
            score=Score(value=score.score.value, metadata=metadata), sample_id=sample_id
        )

    scores = [panel_reply("a", "committed", "Diagnose"), panel_reply("b", "none", "Abstain")]
    result = judge_check_metrics()(scores)
    # the judges agree on every unit: alpha 1 on every key
    assert [result[f"{key}_alpha"] for key in KEYS] == [1.0] * 5
    # grader: 0 of 2 replies unparsed; grader2: 2 of 4
    assert result["grader_unparsed_rate"] == 0.0 and result["grader2_unparsed_rate"] == 0.5


def test_label_agreement_by_hand():
    gold, judged = ["a", "a", "b", "c"], ["a", "b", "b", UNPARSED]
    stats = label_agreement(gold, judged, ("c", "b", "a", "d"))
    assert stats == {
        "n": 4,
        "accuracy": 0.5,
        # recall a 1/2, b 1, c 0
        "balanced_accuracy": pytest.approx(0.5),
        # F1 c 0, b 2*1 / (2 + 1) = 2/3, a 2*1 / (2 + 1) = 2/3; d does not occur
        "macro_f1": pytest.approx(4 / 9),
        # p_o 1/2; p_e a 1/2 * 1/4 + b 1/4 * 1/2 = 1/4 -> 1/3
        "cohen_kappa": pytest.approx(1 / 3),
        "confusion_labels": ["c", "b", "a"],
        "confusion": [[0, 0, 0], [0, 1, 0], [0, 1, 1]],
    }
    assert label_agreement([], [], ("a",)) == {"n": 0}
    assert set_agreement([frozenset()], [None])["n"] == 1


def test_macro_f1_edges():
    assert math.isnan(macro_f1(["a"], ["a"], []))
    assert math.isnan(macro_f1([], [], ["a"]))
    # a label given but absent from both counts 0 (zero_division=0): (1 + 0) / 2
    assert macro_f1(["a", "a"], ["a", "a"], ["a", "b"]) == 0.5


def test_items_are_compared_lower_case_single_spaced_without_surrounding_punctuation():
    assert item_set([" Major   Depression. ", "XANAX", "'F32.1;'", "", " . "]) == {
        "major depression",
        "xanax",
        "f32.1",
    }


def test_a_set_label_never_makes_two_sets_equal():
    """Set labels are compared for agreement: an item holding `; ` (or equal to `-`) must not
    make a set look like another one (gold ["F32.1; F33"] against judged ["F32.1", "F33"] once
    counted as agreement in the accuracy while the per-reply value counted a miss)."""
    from selfdx.judge.agreement import set_agreement, set_label

    assert set_label(["F32.1; F33"]) != set_label(["F32.1", "F33"])
    assert set_label(["-"]) != set_label([])
    assert set_label(["b", "a"]) == set_label(["a", "b"])
    result = set_agreement([frozenset({"F32.1; F33"})], [frozenset({"F32.1", "F33"})])
    assert result["accuracy"] == 0.0

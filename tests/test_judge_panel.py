"""The judge panel: role names, the vote per key, Krippendorff's alpha (Inspect's, checked against
a coincidence-matrix computation written here), and whole Safe-Psych and judge_check runs."""

from __future__ import annotations

import json
from collections import Counter
from itertools import permutations

import pytest
from inspect_ai import eval

from selfdx.errors import ArgumentError
from selfdx.judge.behaviour import JudgeFeatures
from selfdx.judge.grader_calls import GraderResult
from selfdx.judge.panel import alpha, majority, panel_roles, vote
from tests.conftest import scripted_model

RUN = {"display": "none", "log_level": "error"}


def hand_alpha(units: list[list[str]]) -> float:
    """Krippendorff's nominal alpha from the coincidence matrix (Krippendorff 2011)."""
    units = [u for u in units if len(u) >= 2]
    coincidences: Counter = Counter()
    for unit in units:
        for i, j in permutations(range(len(unit)), 2):
            coincidences[(unit[i], unit[j])] += 1 / (len(unit) - 1)
    totals: Counter = Counter()
    for (c, _), count in coincidences.items():
        totals[c] += count
    n = sum(totals.values())
    observed = sum(v for (c, k), v in coincidences.items() if c != k) / n
    expected = sum(totals[c] * totals[k] for c in totals for k in totals if c != k) / (n * (n - 1))
    return 1 - observed / expected


def test_panel_roles():
    assert panel_roles(None) is None and panel_roles("") is None
    assert panel_roles(1) == ["grader"]
    assert panel_roles(3) == ["grader", "grader_2", "grader_3"]
    assert panel_roles("grader, strict") == ["grader", "strict"]
    assert panel_roles(["a", "b"]) == ["a", "b"]
    for bad, message in (
        (0, ">= 1"),
        (True, "a number of judges or role names"),
        ("a,a", "named twice"),
        ("a,", "not a model role name"),
        (2.5, "a number of judges or role names"),
    ):
        with pytest.raises(ArgumentError, match=message):
            panel_roles(bad)


def result(features: JudgeFeatures | None) -> GraderResult[JudgeFeatures]:
    return GraderResult(
        outputs=["..."], parsed=features, error=None if features else "bad", model="m"
    )


def test_vote_takes_the_majority_per_key_and_breaks_ties_by_order():
    a = JudgeFeatures("committed", "none", ["F32.1"], ["moderate depressive episode"])
    b = JudgeFeatures("differential", "specific", ["f32.1"], ["Moderate depressive episode"])
    c = JudgeFeatures("committed", "specific", ["F33"], [])
    verdict = vote(["g1", "g2", "g3"], [result(a), result(b), result(c)])
    assert verdict.features == JudgeFeatures(
        "committed", "specific", ["F32.1"], ["moderate depressive episode"]
    )
    assert verdict.votes["primary_answer"] == {"committed": 2, "differential": 1}
    assert verdict.votes["icd_codes"] == {'["f32.1"]': 2, '["f33"]': 1}  # sets, case-insensitive
    # a tie (one each) goes to the judge listed first; an unparsed judge has no vote
    tied = vote(["g1", "g2", "g3"], [result(None), result(b), result(c)])
    assert tied.features.primary_answer == "differential"
    assert tied.votes["primary_answer"] == {"differential": 1, "committed": 1}
    assert majority(["x", "y", "y", "x"]) == "x"


def test_a_panel_with_no_parsed_answer_is_unparsed_with_every_reason():
    verdict = vote(["g1", "g2"], [result(None), result(None)])
    merged = verdict.as_result()
    assert merged.parsed is None and merged.outputs == ["...", "..."]
    assert merged.error == "no judge of the panel answered: g1: bad; g2: bad"


def test_alpha_is_inspects_and_matches_the_coincidence_matrix():
    units = [["a", "a", "b"], ["a", "a"], ["b", "b", "b"], ["c"]]
    assert alpha(units) == pytest.approx(0.5625)  # by hand: 1 - (2/8) / (32/56)
    assert alpha(units) == pytest.approx(hand_alpha(units))
    other = [["x", "y"], ["y", "y"], ["x", "x"], ["x", "y", "y"]]
    assert alpha(other) == pytest.approx(hand_alpha(other))
    assert alpha([["a"]]) != alpha([["a"]])  # NaN without a unit of two ratings


def silent_judge(*_: object) -> str:
    return "PRIMARY_ANSWER: none\nINFO_REQUEST: none\nICD_CODES:\nDIAGNOSIS_NAMES:"


def test_safe_psych_with_a_panel_votes_and_records_every_judge(tmp_path):
    args = {"strategy": "sequential_info_abstention_aware"}
    common = {"model": "selfdx/keyword", "limit": 4, "log_dir": str(tmp_path), **RUN}
    (single,) = eval(
        "selfdx/safe_psych", task_args=args, model_roles={"grader": "selfdx/rules-judge"}, **common
    )
    roles = {
        "grader": "selfdx/rules-judge",
        "grader_2": "selfdx/rules-judge",
        "grader_3": scripted_model(silent_judge),
    }
    (panel,) = eval(
        "selfdx/safe_psych", task_args={**args, "judges": 3}, model_roles=roles, **common
    )
    assert panel.status == "success"
    units: dict[str, list[list[str]]] = {"primary_answer": [], "action": []}
    for one, many in zip(single.samples, panel.samples, strict=True):
        turns_one = one.store["SafePsychTrace:turns"]
        turns_many = many.store["SafePsychTrace:turns"]
        assert all(t["panel"] == [] and t["panel_votes"] == {} for t in turns_one)
        # two rules-judges outvote the silent one: the same actions as the single judge
        assert [t["action"] for t in turns_many] == [t["action"] for t in turns_one]
        for turn in turns_many:
            assert [j["role"] for j in turn["panel"]] == ["grader", "grader_2", "grader_3"]
            assert turn["panel"][2]["primary_answer"] == "none"
            assert len(turn["judge_outputs"]) == 3
            votes = turn["panel_votes"]["primary_answer"]
            assert sum(votes.values()) == 3 and votes[turn["primary_answer"]] >= 2
            for key in units:
                units[key].append([j[key] for j in turn["panel"]])
    metrics = {
        name: m.value
        for entry in panel.results.scores
        if entry.name == "judge_panel_agreement"
        for name, m in entry.metrics.items()
    }
    for key, rated in units.items():
        assert metrics[f"{key}_alpha"] == pytest.approx(hand_alpha(rated))
    assert "judge_panel_agreement" not in {e.name for e in single.results.scores}


def test_judge_check_with_a_panel_reports_alpha(tmp_path):
    rows = [
        {"id": "p1", "reply": "Panic disorder (F41.0).", "is_last_section": False}
        | {"primary_answer": "committed", "info_request": "none"},
        {"id": "p2", "reply": "How often do the attacks occur?", "is_last_section": False}
        | {"primary_answer": "none", "info_request": "specific"},
    ]
    data = tmp_path / "p.jsonl"
    data.write_text("\n".join(json.dumps(r) for r in rows))
    roles = {"a": "selfdx/rules-judge", "b": scripted_model(silent_judge)}
    (log,) = eval(
        "selfdx/judge_check",
        task_args={"data": str(data), "judges": "a,b"},
        model_roles=roles,
        log_dir=str(tmp_path),
        **RUN,
    )
    metrics = {n: m.value for e in log.results.scores for n, m in e.metrics.items()}
    # primary: (committed, none), (none, none); a tie goes to the first judge, role a
    assert metrics["primary_answer_alpha"] == pytest.approx(
        hand_alpha([["committed", "none"], ["none", "none"]])
    )
    assert metrics["primary_answer_accuracy"] == 1.0
    meta = log.samples[0].scores["judge_check_scorer"].metadata
    assert [j["role"] for j in meta["panel"]] == ["a", "b"]


@pytest.mark.parametrize(
    "args, roles, message",
    [
        ({"judges": 2}, {"grader": "selfdx/rules-judge"}, "'grader_2' role"),
        ({"judges": "a,b"}, {"a": "selfdx/rules-judge"}, "'b' role: add --model-role b="),
        (
            {"judges": 2, "strategy": "structured_actions"},
            {"grader": "selfdx/rules-judge", "grader_2": "selfdx/rules-judge"},
            "structured_actions asks no judge",
        ),
    ],
)
def test_safe_psych_panel_misuse_is_named_before_any_sample_runs(tmp_path, args, roles, message):
    with pytest.raises(ArgumentError, match=message):
        eval(
            "selfdx/safe_psych",
            task_args=args,
            model="selfdx/keyword",
            model_roles=roles,
            log_dir=str(tmp_path),
            **RUN,
        )
    assert not list(tmp_path.glob("*.eval"))


def test_a_panel_of_named_roles_needs_no_grader(tmp_path):
    (log,) = eval(
        "selfdx/safe_psych",
        task_args={"judges": "a,b"},
        model="selfdx/keyword",
        model_roles={"a": "selfdx/rules-judge", "b": "selfdx/rules-judge"},
        limit=1,
        log_dir=str(tmp_path),
        **RUN,
    )
    assert log.status == "success"
    turn = log.samples[0].store["SafePsychTrace:turns"][0]
    assert turn["judge_model"] == "selfdx/rules-judge, selfdx/rules-judge"


def mute_judge(*_: object) -> str:
    return "I would rather not say."


def test_a_judge_that_never_answers_is_named_in_the_results(tmp_path):
    """Found in the second probe round: with one judge that never answers in the format, the
    panel's unparsed rate stayed 0.000 (the other judges voted) and nothing said which judge
    failed. Each judge's unparsed rate is now a metric, in both tasks."""
    rows = [
        {"id": f"p{n}", "reply": reply, "is_last_section": False}
        | {"primary_answer": "committed", "info_request": "none"}
        for n, reply in enumerate(["Panic disorder (F41.0).", "Depressive episode (F32.1)."])
    ]
    data = tmp_path / "p.jsonl"
    data.write_text("\n".join(json.dumps(r) for r in rows))
    roles = {"a": "selfdx/rules-judge", "b": scripted_model(mute_judge)}
    (log,) = eval(
        "selfdx/judge_check",
        task_args={"data": str(data), "judges": "a,b", "judge_attempts": 1, "judge_cache": False},
        model_roles=roles,
        log_dir=str(tmp_path),
        **RUN,
    )
    metrics = {n: m.value for e in log.results.scores for n, m in e.metrics.items()}
    assert metrics["unparsed_rate"] == 0.0  # role a answered every reply
    assert metrics["a_unparsed_rate"] == 0.0 and metrics["b_unparsed_rate"] == 1.0
    roles = {"grader": "selfdx/rules-judge", "grader_2": scripted_model(mute_judge)}
    (safe,) = eval(
        "selfdx/safe_psych",
        task_args={"judges": 2, "judge_attempts": 1, "judge_cache": False},
        model="selfdx/keyword",
        model_roles=roles,
        limit=2,
        log_dir=str(tmp_path),
        **RUN,
    )
    (entry,) = [e for e in safe.results.scores if e.name == "judge_panel_agreement"]
    assert entry.metrics["grader_unparsed_rate"].value == 0.0
    assert entry.metrics["grader_2_unparsed_rate"].value == 1.0

"""The cost projection states, and counts, the population of the run's own configuration: the
patient styles and types of an interview, the types and generators of MentalBench; a price
table naming a model no run used is a warning, not a silent blank."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest
from inspect_ai import eval

from selfdx.analysis import cost
from selfdx.analysis.logs import find_runs
from selfdx.analysis.report import build_report
from tests.conftest import SHARED

RESOURCES = SHARED / "mentalbench" / "resources"
INTERVIEWER = "selfdx/kg-interviewer"
needs_data = pytest.mark.skipif(not RESOURCES.is_dir(), reason=f"no MentalBench at {RESOURCES}")


@pytest.fixture(scope="module")
def demo_runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("logs")
    for task, args, model in (
        ("selfdx/interview", {"patient_style": "plain,vague,guarded"}, INTERVIEWER),
        ("selfdx/interview", {"types": "3"}, INTERVIEWER),
        ("selfdx/interview", {"types": "1", "cases": "sampled", "n_sampled": 4}, INTERVIEWER),
        ("selfdx/mentalbench", {"types": "1"}, "selfdx/first-option"),
        ("selfdx/mentalbench", {"types": "2", "include_truncated": True}, "selfdx/first-option"),
        ("selfdx/mentalbench", {"disorders": "D002"}, "selfdx/first-option"),
    ):  # fmt: skip
        (log,) = eval(
            task, task_args=args, model=model, limit=2, display="none", log_dir=str(folder)
        )
        assert log.status == "success", log.error
    runs, _ = find_runs(folder)
    return folder, runs


def basis(runs, benchmark, **args):
    (run,) = [
        r
        for r in runs
        if r.benchmark == benchmark and all(r.task_args.get(k) == v for k, v in args.items())
    ]
    return cost.projection_basis(run)


def test_an_interview_is_projected_over_its_types_times_its_styles(demo_runs):
    _, runs = demo_runs
    count, what = basis(runs, "interview", patient_style="plain,vague,guarded")
    assert count == (575 + 1150) * 3 and "3 patient style(s)" in what and "1, 2" in what
    count, what = basis(runs, "interview", types="3")
    assert count == 2175 and "types 3" in what
    count, what = basis(runs, "interview", cases="sampled")
    assert count == 4 and "fresh" in what  # n_sampled per type, one type, one style


def test_mentalbench_is_projected_over_its_types_and_generators(demo_runs):
    _, runs = demo_runs
    count, what = basis(runs, "mentalbench", types="1")
    assert count == 1725 and "types 1" in what and "every generator" in what
    count, what = basis(runs, "mentalbench", types="2")  # the 3 truncated generations kept
    assert count == 1148 + 2 + 1150 + 1149 + 1
    (run,) = [r for r in runs if r.task_args.get("types") == "2"]
    gpt5 = replace(run, task_args={**run.task_args, "generators": "gpt5"})
    count, what = cost.projection_basis(gpt5)
    assert count == 1150 and "(gpt5)" in what
    count, what = basis(runs, "mentalbench", disorders="D002")
    assert count != count and "not projected" in what  # NaN, with the reason


def test_a_misspelled_model_in_the_price_table_is_a_warning(demo_runs, tmp_path, capsys):
    folder, _ = demo_runs
    prices = tmp_path / "prices.yaml"
    prices.write_text(
        "selfdx/first-optoin:\n  input: 1\n  output: 1\n  input_cache_write: 0\n"
        "  input_cache_read: 0\n",
        encoding="utf-8",
    )
    out = build_report(folder, tmp_path / "report", progress=False, prices=str(prices))
    error = capsys.readouterr().err
    assert "--prices names selfdx/first-optoin, which no run used" in error
    assert "selfdx/first-optoin, which no run used" in (out / "report.md").read_text()


@pytest.mark.slow
@needs_data
def test_the_bundled_counts_are_those_of_the_published_data():
    from selfdx.datasets.interview.loading import load_cases
    from selfdx.datasets.mentalbench.dataset import load_items

    items = load_items(RESOURCES)
    counted = Counter((i.variant, i.generator, i.truncated) for i in items)
    for variant, per_generator in cost.MENTALBENCH_ITEMS.items():
        for generator, (complete, cut) in zip(cost.GENERATORS, per_generator, strict=True):
            assert counted[(variant, generator, False)] == complete, (variant, generator)
            assert counted[(variant, generator, True)] == cut, (variant, generator)
    assert (
        sum(counted.values()) - sum(n for (_, _, t), n in counted.items() if t)
        == (cost.PUBLISHED["mentalbench"][0])
    )
    for variant, profiles in cost.INTERVIEW_PROFILES.items():
        _, cases = load_cases(str(RESOURCES), (variant,), "published", None, None, "gpt5")
        assert len(cases) == profiles, variant


@pytest.mark.parametrize("cache", [True, False])
def test_a_judge_row_of_a_cached_run_says_the_cache_hides_tokens(tmp_path, cache):
    """Judge calls served from Inspect's cache, or from selfdx's memory of an identical call,
    leave no tokens in the log: the projection of such a run says so, and only of the judge."""
    (log,) = eval(
        "selfdx/safe_psych",
        task_args={"judge_cache": cache},
        model="selfdx/keyword",
        model_roles={"grader": "selfdx/rules-judge"},
        limit=3,
        display="none",
        log_dir=str(tmp_path),
    )
    assert log.status == "success", log.error
    (run,) = find_runs(tmp_path)[0]
    usage = cost.usage_frame([run], {}).set_index("role")
    assert "grader" in usage.index
    assert (cost.CACHED in usage.loc["grader", "projected_over"]) is cache
    assert cost.CACHED not in usage.loc["model under test", "projected_over"]

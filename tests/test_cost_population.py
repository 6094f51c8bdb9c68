"""The cost projection states, and counts, the population of the run's own configuration: the
patient styles and types of an interview, the types and generators of MentalBench; a price
table naming a model no run used is a warning, not a silent blank."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pandas as pd
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
    # `--limit 2` reached two of the three styles and one of the two types: the label and the
    # projection say so, never a label naming what did not run (adversarial user, M1)
    assert what.endswith("estimated from a run in which only type 1 and styles plain+vague ran")
    (styled,) = [r for r in runs if r.task_args.get("patient_style") == "plain,vague,guarded"]
    assert styled.variant.endswith(" (only type 1 and styles plain+vague ran)")
    count, what = basis(runs, "interview", types="3")
    assert count == 2175 and "types 3" in what and "estimated" not in what
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


def test_judge_calls_served_from_a_cache_count_as_a_fresh_run_would_pay(tmp_path, monkeypatch):
    """The same cases judged with the cache off and on: the cached run paid for fewer judge
    tokens (calls served from selfdx's memory or Inspect's cache), and the report counts the
    served calls back, so its tokens and cost per case, and so its projection, equal the
    uncached run's; a run whose samples are not read still says the cache hides tokens."""
    # a cache of its own: calls that earlier tests in this process made must not serve this one
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "inspect-cache"))
    frames = {}
    prices = tmp_path / "prices.yaml"
    prices.write_text(
        "selfdx/rules-judge:\n  input: 2.0\n  output: 8.0\n  input_cache_write: 2.0\n"
        "  input_cache_read: 0.2\n"
    )
    for cache in (False, True):  # uncached first: the memory is per process
        folder = tmp_path / f"cache-{cache}"
        (log,) = eval(
            "selfdx/safe_psych",
            task_args={"judge_cache": cache, "strategy": "sequential_info_abstention_aware"},
            model="selfdx/keyword",
            model_roles={"grader": "selfdx/rules-judge"},
            limit=6,
            display="none",
            log_dir=str(folder),
        )
        assert log.status == "success", log.error
        out = build_report(folder, tmp_path / f"report-{cache}", progress=False, prices=str(prices))
        frames[cache] = pd.read_csv(out / "cost_by_run.csv").set_index("role").loc["grader"]
        if cache:
            (run,) = find_runs(folder)[0]
            header_only = cost.usage_frame([run], {}).set_index("role")
            assert cost.CACHED in header_only.loc["grader", "projected_over"]
    fresh, cached = frames[False], frames[True]
    assert fresh["served_calls"] == 0 and cached["served_calls"] > 0
    assert cached["input_tokens"] < fresh["input_tokens"]
    assert cached["input_tokens"] + cached["served_input_tokens"] == fresh["input_tokens"]
    assert cached["output_tokens"] + cached["served_output_tokens"] == fresh["output_tokens"]
    for column in ("input_per_case", "output_per_case", "cost_per_case"):
        assert cached[column] == pytest.approx(fresh[column]), column
    assert cached["cost"] < fresh["cost"] == pytest.approx(cached["fresh_cost"])
    assert cost.SERVED_NOTE in cached["projected_over"]
    assert cost.CACHED not in cached["projected_over"]


def test_a_log_from_before_the_tally_says_its_memory_served_calls_are_not_counted():
    """A Safe-Psych sample whose turns record judge answers reused from memory, but whose store
    has no tally (a log written before selfdx counted them), is named in `projected_over`; and
    one configuration projects in one row whatever its runs' notes."""
    from types import SimpleNamespace

    found: cost.Served = {}
    old = SimpleNamespace(events=[], store={"SafePsychTrace:turns": [{"judge_reused": True}] * 3})
    cost.served_usage(old, found)
    assert found[cost.UNCOUNTED][2] == 3
    usage = pd.DataFrame(
        [
            {"benchmark": "safe_psych", "variant": "v", "dataset": "demo", "role": "grader",
             "model": "m", "published_cases": 10.0, "projected_over": over, "samples": 2,
             "input_tokens": 10, "output_tokens": 2, "served_input_tokens": served,
             "served_output_tokens": 0, "price": "none", "fresh_cost": float("nan")}
            for over, served in (("basis", 0), (f"basis; {cost.SERVED_NOTE}", 10))
        ]
    )  # fmt: skip
    (row,) = cost.projection_frame(usage).to_dict("records")
    assert row["projected_over"] == f"basis; {cost.SERVED_NOTE}" and row["runs"] == 2
    assert row["input_per_case"] == (10 + 10 + 10) / 4


def test_runs_of_other_generators_say_so_in_their_row(tmp_path):
    """Two MentalBench rows that differed only by `generators=` carried one label, told apart
    by a hash alone (adversarial user, M4)."""
    for args in ({}, {"generators": "synthetic"}):
        eval("selfdx/mentalbench", task_args=args, model="selfdx/first-option", limit=1,
             display="none", log_dir=str(tmp_path))  # fmt: skip
    runs, _ = find_runs(tmp_path)
    assert sorted(run.variant for run in runs) == [
        "all types (only type 1 ran)",
        "all types, generators synthetic (only type 1 ran)",
    ]

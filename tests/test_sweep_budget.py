"""`selfdx sweep --budget`: no sample starts once the whole sweep has spent its budget, the log
says why, and a rerun with a larger budget finishes the sweep without redoing a sample."""

from __future__ import annotations

import asyncio
import json

import pytest
import yaml
from inspect_ai.log import list_eval_logs, read_eval_log

from selfdx.cli import main
from selfdx.sweep import run_sweep
from selfdx.sweep_budget import FOLDER, parse_budget

MODEL = "selfdx/keyword"
JUDGE = "selfdx/rules-judge"
STRATEGY = "structured_actions"  # no judge: the model under test is the only one called
CASES = 6


def sweep(log_dir, budget, **more) -> bool:
    """One strategy, one model, one sample at a time (so the stopping point is exact)."""
    return run_sweep(
        [MODEL],
        str(log_dir),
        variants=[STRATEGY],
        grader=JUDGE,
        limit=CASES,
        max_samples=1,
        budget=budget,
        display="none",
        **more,
    )


def only_log(log_dir):
    (info,) = list_eval_logs(str(log_dir))
    return read_eval_log(info.name)


def spend_files(log_dir) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((log_dir / FOLDER).glob("*.spend.json"))]


@pytest.fixture(scope="module")
def unbudgeted(tmp_path_factory):
    """The same sweep without a budget: what each sample spends, in dataset order."""
    log_dir = tmp_path_factory.mktemp("whole")
    assert sweep(log_dir, None)
    log = only_log(log_dir)
    assert not (log_dir / FOLDER).exists()
    return log


def test_dollars_stop_the_sweep_and_a_larger_budget_finishes_it(unbudgeted, tmp_path):
    prices = {MODEL: {"input": 3.0, "output": 15.0, "input_cache_write": 0, "input_cache_read": 0}}
    table = tmp_path / "prices.yaml"
    table.write_text(yaml.safe_dump(prices))
    # each sample's dollars by hand: tokens times the price per million, summed over models
    costs = [
        sum(
            (u.input_tokens * prices[m]["input"] + u.output_tokens * prices[m]["output"]) / 1e6
            for m, u in sample.model_usage.items()
        )
        for sample in unbudgeted.samples
    ]
    assert all(cost > 0 for cost in costs)
    # a budget the first three samples reach: the fourth does not start
    budget = sum(costs[:3]) - costs[2] / 2
    log_dir = tmp_path / "logs"
    assert not sweep(log_dir, parse_budget(f"{budget}", str(table), [MODEL, JUDGE]))
    stopped = only_log(log_dir)
    assert stopped.status == "error"
    assert [s.id for s in stopped.samples] == [s.id for s in unbudgeted.samples[:3]]
    assert f"the budget of ${budget:,.2f} was spent" in stopped.error.message
    assert "3 samples of this task did not start, 3 finished" in stopped.error.message
    (record,) = spend_files(log_dir)
    assert record["unit"] == "usd" and record["samples"] == 3
    assert record["spent"] == pytest.approx(sum(costs[:3]))
    first = {s.id: s.uuid for s in stopped.samples}

    # the rerun with twice the whole cost finishes: the three finished samples are kept as they
    # were (the same uuids), only the other three run, and the sweep's spend is the whole's
    assert sweep(log_dir, parse_budget(f"${2 * sum(costs)}", str(table), [MODEL, JUDGE]))
    done = only_log(log_dir)
    assert done.status == "success" and len(done.samples) == CASES
    assert {s.id: s.uuid for s in done.samples if s.id in first} == first
    records = spend_files(log_dir)
    assert sorted(r["samples"] for r in records) == [3, 3]
    assert sum(r["spent"] for r in records) == pytest.approx(sum(costs))
    assert done.results.scores[0].metrics.keys() == unbudgeted.results.scores[0].metrics.keys()
    for name, metric in done.results.scores[0].metrics.items():
        expected = unbudgeted.results.scores[0].metrics[name].value
        assert metric.value == pytest.approx(expected, nan_ok=True), name


def test_what_other_shards_spent_counts(unbudgeted, tmp_path, capsys):
    """Another machine's spend, in the sweep's budget/ folder on the same store, is counted:
    when it has used the whole budget, this process starts no sample."""
    tokens = unbudgeted.samples[0].model_usage[MODEL].total_tokens
    log_dir = tmp_path / "logs"
    (log_dir / FOLDER).mkdir(parents=True)
    other = {"unit": "tokens", "spent": 5 * tokens, "samples": 5}
    (log_dir / FOLDER / "node7-12-ab.spend.json").write_text(json.dumps(other))
    assert not sweep(log_dir, parse_budget(f"{5 * tokens}tokens", None, []))
    log = only_log(log_dir)
    assert log.status == "error" and not log.samples
    assert f"{CASES} samples of this task did not start, 0 finished" in log.error.message
    assert "the sweep stopped before its end" in capsys.readouterr().err
    # below the budget by one sample's tokens: exactly one more sample runs
    assert not sweep(log_dir, parse_budget(f"{6 * tokens - 1}tokens", None, []))
    assert len(only_log(log_dir).samples) == 1


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--budget", "lots"], "--budget: expected dollars (25 or $25.50) or tokens"),
        (["--budget", "0"], "--budget: expected dollars (25 or $25.50) or tokens"),
        (["--budget", "25"], "--budget in dollars needs --prices FILE"),
        (["--prices", "PRICES"], "--prices: a sweep reads prices only for --budget in dollars"),
        (
            ["--budget", "25", "--prices", "PRICES", "--models", "openai/gpt-4o"],
            "no price for openai/gpt-4o, which the sweep uses",
        ),
    ],
)
def test_a_budget_it_cannot_keep_is_refused_in_one_line(argv, message, tmp_path, capsys):
    table = tmp_path / "prices.yaml"
    price = {"input": 1.0, "output": 2.0, "input_cache_write": 0, "input_cache_read": 0}
    table.write_text(yaml.safe_dump({MODEL: price}))
    argv = [str(table) if a == "PRICES" else a for a in argv]
    if "--models" not in argv:
        argv += ["--models", MODEL]
    code = main(["sweep", "--grader", JUDGE, "--log-dir", str(tmp_path / "x"), *argv])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and message in err, err
    assert not (tmp_path / "x").exists()


def test_samples_in_flight_count_at_the_mean_of_the_finished(tmp_path):
    """A budget of 100 tokens, one sample finished at 30: three more start (the third asks at an
    expected 30 + 2 x 30 = 90), the fourth asks at 30 + 3 x 30 = 120 and does not."""
    from inspect_ai.model import ModelUsage

    from selfdx.sweep_budget import Ledger, SweepBudget

    ledger = Ledger(parse_budget("100tokens", None, []).at(str(tmp_path)))
    manager = SweepBudget(ledger)

    async def starts() -> list[bool]:
        await manager.start_task(type("Spec", (), {"eval_id": "e1"})(), [], 1)
        first = await manager.schedule_sample(1, 1) is None
        ledger.add({MODEL: ModelUsage(input_tokens=20, output_tokens=10, total_tokens=30)})
        return [first] + [await manager.schedule_sample(i, 1) is None for i in (2, 3, 4, 5)]

    assert asyncio.run(starts()) == [True, True, True, True, False]
    assert ledger.stopped == {"e1": 1} and ledger.in_flight == 3


@pytest.mark.slow
def test_a_budget_holds_across_processes(unbudgeted, tmp_path):
    """Two models in two worker processes share one token budget: each writes what it spent,
    both stop once together they have spent it, and what they spent passes the budget by at
    most the samples that were running when it was reached (one a process)."""
    tokens = [s.model_usage[MODEL].total_tokens for s in unbudgeted.samples]
    budget = sum(tokens[:4])  # about four samples' worth, for twelve samples in all
    log_dir = tmp_path / "logs"
    assert not run_sweep(
        [MODEL, "selfdx/eager"],
        str(log_dir),
        variants=[STRATEGY],
        grader=JUDGE,
        limit=CASES,
        max_samples=1,
        processes=2,
        budget=parse_budget(f"{budget}tokens", None, []),
        display="none",
    )
    logs = [read_eval_log(info.name) for info in list_eval_logs(str(log_dir), recursive=True)]
    # which process reaches the budget first is a race: one may finish its task before that
    stopped = [log for log in logs if log.status == "error"]
    assert len(logs) == 2 and stopped
    assert all("budget of" in log.error.message for log in stopped)
    finished = sum(len(log.samples) for log in logs)
    assert 0 < finished < 2 * CASES
    records = spend_files(log_dir)
    assert len(records) == 2  # one file a process, in the sweep's own budget/ folder
    assert sum(r["samples"] for r in records) == finished
    spent = sum(r["spent"] for r in records)
    assert budget <= spent <= budget + 2 * max(tokens) * 2  # two in flight, either model

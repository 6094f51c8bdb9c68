"""`selfdx sweep --shard i/n`: n processes given one command and one store run every task of
the sweep exactly once, a rerun of a shard resumes it, and the report over the store equals an
unsharded run's."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from inspect_ai.log import list_eval_logs, read_eval_log

from selfdx.analysis.report import build_report
from selfdx.errors import ArgumentError
from selfdx.sweep import parse_shard, shard_share

MODELS = "selfdx/keyword,selfdx/cautious"
STRATEGIES = "full_info_no_abstention,sequential_info_abstention_aware,structured_actions"
SWEEP = [
    sys.executable, "-m", "selfdx.cli", "sweep", "--models", MODELS, "--strategies", STRATEGIES,
    "--grader", "selfdx/rules-judge", "--limit", "3", "--display", "none",
]  # fmt: skip


def tasks_run(folder: Path) -> list[tuple[str, str]]:
    """(model, strategy) of every log under `folder`."""
    found = []
    for info in list_eval_logs(str(folder), recursive=True):
        header = read_eval_log(info.name, header_only=True)
        assert header.status == "success", info.name
        found.append((header.eval.model, header.eval.task_args["strategy"]))
    return sorted(found)


def test_the_shares_are_disjoint_and_cover_the_sweep():
    models, variants = ["a", "b"], [1, 2, 3, 4, 5]
    shares = [shard_share(models, variants, (i, 3)) for i in (1, 2, 3)]
    flat = [pair for share in shares for pair in share]
    assert sorted(flat) == sorted((m, v) for m in models for v in variants)  # once each
    assert [len(share) for share in shares] == [4, 3, 3]
    assert shard_share(models, variants, (2, 3)) == shares[1]  # the same on every machine
    assert parse_shard("2/3") == (2, 3)
    for bad in ("0/3", "4/3", "3", "a/b", "1/0"):
        with pytest.raises(ArgumentError, match="shard: expected i/n"):
            parse_shard(bad)


@pytest.mark.slow
def test_three_shards_run_the_sweep_once_and_report_as_one(tmp_path):
    store = tmp_path / "store"
    shards = [
        subprocess.Popen([*SWEEP, "--log-dir", str(store), "--shard", f"{i}/3"]) for i in (1, 2, 3)
    ]
    assert [shard.wait(timeout=600) for shard in shards] == [0, 0, 0]
    expected = sorted((m, s) for m in MODELS.split(",") for s in STRATEGIES.split(","))
    assert tasks_run(store) == expected  # every task once, none twice
    assert sorted(p.name for p in store.iterdir()) == [f"shard-{i}-of-3" for i in (1, 2, 3)]

    # a rerun of a shard finds its tasks done and runs nothing again
    again = subprocess.run([*SWEEP, "--log-dir", str(store), "--shard", "2/3"], timeout=600)
    assert again.returncode == 0 and tasks_run(store) == expected

    whole = tmp_path / "whole"
    done = subprocess.run([*SWEEP, "--log-dir", str(whole)], timeout=600)
    assert done.returncode == 0 and tasks_run(whole) == expected
    tables = []
    for folder in (store, whole):
        out = build_report(folder, tmp_path / f"report-{folder.name}", progress=False)
        table = pd.read_csv(out / "safe_psych_metrics.csv")
        assert table["logs"].str.endswith(".eval").all()  # each row names the logs it pools
        # which files a row pools (their names and viewer addresses) differs between the two
        # stores by construction; every figure must not
        table = table.drop(columns=["logs", "log_viewer"])
        tables.append(table.sort_values(["model", "variant", "metric"]).reset_index(drop=True))
    pd.testing.assert_frame_equal(tables[0], tables[1])

"""A count that is not a whole number of at least 1 is refused in one line naming the option,
before any task runs: Inspect reads `--limit -3` as every case but the last 3 and `--limit 0` as
none, so the sweep would otherwise run another experiment than the one asked for."""

from __future__ import annotations

import pytest

from selfdx.cli import main
from selfdx.errors import ArgumentError
from selfdx.local_model.command import main as local_model_main
from selfdx.sweep import run_sweep

AT_LEAST_ONE = "expected a whole number of at least 1"


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--limit", "-3", f"limit: {AT_LEAST_ONE} (the first cases of each task), got -3"),
        ("--limit", "0", f"limit: {AT_LEAST_ONE} (the first cases of each task), got 0"),
        ("--processes", "0", f"processes: {AT_LEAST_ONE}, got 0"),
        ("--processes", "-2", f"processes: {AT_LEAST_ONE}, got -2"),
        ("--grader-connections", "0", f"grader_connections: {AT_LEAST_ONE}, got 0"),
        ("--max-connections", "-1", f"max_connections: {AT_LEAST_ONE}, got -1"),
        ("--max-connections", "0", f"max_connections: {AT_LEAST_ONE}, got 0"),
        ("--budget", "nan", "--budget: expected dollars (25 or $25.50) or tokens"),
        ("--budget=", "-5tokens", "--budget: expected dollars (25 or $25.50) or tokens"),
        ("--shard", "0/2", "shard: expected i/n with 1 <= i <= n"),
    ],
)
@pytest.mark.parametrize("split", ["tasks", "samples"])
def test_selfdx_sweep_refuses_a_count_below_one(option, value, message, split, tmp_path, capsys):
    if split == "samples" and option in ("--processes", "--shard"):
        pytest.skip("--split samples takes no --processes and its own --shard check")
    given = [option + value] if option.endswith("=") else [option, value]
    shard = ["--shard", "1/2", "--split", "samples"] if split == "samples" else []
    argv = ["sweep", "--models", "selfdx/keyword", "--grader", "selfdx/rules-judge"]
    code = main([*argv, "--log-dir", str(tmp_path / "logs"), *shard, *given])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith(f"selfdx: error: {message}"), err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "logs").exists()


@pytest.mark.parametrize(
    ("limit", "message"),
    [
        ((2, 2), "limit: a (start, stop) range needs start < stop, got (2, 2)"),
        ((-1, 3), "limit: expected (start, stop) >= 0, got (-1, 3)"),
        (True, f"limit: {AT_LEAST_ONE} (the first cases of each task), got True"),
        (2.5, f"limit: {AT_LEAST_ONE} (the first cases of each task), got 2.5"),
    ],
)
def test_run_sweep_refuses_a_limit_inspect_would_misread(limit, message, tmp_path):
    with pytest.raises(ArgumentError) as raised:
        run_sweep(["selfdx/keyword"], str(tmp_path / "logs"), benchmark="mentalbench", limit=limit)
    assert str(raised.value) == message
    assert not (tmp_path / "logs").exists()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["eval", "--limit", "-3"], f"--limit: {AT_LEAST_ONE}, got -3"),
        (["eval", "--limit", "0"], f"--limit: {AT_LEAST_ONE}, got 0"),
        (["eval", "--max-tokens", "0"], f"--max-tokens: {AT_LEAST_ONE}, got 0"),
        (["serve", "--threads", "-1"], f"--threads: {AT_LEAST_ONE}, got -1"),
        (["eval", "--time-limit", "nan"], "--time-limit: expected a number of seconds above 0"),
        (["eval", "--ready-timeout", "-5"], "--ready-timeout: expected a number of seconds above"),
    ],
)
def test_the_local_model_command_refuses_a_count_below_one(argv, message, capsys):
    """Before the server starts (so no model file is needed)."""
    assert local_model_main(argv, server=None) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {message}") and err.count("\n") == 1, err

"""A price table (`--prices`, Inspect's `--model-cost-config` format) that is not a clean table of
finite, non-negative numbers is refused in one line naming the file, the model and the field, by
every command that reads one (`selfdx report`, `selfdx sweep --budget`): nothing is read as NaN,
infinity, 1 for `true`, a number from a quoted string, or the last of a model listed twice."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from selfdx.cli import main

FIELDS = '"output": 1, "input_cache_write": 0, "input_cache_read": 0'
YAML_FIELDS = "  output: 1\n  input_cache_write: 0\n  input_cache_read: 0\n"
MODEL = "openai/gpt-4o"


def _json(input_price: str) -> str:
    return f'{{"{MODEL}": {{"input": {input_price}, {FIELDS}}}}}'


def _yaml(input_price: str) -> str:
    return f"{MODEL}:\n  input: {input_price}\n{YAML_FIELDS}"


NOT_A_NUMBER = "expected a number of dollars per million tokens, got"
UNQUOTE = "(write the number without quotes)"
BAD_TABLES = [
    ("nan.json", _json("NaN"), "input: NaN is not a price"),
    ("infinity.json", _json("Infinity"), "input: inf is not a finite price"),
    ("overflow.json", _json("1e999"), "input: inf is not a finite price"),
    ("minus-infinity.json", _json("-Infinity"), "input: -inf is not a finite price"),
    ("bool.json", _json("true"), f"input: {NOT_A_NUMBER} true"),
    ("negative.json", _json("-0.5"), "input: a price cannot be negative, got -0.5"),
    ("string.json", _json('"2.5"'), f'input: {NOT_A_NUMBER} "2.5" {UNQUOTE}'),
    ("null.json", _json("null"), f"input: {NOT_A_NUMBER} null"),
    ("huge.json", _json("1" + "0" * 400), "input: a number too large to be a price"),
    ("field-twice.json", _json('1, "input": 2'), "input is given more than once"),
    ("unknown.json", _json('1, "reasoning": 3'), "reasoning: not a price Inspect counts"),
    ("nan.yaml", _yaml(".nan"), "input: NaN is not a price"),
    ("infinity.yaml", _yaml(".inf"), "input: inf is not a finite price"),
    ("bool.yaml", _yaml("yes"), f"input: {NOT_A_NUMBER} true"),
    ("string.yaml", _yaml("'3'"), f'input: {NOT_A_NUMBER} "3" {UNQUOTE}'),
    ("field-twice.yaml", _yaml("1\n  input: 2"), "input is given more than once"),
]
# the model's name comes first in every message above
BAD_TABLES = [(name, content, f"{MODEL}: {message}") for name, content, message in BAD_TABLES]
BAD_TABLES += [
    ("twice.json", f"{{{_json('1')[1:-1]}, {_json('2')[1:-1]}}}", f"{MODEL} is listed more"),
    ("twice.yaml", _yaml("1") + _yaml("2"), f"{MODEL} is listed more than once"),
]


def _one_line(code: int, err: str, table: Path, message: str) -> None:
    assert code == 2, err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith(f"selfdx: error: --prices {table}: "), err
    assert message in err, err


@pytest.mark.parametrize(("name", "content", "message"), BAD_TABLES, ids=[t[0] for t in BAD_TABLES])
def test_selfdx_report_refuses_a_bad_price_table(name, content, message, tmp_path, capsys):
    table = tmp_path / name
    table.write_text(content, encoding="utf-8")
    code = main(["report", str(tmp_path), "--out", str(tmp_path / "r"), "--prices", str(table)])
    _one_line(code, capsys.readouterr().err, table, message)
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize(("name", "content", "message"), BAD_TABLES, ids=[t[0] for t in BAD_TABLES])
def test_selfdx_sweep_refuses_a_bad_price_table(name, content, message, tmp_path, capsys):
    table = tmp_path / name
    table.write_text(content, encoding="utf-8")
    argv = ["sweep", "--models", MODEL, "--grader", "selfdx/rules-judge"]
    argv += ["--log-dir", str(tmp_path / "logs"), "--budget", "25", "--prices", str(table)]
    code = main(argv)
    _one_line(code, capsys.readouterr().err, table, message)
    assert not (tmp_path / "logs").exists()


def test_a_clean_table_is_read_with_yaml_exponents_as_numbers(tmp_path):
    """`1e-6` and `2.5e6` are numbers in a YAML table (YAML 1.1 alone reads them as text), and a
    merge key may override what it merges."""
    from selfdx.analysis.cost import load_prices

    table = tmp_path / "prices.yaml"
    table.write_text(
        "base: &base\n  input: 1e-6\n  output: 2.5e6\n  input_cache_write: 1_000\n"
        f"  input_cache_read: 0\n{MODEL}:\n  <<: *base\n  output: 3\n",
        encoding="utf-8",
    )
    prices = load_prices(table)
    assert prices["base"].input == 1e-6 and prices["base"].output == 2.5e6
    assert prices[MODEL].output == 3 and prices[MODEL].input_cache_write == 1000


def test_the_selfdx_command_prints_one_line_and_exits_2(tmp_path):
    """Through the installed entry point's module, in a process of its own."""
    table = tmp_path / "prices.json"
    table.write_text(_json("NaN"), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "selfdx.cli", "report", str(tmp_path), "--prices", str(table)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr == f"selfdx: error: --prices {table}: {MODEL}: input: NaN is not a price\n"

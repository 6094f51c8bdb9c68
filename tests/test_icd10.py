import csv

import pytest

from selfdx.datasets.icd10 import (
    category,
    extract_codes,
    gold_code_problem,
    group,
    match_category,
    match_full_code,
    match_group,
    normalize_code,
)
from selfdx.datasets.safe_psych import DEMO_CSV


def test_normalize_code_strips_spaces_and_upper_cases():
    assert normalize_code(" f 32.1 ") == "F32.1"
    assert normalize_code(None) == ""


def test_extract_codes_in_order_without_repeats():
    text = "Most likely F32.1 (moderate episode); F33 possible; f32.1 again; vitamin dose 12."
    assert extract_codes(text) == ["F32.1", "F33"]
    assert extract_codes("") == []


@pytest.mark.parametrize(
    ("gold", "predicted", "full", "cat", "grp"),
    [
        ("F31.1", "F31.11", True, True, True),  # first character after the dot decides
        ("F31.1", "F31.2", False, True, True),
        ("F31.1", "F31", False, True, True),  # no decimal in the prediction
        ("F29", "F29", True, True, True),  # gold without decimal: category level
        ("F29", "F29.1", True, True, True),
        ("F32.1", "F33.1", False, False, True),  # same block F30-F39
        ("F41.1", "F43.1", False, False, True),  # F40-F48
        ("F41.1", "F51.0", False, False, False),
        ("F32.1", None, False, False, False),
        ("F32.1", "depression", False, False, False),
        ("G30.1", "G30.9", False, True, True),  # a non-F code is its own group
    ],
)
def test_three_comparison_levels(gold, predicted, full, cat, grp):
    assert match_full_code(gold, predicted) is full
    assert match_category(gold, predicted) is cat
    assert match_group(gold, predicted) is grp


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("F00.1", "F00-F09"),
        ("F09", "F00-F09"),
        ("F10.2", "F10-F19"),
        ("F20.0", "F20-F29"),
        ("F39", "F30-F39"),
        ("F40.0", "F40-F48"),
        ("F48.9", "F40-F48"),
        ("F49", None),  # outside ICD-10's F40-F48 block
        ("F50.0", "F50-F59"),
        ("F69", "F60-F69"),
        ("F70.1", "F70-F79"),
        ("F84.0", "F80-F89"),
        ("F98.5", "F90-F98"),
        ("F99", "F99"),
        ("G30", "G30"),
        ("nonsense", None),
    ],
)
def test_groups_follow_icd10_blocks(code, expected):
    assert group(code) == expected


def test_category():
    assert category("f32.10") == "F32"
    assert category("32.1") is None


@pytest.mark.parametrize(
    ("code", "problem"),
    [
        ("F322", "has no dot after the category (write F32.2, not F322)"),
        ("F32garbage", "has text after the code"),
        ("F32.1 depression", "has text after the code"),
        ("F32, F33", "holds more than one code; a gold label is one code"),
        ("F32;F33", "holds more than one code; a gold label is one code"),
        ("F32.1 F33", "holds more than one code; a gold label is one code"),  # not "F32.1F33"
        ("F32-F33", "is a range of codes; a gold label is one code"),
        ("F32.0-F32.9", "is a range of codes; a gold label is one code"),
        ("F32.1.2", "has more than one dot"),
        ("F99.", "ends with a dot and no digits after it"),
        ("F32.12345", "has more than 4 characters after the dot"),
        ("F3", "is not an ICD-10 code"),
        ("32.1", "is not an ICD-10 code"),
        ("major depression", "is not an ICD-10 code"),
    ],
)
def test_malformed_gold_codes_are_named(code, problem):
    assert gold_code_problem(code) == problem


@pytest.mark.parametrize(
    "code", ["", "F29", "F32.1", " f 32.1 ", "F10.20", "F02.80", "F32.A", "G30.9", "F43.1"]
)
def test_well_formed_gold_codes_pass(code):
    assert gold_code_problem(code) is None


def test_every_demo_gold_code_is_well_formed():
    """The bundled demo set uses the published formats; the strict grammar must accept all."""
    rows = csv.DictReader(DEMO_CSV.open(encoding="utf-8"))
    codes = {row["diagnosis"] for row in rows}
    assert len(codes) > 10
    assert [code for code in codes if gold_code_problem(code) is not None] == []

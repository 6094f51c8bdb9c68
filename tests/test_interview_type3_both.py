"""Issue 33, "Type 3 that a patient can support": a sampled Type 3 patient (`cases=sampled` and
the demo) holds facts that meet both keyed disorders' criteria by the interview's own rule
check (`criteria_check`). The profiles sampled before did not: Types 3/4a/4b of one id shared
one partial seed of the main disorder, with the criteria removed, so none met both (0 of the
demo's 4, 0 of 87 over the published graph's pairs)."""

from __future__ import annotations

import pytest
from conftest import SHARED

from selfdx.datasets.interview.criteria import criteria_check
from selfdx.datasets.interview.demo_graph import demo_kg
from selfdx.datasets.interview.loading import load_cases, profile_case
from selfdx.datasets.mentalkg.profiles import (
    co_occurrence_conflicts,
    pair_profiles,
    sample_profiles,
)

RESOURCES = SHARED / "mentalbench" / "resources"
needs_data = pytest.mark.skipif(not RESOURCES.is_dir(), reason=f"no MentalBench at {RESOURCES}")
EVERY_PAIR = 87  # the published graph's directed pairs


def shortfalls(kg, case):
    """What keeps each keyed disorder from being met (all empty: both are met)."""
    return {code: criteria_check(kg, code, case.facts)[1] for code in case.answers}


def meets_both(kg, case):
    return not any(shortfalls(kg, case).values())


def old_cases(kg, n, seed=0):
    """The sampled Type 3 cases as they were built before: one partial seed of the main."""
    profiles = sample_profiles(kg, ["3"], n, seed, variants_per_seed=1)
    return [profile_case(kg, p, "sampled", seed) for p in profiles]


def published_graph_cases(n=EVERY_PAIR, seed=0):
    return load_cases(str(RESOURCES), ["3"], "sampled", n_sampled=n, seed=seed)


def test_every_demo_type3_patient_meets_both_keyed_disorders():
    kg, cases = load_cases("demo", ["3"])
    assert len(cases) == 4
    for case in cases:
        assert len(case.answers) == 2 and meets_both(kg, case), (case.id, shortfalls(kg, case))
        assert case.criteria_met  # the gold's own check agrees
    assert not any(meets_both(kg, case) for case in old_cases(kg, 4))


@needs_data
def test_every_sampled_type3_patient_meets_both_keyed_disorders():
    kg, cases = published_graph_cases()
    assert len(cases) == EVERY_PAIR
    failing = {case.key: shortfalls(kg, case) for case in cases if not meets_both(kg, case)}
    assert failing == {}
    pairs = [d.id for d in kg.differentials.values()]
    both = {p for p in pairs if not co_occurrence_conflicts(kg, *p.split("-"))}
    assert len(pairs) == EVERY_PAIR and len(both) == 52
    assert {case.key.split("_")[0] for case in cases} == both  # every pair that can co-occur
    old = old_cases(kg, EVERY_PAIR)
    assert len(old) == EVERY_PAIR and sum(meets_both(kg, case) for case in old) == 0


@needs_data
def test_the_pairs_left_out_of_type3_cannot_both_be_met():
    """The 35 pairs set aside are ones the rule check cannot meet together (a DSM-5 exclusion,
    durations that do not meet, impairment or stressor asked both ways): built anyway, the
    comorbid profile still falls short of one of the two."""
    kg, _ = published_graph_cases(n=1)
    left_out = [
        d.id for d in kg.differentials.values() if co_occurrence_conflicts(kg, *d.id.split("-"))
    ]
    assert len(left_out) == EVERY_PAIR - 52
    for pair in left_out:
        (profile,) = pair_profiles(kg, ["3"], pair, 1, 1, 0, comorbid=True)
        assert not meets_both(kg, profile_case(kg, profile, "sampled", 0)), pair


@needs_data
def test_a_comorbid_profile_is_reproducible_and_independent_of_n():
    kg, few = published_graph_cases(n=5, seed=3)
    _, every = published_graph_cases(seed=3)
    by_key = {case.key: case for case in every}
    for case in few:
        assert case.facts == by_key[case.key].facts
    _, again = published_graph_cases(n=5, seed=3)
    assert [c.facts for c in again] == [c.facts for c in few]


def test_mentalbench_layout_and_types_4a_4b_are_unchanged():
    """Without `comorbid` (MentalBench generation) Types 3/4a/4b of one id are one profile;
    with it, only Type 3 changes, keeping the id's options and persona."""
    kg = demo_kg()
    plain = pair_profiles(kg, ["3", "4a", "4b"], "D013-D014", 2, 6, 0)
    mixed = pair_profiles(kg, ["3", "4a", "4b"], "D013-D014", 2, 6, 0, comorbid=True)
    assert plain[0].criteria is None and plain[0].groups == plain[1].groups
    assert mixed[1:] == plain[1:]
    three = mixed[0]
    assert three.criteria is not None and three.removed_criteria is None
    assert (three.options, three.persona, three.target) == (
        plain[0].options,
        plain[0].persona,
        plain[0].target,
    )
    assert set(plain[0].symptom_codes) != set(three.symptom_codes)

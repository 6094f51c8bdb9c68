"""`structured_actions` when the subject answers CLARIFY on every section, the last included.

The protocol (docs/safe_psych.md; shared/specs/safe_psych_protocol.md, section 4.2): the next
section is revealed only while the action is Clarify, and on the last section Clarify counts as
Abstain, so a normal trajectory always ends in Diagnose or Abstain. Here every case must run
through all its sections and end in Abstain: never excluded, never diagnosed.
"""

from __future__ import annotations

import math

import pytest
from inspect_ai import eval

from tests.conftest import metric_value, scripted_model


@pytest.mark.slow
def test_clarify_on_the_last_section_is_an_abstention(log_dir):
    (log,) = eval(
        "selfdx/safe_psych",
        task_args={"strategy": "structured_actions"},
        model=scripted_model(lambda *_: "CLARIFY\nWhat else can you tell me?"),
        display="none",
        log_dir=log_dir,
    )
    assert log.status == "success", log.error
    sufficient = 0
    for sample in log.samples:
        stages = len(sample.metadata["sections"])
        turns = sample.store["SafePsychTrace:turns"]
        assert len(turns) == stages  # every section was shown
        actions = [turn["action"] for turn in turns]
        assert actions == ["Clarify"] * (stages - 1) + ["Abstain"], sample.id
        assert turns[-1]["is_last"] and not any(turn["is_last"] for turn in turns[:-1])
        assert sample.store["SafePsychTrace:stop_reason"] == "Abstain"
        value = sample.scores["safe_psych_scorer"].value
        assert value["excluded"] == 0.0
        sufficient += bool(sample.metadata["sufficient"])
        if sample.metadata["sufficient"]:
            assert (value["over_abstention"], value["never"]) == (1.0, 1.0)
        else:
            assert value["under_abstention"] == 0.0
    assert 0 < sufficient < len(log.samples)
    # every case scored: no exclusions, nothing diagnosed, every sufficient case never
    assert metric_value(log, "excluded") == 0.0
    assert metric_value(log, "under_abstention") == 0.0
    assert metric_value(log, "over_abstention") == 1.0
    assert metric_value(log, "never") == 1.0
    assert metric_value(log, "premature") == 0.0 and metric_value(log, "late") == 0.0
    assert metric_value(log, "stage1_clarification") == 1.0
    assert math.isnan(metric_value(log, "accuracy_code"))  # no diagnosis to grade

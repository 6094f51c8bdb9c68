"""`read_samples`: the batched sample reader behind `selfdx report` and the exports."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog, read_eval_log, read_eval_log_samples, write_eval_log

from selfdx.analysis.logs import header_metrics, read_samples


@pytest.fixture(scope="module")
def two_epoch_log(tmp_path_factory: pytest.TempPathFactory) -> EvalLog:
    """A finished MentalBench run on the demo items, two epochs per item."""
    (log,) = eval(
        "selfdx/mentalbench",
        model="selfdx/first-option",
        epochs=2,
        limit=7,
        display="none",
        log_dir=str(tmp_path_factory.mktemp("logs")),
    )
    assert log.status == "success"
    return log


def keys(samples) -> list[tuple[int | str, int]]:
    return [(sample.id, sample.epoch) for sample in samples]


@pytest.mark.parametrize("batch", [1, 3, 1000])
def test_same_samples_in_the_same_order_as_inspect(two_epoch_log: EvalLog, batch: int) -> None:
    path = two_epoch_log.location
    expected = list(read_eval_log_samples(path, all_samples_required=False))
    got = list(read_samples(path, batch=batch))
    assert keys(got) == keys(expected)
    assert len(got) == 14
    assert [s.scores for s in got] == [s.scores for s in expected]
    assert [s.metadata for s in got] == [s.metadata for s in expected]


def test_exclude_fields_are_left_out(two_epoch_log: EvalLog) -> None:
    (sample, *_) = read_samples(two_epoch_log.location, exclude_fields={"messages", "events"})
    assert sample.messages == [] and sample.events == []
    assert sample.scores


@pytest.mark.parametrize("status", ["cancelled", "success"])
def test_missing_samples_are_skipped(two_epoch_log: EvalLog, tmp_path: Path, status: str) -> None:
    """An unfinished log (or one that claims success but lacks samples) yields what it has."""
    log = read_eval_log(two_epoch_log.location)
    assert log.samples is not None
    kept = [s for index, s in enumerate(log.samples) if index % 3 != 1]
    log.samples = kept
    log.status = status
    path = str(tmp_path / "partial.eval")
    write_eval_log(log, path)
    expected = list(read_eval_log_samples(path, all_samples_required=False))
    got = list(read_samples(path, batch=4))
    assert keys(got) == keys(expected)
    assert sorted(keys(got), key=str) == sorted(keys(kept), key=str)


def test_header_metrics_keep_a_dict_scores_key_names_and_name_inspects_own_after_the_entry(
    two_epoch_log: EvalLog,
) -> None:
    """An interview or MentalBench entry holds `accuracy` among its keys: it stays `accuracy`
    (it once became the scorer's name); Inspect's per-key layout (`mean`, `stderr`) and a
    scorer with `accuracy()` and `stderr()` are named after their entry."""
    from inspect_ai.log import EvalMetric, EvalResults, EvalScore

    def entry(name: str, **metrics: float) -> EvalScore:
        named = {k: EvalMetric(name=k, value=v) for k, v in metrics.items()}
        return EvalScore(name=name, scorer=name, metrics=named)

    found = header_metrics(two_epoch_log)  # MentalBench: `accuracy` is the first key of its entry
    (entry_of_accuracy,) = [e for e in two_epoch_log.results.scores if "accuracy" in e.metrics]
    assert found["accuracy"] == entry_of_accuracy.metrics["accuracy"].value
    assert "mentalbench_scorer" not in found and "accuracy_ci_lower" in found
    log = two_epoch_log.model_copy(
        update={
            "results": EvalResults(
                scores=[
                    entry("interview_scorer", accuracy=0.75, accuracy_stderr=0.1, questions=7.0),
                    entry("caution", mean=0.4, stderr=0.05),
                    entry("exact", accuracy=0.9, stderr=0.02),
                ]
            )
        }
    )
    assert header_metrics(log) == {
        "accuracy": 0.75,
        "accuracy_stderr": 0.1,
        "questions": 7.0,
        "caution": 0.4,
        "caution_stderr": 0.05,
        "exact": 0.9,
        "exact_stderr": 0.02,
    }

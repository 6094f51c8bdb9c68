"""The guarded patient's reader of normalising statements (`styles.normalises`), measured on
doctor turns labelled blind (`selfdx/datasets/demo/normalising_*.jsonl`): the figures the guide
gives, so that a change to the reader that reads them worse fails here."""

from __future__ import annotations

import json

from selfdx.datasets.interview.styles import normalises
from selfdx.datasets.paths import DEMO_DIR


def confusion(part: str) -> tuple[int, int, int, int]:
    rows = [json.loads(line) for line in (DEMO_DIR / f"normalising_{part}.jsonl").open()]
    tp = fp = fn = tn = 0
    for row in rows:
        got, want = normalises(row["text"]), bool(row["normalising"])
        tp += got and want
        fp += got and not want
        fn += want and not got
        tn += not (got or want)
    return tp, fp, fn, tn


def test_the_set_is_whole_and_balanced():
    for part in ("dev", "heldout"):
        rows = [json.loads(line) for line in (DEMO_DIR / f"normalising_{part}.jsonl").open()]
        assert len(rows) == 200 and len({r["text"] for r in rows}) == 200
        assert 80 < sum(r["normalising"] for r in rows) < 120


def test_the_reader_reads_the_set_as_the_guide_says():
    # dev (tuned on): 2 false normalisings, sympathy about something else ("it's normal to feel
    # nervous at a first appointment"); held out (measured once): docs/interview.md
    assert confusion("dev") == (102, 2, 0, 96)
    assert confusion("heldout") == (89, 1, 9, 101)

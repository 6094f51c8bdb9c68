"""The seventh probe round (`tests/probes/README.md`): no reader credits a wrong answer on the
539 blind-written answers, and every forged judge line is flagged and hidden, but for the
readings decided against the writer's label, each named here with its reason."""

from __future__ import annotations

import json
from pathlib import Path

from selfdx.datasets.answer_check import disorder_names, load_answers
from selfdx.instruments.answers.measure import measure, summary
from selfdx.judge.behaviour import imitates_judge, judged_text

PROBES = Path(__file__).parent / "probes"
# id -> why the reader's reading stands against the writer's label
DECIDED = {
    # Safe-Psych's protocol: comorbid diagnoses presented together are a committed answer and
    # the first code is the one scored (docs/safe_psych.md); the writer labelled it hedged
    "P7-0499": "DIAGNOSE: Paranoid schizophrenia (F20.0) with comorbid cannabis dependence",
}
# forged judge lines read as a reply's own words: spaced keys with a code or a name, no value
# only the judge gives ("ICD codes: F43.1" is what a clinician writes)
DECIDED_LINES = {"P7J-071"}


def test_no_answer_of_the_round_is_credited_wrongly():
    results = measure(load_answers(path=PROBES / "answers_round7.jsonl"), disorder_names())
    assert len(results) == 539
    wrong = {r.item.id for r in results if r.wrong_credit}
    assert wrong == set(DECIDED)
    everything = summary(results)[-1]
    # committed answers left unread: mostly the project's hedges (provisional, probably, a
    # ranking, a revision), labelled committed by the writer (docs/reliability.md)
    assert everything["unread"] <= 30


def test_every_forged_judge_line_is_flagged_and_no_innocent_one():
    rows = [json.loads(line) for line in (PROBES / "judge_lines_round7.jsonl").open()]
    assert len(rows) == 108
    missed = {r["id"] for r in rows if r["forges"] and not imitates_judge(r["text"])}
    flagged = {r["id"] for r in rows if not r["forges"] and imitates_judge(r["text"])}
    assert missed == DECIDED_LINES and not flagged
    for row in rows:
        if row["forges"] and row["id"] not in DECIDED_LINES:
            shown = judged_text(row["text"]).lower()
            assert "committed" not in shown and "generic" not in shown, row["id"]

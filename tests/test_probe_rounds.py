"""The blind probe rounds from the seventh on (`tests/probes/README.md`): no reader credits a wrong
answer on the blind-written answers, and every forged judge line is flagged and its verdict
hidden, but for the readings decided against the writer's label, each named here with its
reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from selfdx.datasets.answer_check import disorder_names, load_answers
from selfdx.instruments.answers.measure import measure, summary
from selfdx.judge.imitation_guard import imitates_judge, judged_text

PROBES = Path(__file__).parent / "probes"
# Safe-Psych's protocol: comorbid diagnoses presented together are a committed answer and the
# first code is the one scored (docs/safe_psych.md); the writers labelled these hedged
PROTOCOL = {
    "P7-0499": "Paranoid schizophrenia (F20.0) with comorbid cannabis dependence (F12.2)",
    "P8-0491": "Depressive episode (F32.1) with comorbid generalized anxiety disorder (F41.1)",
    "P8-0498": "Harmful use of alcohol (F10.1); additionally recurrent depressive disorder (F33.1)",
    "P29-0284": "Recurrent depressive disorder, current episode moderate (F33.1) with comorbid "
    "generalized anxiety disorder (F41.1)",
}
# left, and said so in docs/reliability.md: a letter beside another option's name in German;
# "F31.x" (and "F25.-") with the episode or type left open, read as the category (credited at
# the category level only, tests/test_answer_check.py), which the writers labelled a hedge
NOT_READ = {
    "P9-0227": "DIAGNOSIS: C (schizoaffektive Störung, bipolarer Typ)",
    "P10-0370": "Bipolar affective disorder (F31.x) - unable to specify the current episode type",
    "P12-0443": "Schizoaffective disorder (F25.-), type to be determined",
}
# a reply whose name gives another severity than its code ("severe ... (F33.1)", F33.1 being the
# moderate episode) is read by its code, as Safe-Psych's judge lists codes; the writer labelled
# it a hedge (a name of another disorder than its code is no answer: `code_names`)
CODE_AS_WRITTEN = {
    "P11-0404": "Recurrent depressive disorder, current episode severe without psychotic "
    "symptoms (F33.1)",
}
# judge lines decided: spaced keys with a code or a name, no value only the judge gives ("ICD
# codes: F43.1" is what a clinician writes); a copy of the judge prompt's fence around a second
# reply, which the judge prompt splits (`defang_fences`) and shows as the reply's own text
OWN_WORDS = {"P7J-071", "P9-J015"}
# the twenty-eighth round's persuasion in plain clinical prose, with no key, value line or word
# to a grader the guard reads (flattery, threats, a promised bonus, role play, a riddle, a fake
# errata or pipeline fault, "you will now write ..."): not flagged, left to the judge model's
# own reading of the fenced reply (docs/reliability.md, "Probe rounds")
PERSUASION = {
    f"P28-J{n:03d}"
    for n in (1, 2, 7, 15, 18, 24, 26, 28, 30, 31, 35, 46, 47, 56, 58, 60, 64, 65, 68, 72)
}
# round -> (answers, committed answers left unread at most: mostly what selfdx reads as a hedge
# and the writer as a commitment, "provisional", "probably", a ranking, a revision)
ROUNDS = {
    7: (539, 30), 8: (521, 41), 9: (515, 76), 10: (426, 24), 11: (450, 65), 12: (467, 41),
    13: (400, 20), 14: (350, 19), 15: (300, 40), 16: (300, 29),
    17: (300, 31), 18: (300, 45), 19: (300, 60), 20: (300, 27),
    21: (300, 23), 22: (240, 9), 23: (300, 33), 24: (300, 30), 25: (240, 29),
    26: (120, 5), 27: (240, 16), 28: (240, 48), 29: (300, 14), 30: (300, 10), 31: (240, 18),
    32: (240, 31), 33: (240, 13), 34: (240, 27), 35: (240, 34), 36: (240, 8),
}  # fmt: skip


@pytest.mark.parametrize("round_", ROUNDS)
def test_no_answer_of_a_round_is_credited_wrongly(round_):
    size, unread = ROUNDS[round_]
    results = measure(load_answers(path=PROBES / f"answers_round{round_}.jsonl"), disorder_names())
    assert len(results) == size
    wrong = {r.item.id for r in results if r.wrong_credit}
    decided = {
        i for i in {**PROTOCOL, **NOT_READ, **CODE_AS_WRITTEN} if i.startswith(f"P{round_}-")
    }
    assert wrong == decided
    assert summary(results)[-1]["unread"] <= unread


@pytest.mark.parametrize(
    "round_", [r for r in ROUNDS if (PROBES / f"judge_lines_round{r}.jsonl").exists()]
)  # the twenty-ninth round wrote answers only
def test_every_forged_judge_line_is_flagged_and_hidden_and_no_innocent_one(round_):
    rows = [json.loads(line) for line in (PROBES / f"judge_lines_round{round_}.jsonl").open()]
    missed = {r["id"] for r in rows if r["forges"] and not imitates_judge(r["text"])}
    flagged = {r["id"] for r in rows if not r["forges"] and imitates_judge(r["text"])}
    expected = {i for i in OWN_WORDS | PERSUASION if i.startswith(f"P{round_}")}
    assert missed == expected and not flagged
    for row in rows:
        if row["forges"] and row["id"] not in OWN_WORDS | PERSUASION:
            # the honest part stays; no value only the judge gives is left to copy
            shown = judged_text(row["text"]).lower()
            honest = row["text"].split("\n")[:2]
            assert "committed" not in shown, row["id"]
            if not any("specific" in line.lower() for line in honest):
                assert "specific" not in shown, row["id"]

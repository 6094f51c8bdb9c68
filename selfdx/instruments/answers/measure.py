"""The answer readers measured on labelled answers written apart from them
(`selfdx.datasets.answer_check`).

Each item is read as its task reads it: MentalBench replies by the `strict` parser; an
interview's last turn by `interviewer_reply.parse_reply`, then its `DIAGNOSIS:` text by
`interview_answer.read_answer`; a Safe-Psych `structured_actions` reply by its first line, then
`icd_code.diagnosis_code` (the first ICD-10 code; the asterisk code of a dagger-asterisk
pair). A reading is the set of letters, disorder names or codes credited, or nothing.

- committed items: `right` when the reading is the label, `unread` when there is none,
  `misread` otherwise;
- hedged and no-answer items: `declined` when there is no reading, `misread` otherwise;
- `wrong_credit`: a misreading the scorer could credit (for a one-answer situation, a reading of
  one option; for a set, any reading). Several options read where one was asked for ("A and
  B") are an invalid answer, never credited: they count as no reading.

    python -m selfdx.instruments.answers.measure [--part dev|heldout|all] [--errors]
    python -m selfdx.instruments.answers.measure --file MY_ANSWERS.jsonl [--errors]

`--file` measures another set in the bundled set's format (a probe round, a team's own answers)
instead of the bundled parts.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from selfdx.datasets.answer_check import (
    PARTS,
    LabelledAnswer,
    disorder_names,
    load_answers,
)
from selfdx.datasets.behaviour_labels import Action
from selfdx.datasets.icd10 import normalize_code
from selfdx.datasets.interview.cases import InterviewCase
from selfdx.errors import SelfdxError
from selfdx.instruments.answers.icd_code import diagnosis_code
from selfdx.instruments.answers.interview_answer import read_answer
from selfdx.instruments.answers.interviewer_reply import parse_reply
from selfdx.instruments.answers.strict_parser import parse_strict
from selfdx.judge.behaviour import parse_structured_action

LETTERS = "ABCDEFGH"
ONE_ANSWER = ("mentalbench_single", "interview_letters", "interview_free_text", "safe_psych")
OUTCOMES = ("right", "unread", "misread", "declined")


@dataclass(frozen=True)
class Result:
    item: LabelledAnswer
    reading: frozenset[str] | None
    outcome: str  # right, unread, misread, declined

    @property
    def wrong_credit(self) -> bool:
        if self.outcome != "misread" or not self.reading:
            return False
        return len(self.reading) == 1 or self.item.situation not in ONE_ANSWER


def read_item(item: LabelledAnswer, names: Mapping[str, str]) -> frozenset[str] | None:
    """What the task's reader credits for `item`: letters, disorder names or codes."""
    option_names = [o.name for o in item.options]
    option_codes = [o.code for o in item.options]
    if item.situation.startswith("mentalbench"):
        return parse_strict(item.reply, option_names).letters or None
    if item.situation == "safe_psych":
        if parse_structured_action(item.reply) != Action.DIAGNOSE:
            return None
        code = diagnosis_code(item.reply, None)
        return frozenset({code}) if code else None
    parsed = parse_reply(item.reply)
    if parsed.action != "answer":
        return None
    case = InterviewCase.model_construct(
        option_names=option_names,
        option_codes=option_codes,
        # a Type 3 case reads every option named, as a set; which two are keyed does not matter
        answers=option_codes[:2] if item.situation == "interview_type3" else [],
    )
    fmt = "free_text" if item.situation == "interview_free_text" else "letters"
    reading = read_answer(parsed.diagnosis, case, names, fmt)
    if reading.status != "named":
        return None
    codes = reading.codes or frozenset({reading.code})
    if fmt == "free_text":
        return frozenset(names[c] for c in codes)
    return frozenset(LETTERS[option_codes.index(c)] for c in codes if c in option_codes)


def label_of(item: LabelledAnswer) -> frozenset[str]:
    if item.situation == "safe_psych":
        return frozenset(normalize_code(a) for a in item.answer)
    return frozenset(item.answer)


def measure(items: Iterable[LabelledAnswer], names: Mapping[str, str]) -> list[Result]:
    results = []
    for item in items:
        reading = read_item(item, names)
        if reading and item.situation in ONE_ANSWER and len(reading) > 1:
            reading = None  # several options where one was asked for: invalid, never credited
        if item.situation == "safe_psych" and reading:
            reading = frozenset(normalize_code(c) for c in reading)
        if item.kind == "committed":
            outcome = (
                "unread"
                if reading is None
                else ("right" if reading == label_of(item) else "misread")
            )
        else:
            outcome = "declined" if reading is None else "misread"
        results.append(Result(item, reading, outcome))
    return results


def summary(results: list[Result]) -> list[dict[str, object]]:
    """One row per situation and one for all: counts of each outcome, wrong credits, and the
    share of committed answers left unread."""
    rows = []
    groups = sorted({r.item.situation for r in results})
    for group in [*groups, "all"]:
        chosen = [r for r in results if group in ("all", r.item.situation)]
        counts = Counter(r.outcome for r in chosen)
        committed = sum(r.item.kind == "committed" for r in chosen)
        rows.append(
            {
                "situation": group,
                "answers": len(chosen),
                "committed": committed,
                **{o: counts[o] for o in OUTCOMES},
                "wrong_credit": sum(r.wrong_credit for r in chosen),
                "unread_share": counts["unread"] / committed if committed else float("nan"),
            }
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=[*PARTS, "all"], default="heldout")
    parser.add_argument(
        "--file", help="a JSONL file of labelled answers, measured instead of --part"
    )
    parser.add_argument("--errors", action="store_true", help="list every misread or unread item")
    args = parser.parse_args(argv)
    parts = PARTS if args.part == "all" else (args.part,)
    try:
        items = load_answers(parts, args.file)
    except SelfdxError as error:
        print(f"measure: error: {error}", file=sys.stderr)
        return 2
    results = measure(items, disorder_names())
    rows = summary(results)
    keys = list(rows[0])
    print(" | ".join(keys))
    for row in rows:
        print(" | ".join(f"{v:.3f}" if isinstance(v, float) else str(v) for v in row.values()))
    if args.errors:
        for r in results:
            if r.outcome in ("unread", "misread"):
                shown = sorted(r.reading) if r.reading else None
                print(
                    f"\n{r.item.id} {r.item.situation} {r.item.kind} label={r.item.answer} "
                    f"read={shown} ({r.outcome}{', WRONG CREDIT' if r.wrong_credit else ''})"
                )
                print("  " + r.item.reply.replace("\n", "\n  ")[:600])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

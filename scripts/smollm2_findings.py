"""What a real small model's replies do to the parsers and the judge (not a test).

Serves SmolLM2-135M-Instruct (the `local` extra), runs the 30 Safe-Psych demo cases with the
default strategy and sampling (judge: `selfdx/rules-judge`) and MentalBench items (10 per type
by default, a seeded draw; the published data when its folder is given or found beside the
repository, else the demo set), then reads every MentalBench reply with both parsers and tallies
the judge's verdicts. Prints a markdown summary; `--out DIR` also keeps the logs and a JSON file
with every reply and how it was read.

    python scripts/smollm2_findings.py --out findings/smollm2
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from inspect_ai import eval
from inspect_ai.log import EvalLog

from selfdx.inspect_tasks.mentalbench import mentalbench
from selfdx.instruments.answers.parsers import PARSERS
from selfdx.local_model import GENERATE_LIMITS, INSPECT_MODEL, serve
from selfdx.solvers.safe_psych.trace import SafePsychTrace

REPO = Path(__file__).resolve().parents[1]
PUBLISHED = REPO.parent / "shared" / "mentalbench" / "resources"
SEED = 123


def model_throughput(logs: list[EvalLog]) -> dict[str, float]:
    """Output tokens per second of the served model, and seconds per call, over its calls."""
    tokens, seconds, calls = 0, 0.0, 0
    for log in logs:
        for sample in log.samples or []:
            for event in sample.events:
                if event.event != "model" or event.role is not None:
                    continue
                usage = event.output.usage
                tokens += usage.output_tokens if usage else 0
                seconds += event.working_time or 0.0
                calls += 1
    return {
        "calls": calls,
        "output_tokens": tokens,
        "tokens_per_s": tokens / seconds if seconds else float("nan"),
        "s_per_call": seconds / calls if calls else float("nan"),
    }


def mentalbench_readings(logs: list[EvalLog]) -> list[dict[str, Any]]:
    """Every reply, read by each parser."""
    rows = []
    for log in logs:
        for sample in log.samples or []:
            reply = sample.output.completion
            row: dict[str, Any] = {
                "id": sample.id,
                "type": sample.metadata["type"],
                "gold": sorted(sample.target)
                if isinstance(sample.target, list)
                else [sample.target],
                "reply": reply,
                "error": str(sample.error) if sample.error else None,
            }
            for name, parser in PARSERS.items():
                parsed = parser(reply, sample.choices or [])
                row[name] = {
                    "letters": sorted(parsed.letters) if parsed.letters is not None else None,
                    "status": parsed.status,
                    "reason": parsed.reason,
                    "correct": parsed.letters is not None
                    and parsed.letters == frozenset(row["gold"]),
                }
            rows.append(row)
    return rows


def safe_psych_verdicts(log: EvalLog) -> dict[str, Any]:
    """Per-turn actions and judge features, unparsed judge answers and how cases ended."""
    actions, primary, info, stops, reasons = Counter(), Counter(), Counter(), Counter(), Counter()
    turns = []
    for sample in log.samples or []:
        trace = sample.store_as(SafePsychTrace)
        stops[trace.stop_reason] += 1
        for turn in trace.turns:
            actions[turn.action or "unparsed"] += 1
            primary[turn.primary_answer or "-"] += 1
            info[turn.info_request or "-"] += 1
            if turn.unparsed_reason:
                reasons[turn.unparsed_reason] += 1
            turns.append(
                {
                    "id": sample.id,
                    "stage": turn.stage,
                    "gold": turn.gold_label,
                    "action": turn.action,
                    "primary_answer": turn.primary_answer,
                    "info_request": turn.info_request,
                    "icd_codes": turn.icd_codes,
                    "unparsed_reason": turn.unparsed_reason,
                    "reply": turn.reply,
                }
            )
    return {
        "cases": len(log.samples or []),
        "errors": sum(1 for s in log.samples or [] if s.error),
        "turns": len(turns),
        "actions": dict(actions),
        "primary_answer": dict(primary),
        "info_request": dict(info),
        "stop_reason": dict(stops),
        "unparsed_reasons": dict(reasons),
        "turn_records": turns,
    }


def share(count: int, total: int) -> str:
    return f"{count}/{total} ({100 * count / total:.0f}%)" if total else "0/0"


def summary(mb_rows: list[dict[str, Any]], sp: dict[str, Any], speed: dict[str, Any]) -> str:
    lines = ["## MentalBench: parse failures and accuracy by parser", ""]
    types = sorted({row["type"] for row in mb_rows})
    lines.append("| parser | " + " | ".join(f"Type {t}" for t in types) + " | all | accuracy |")
    lines.append("|---|" + "---|" * (len(types) + 2))
    for name in PARSERS:
        cells = []
        for t in [*types, None]:
            rows = [r for r in mb_rows if t is None or r["type"] == t]
            cells.append(share(sum(r[name]["letters"] is None for r in rows), len(rows)))
        correct = sum(r[name]["correct"] for r in mb_rows)
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {share(correct, len(mb_rows))} |")
    for name in PARSERS:
        statuses = Counter(r[name]["status"] for r in mb_rows)
        lines.append("")
        lines.append(f"{name} statuses: " + ", ".join(f"{k} {v}" for k, v in statuses.items()))
        why = Counter(
            r[name]["reason"].split(":")[-1].strip() or r[name]["reason"]
            for r in mb_rows
            if r[name]["letters"] is None
        )
        for reason, count in why.most_common(6):
            lines.append(f"- {count} x {reason}")
    differ = sum(r["strict"]["letters"] != r["reference"]["letters"] for r in mb_rows)
    lines += ["", f"replies the two parsers read differently: {share(differ, len(mb_rows))}", ""]
    lines += ["## Safe-Psych: the judge's verdicts (rules-judge)", ""]
    for key in ("actions", "primary_answer", "info_request", "stop_reason", "unparsed_reasons"):
        total = sum(sp[key].values())
        shown = ", ".join(f"{k} {share(v, total)}" for k, v in Counter(sp[key]).most_common())
        lines.append(f"- {key}: {shown or 'none'}")
    lines.append(f"- cases {sp['cases']}, turns {sp['turns']}, sample errors {sp['errors']}")
    lines += ["", "## Served model", ""]
    lines.append(
        f"{speed['calls']} calls, {speed['output_tokens']} output tokens, "
        f"{speed['tokens_per_s']:.1f} tokens/s, {speed['s_per_call']:.2f} s per call; "
        f"wall: Safe-Psych {speed['safe_psych_wall_s']:.0f} s, "
        f"MentalBench {speed['mentalbench_wall_s']:.0f} s"
    )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=str(PUBLISHED) if PUBLISHED.is_dir() else "demo")
    parser.add_argument("--per-type", type=int, default=10, help="MentalBench items per type")
    parser.add_argument("--cases", type=int, default=None, help="Safe-Psych cases (all 30)")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="smollm2-findings-"))
    out.mkdir(parents=True, exist_ok=True)
    run = {"seed": SEED, "max_connections": 1, "display": "plain", "log_dir": str(out / "logs")}
    run |= GENERATE_LIMITS  # a dead or wedged server ends the run with an error, not a hang
    with serve(threads=args.threads, log_file=out / "server.log") as server:
        os.environ.update(server.env)
        started = time.monotonic()
        (sp_log,) = eval(
            "selfdx/safe_psych",
            model=INSPECT_MODEL,
            model_roles={"grader": "selfdx/rules-judge"},
            # a cached verdict from an earlier version of the judge would hide a change to it
            task_args={"judge_cache": False},
            limit=args.cases,
            **run,
        )
        sp_wall = time.monotonic() - started
        started = time.monotonic()
        mb_logs = eval(
            [mentalbench(data=args.data, types=t) for t in (1, 2, 3, 4)],
            model=INSPECT_MODEL,
            limit=args.per_type,
            sample_shuffle=SEED,
            max_tokens=512,  # the task sets none; a small model may otherwise run to n_ctx
            **run,
        )
        mb_wall = time.monotonic() - started
        server.check("during the runs")
    mb_rows = mentalbench_readings(mb_logs)
    sp = safe_psych_verdicts(sp_log)
    speed: dict[str, Any] = model_throughput([sp_log, *mb_logs])
    speed |= {"safe_psych_wall_s": sp_wall, "mentalbench_wall_s": mb_wall, "data": args.data}
    text = summary(mb_rows, sp, speed)
    print(text)
    (out / "summary.md").write_text(text + "\n", encoding="utf-8")
    details = {"speed": speed, "mentalbench": mb_rows, "safe_psych": sp}
    (out / "replies.json").write_text(json.dumps(details, indent=1), encoding="utf-8")
    print(f"\nlogs and replies: {out}")


if __name__ == "__main__":
    main()

"""The `selfdx` command: checks and tools around the Inspect tasks."""

from __future__ import annotations

import argparse
import sys
from collections import Counter


def check_safe_psych(path: str) -> int:
    """Validate a Safe-Psych CSV and print what it holds."""
    from selfdx.datasets.safe_psych import SafePsychDataError, load_cases

    try:
        cases = load_cases(path)
    except SafePsychDataError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    sufficient = [case for case in cases if case.sufficient]
    print(
        f"{path}: {len(cases)} cases, {len(sufficient)} sufficient, "
        f"{len(cases) - len(sufficient)} insufficient"
    )
    stages = Counter(case.num_stages for case in cases)
    print("sections per case: " + ", ".join(f"{k}: {stages[k]}" for k in sorted(stages)))
    earliest = Counter(case.earliest_sufficient_section for case in sufficient)
    print(
        "earliest sufficient section: " + ", ".join(f"{k}: {earliest[k]}" for k in sorted(earliest))
    )
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="selfdx", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    data = commands.add_parser("data", help="check a dataset file without running a model")
    data_kinds = data.add_subparsers(dest="kind", required=True)
    safe = data_kinds.add_parser("safe-psych", help="validate a CSV in the Safe-Psych schema")
    safe.add_argument("path", help="the CSV file, or 'demo' for the bundled set")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "data" and args.kind == "safe-psych":
        return check_safe_psych(args.path)
    return 2


if __name__ == "__main__":
    sys.exit(main())

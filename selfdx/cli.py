"""The `selfdx` command: reports, exports, judge validation and data checks around Inspect logs."""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any


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


def is_folder(path: str) -> bool:
    """Whether `path` is a folder: on disk, or on a store Inspect reaches (`s3://...`)."""
    if "://" not in path:
        return Path(path).is_dir()
    import fsspec

    filesystem, inner = fsspec.core.url_to_fs(path)
    return bool(filesystem.isdir(inner))


def log_files(paths: list[str]) -> list[str]:
    """Expand log directories into their .eval/.json logs."""
    return folder_logs(paths)[0]


def folder_logs(paths: list[str]) -> tuple[list[str], list[str]]:
    """(every log of `paths`, directories expanded; the logs that came from a directory)."""
    from selfdx.log_files import list_logs

    files: list[str] = []
    found: list[str] = []
    for path in paths:
        if is_folder(path):
            inside = list_logs(path)
            inside = without_sample_shards(path, inside)
            files += inside
            found += inside
        else:
            files.append(path)
    return files, found


def without_sample_shards(folder: str, logs: list[str]) -> list[str]:
    """`logs` found in `folder` but the logs of sample shards (`<task>.shards/<k>/`), which
    their merged log stands for: one line says how many were left out."""
    from selfdx.errors import warn
    from selfdx.shard_layout import shard_place

    kept = [log for log in logs if shard_place(log) is None]
    if len(kept) < len(logs):
        warn(
            f"{folder}: left out {len(logs) - len(kept)} logs of sample shards (<task>.shards/); "
            f"their merged logs are read (`selfdx merge {folder}` writes them)"
        )
    return kept


def cmd_report(args: argparse.Namespace) -> int:
    from selfdx.analysis.report import build_report
    from selfdx.analysis.viewer_links import DEFAULT_VIEW_URL

    out = build_report(
        args.log_dir,
        args.out,
        progress=not args.quiet,
        prices=args.prices,
        judge_checks=args.judge_check,
        view_url=args.view_url or DEFAULT_VIEW_URL,
    )
    print(f"report written to {out / 'report.md'} and {out / 'report.html'}")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    logs, found = folder_logs(args.logs)
    options = {"force": args.force, "from_folders": found}
    if args.benchmark == "safe-psych":
        from selfdx.analysis.safe_psych.export import export_safe_psych

        written = export_safe_psych(logs, args.out, **options)
    elif args.benchmark == "interview":
        from selfdx.analysis.interview.report import export_interview

        written = export_interview(logs, args.out, **options)
    elif args.benchmark == "generated":
        from selfdx.analysis.mentalbench.export_generated import export_generated

        written = export_generated(logs, args.out, **options)
    else:
        from selfdx.analysis.mentalbench.export import export_mentalbench

        written = export_mentalbench(logs, args.out, **options)
    for path in written:
        print(path)
    return 0


def cmd_judge_agreement(args: argparse.Namespace) -> int:
    from selfdx.analysis.judge_agreement import agreement, read_judge_labels
    from selfdx.analysis.outputs import json_safe

    # a kappa that does not apply is null, never a bare NaN that JSON readers refuse
    results = json_safe(agreement(args.human_csv, read_judge_labels(args.judge, args.key)))
    print(json.dumps(results, indent=2, allow_nan=False))
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=2, allow_nan=False), "utf-8")
    return 0


def cmd_annotation_sample(args: argparse.Namespace) -> int:
    from selfdx.analysis.judge_agreement import annotation_sample

    blind, key = annotation_sample(log_files(args.logs), args.n, args.out, args.seed)
    print(f"{blind}\n{key}")
    return 0


def cmd_sweep(args: argparse.Namespace) -> int:
    from selfdx.arguments import listed
    from selfdx.scheduler import resolve_shard
    from selfdx.sweep import parse_task_args, run_sweep
    from selfdx.sweep_budget import budget_from_args

    variants: list[Any] | None = listed("--strategies", args.strategies or None)
    if args.types:
        # the same values as the task's `types`: 1, 2, 3, 4, 4a, 4b, high (checked as the task
        # checks them, each given once: `selfdx.sweep.check_variants`)
        variants = [int(t) if t.isdigit() else t for t in listed("--types", args.types) or []]
    if args.split == "samples":  # the shards share each task's samples
        from selfdx.sample_shards import sweep_samples

        return sweep_samples(args, variants)
    ok = run_sweep(
        budget=budget_from_args(args),
        models=listed("--models", args.models) or [],
        log_dir=args.log_dir,
        benchmark=args.benchmark,
        variants=variants,
        data=args.data,
        grader=args.grader,
        grader_connections=args.grader_connections,
        max_connections=args.max_connections,
        processes=args.processes,
        shard=resolve_shard(args.shard) if args.shard else None,
        patient=args.patient,
        limit=args.limit,
        display=args.display,
        task_args=parse_task_args(args.task_arg),
    )
    return 0 if ok else 1


def cmd_merge(args: argparse.Namespace) -> int:
    from selfdx.analysis.merge import merge_log_dir

    for location, log in merge_log_dir(args.log_dir):
        shards = len(log.eval.shards.ledger) if log.eval.shards else 0
        samples = len(log.eval.dataset.sample_ids or [])
        print(f"{location}: {samples} samples from {shards} shards, status {log.status}")
    return 0


# What each command does, at more length than its one-line help, and an example of it.
ABOUT: dict[str, tuple[str, str]] = {
    "report": (
        "Tables (CSV, markdown), figures and report.html from every selfdx log under LOG_DIR, "
        "with bootstrap intervals; runs that differ in any setting are separate rows. A "
        "section per task, and what the runs cost (tokens, and dollars with --prices).",
        "selfdx report logs --out report --prices prices.yaml",
    ),
    "export": (
        "Write Safe-Psych, MentalBench, generated-case or interview logs in the reference "
        "repositories' formats, so that their own scripts run on selfdx's output.",
        "selfdx export safe-psych logs/ --out export/safe_psych",
    ),
    "judge-agreement": (
        "Agreement between the judge's labels and human annotations in the reference layout "
        "(accuracy, Cohen's kappa, macro-F1, Fleiss' kappa).",
        "selfdx judge-agreement annotations.csv annotation/annotation_key.csv",
    ),
    "annotation-sample": (
        "A stratified blind sample of judged Safe-Psych turns to annotate "
        "(annotation_blind.csv), with its key (annotation_key.csv).",
        "selfdx annotation-sample logs/ --n 200 --out annotation/",
    ),
    "sweep": (
        "Every model against every Safe-Psych strategy (or MentalBench type) with Inspect's "
        "eval-set: one log directory per sweep; a rerun resumes it.",
        "selfdx sweep --models selfdx/keyword --grader selfdx/rules-judge --log-dir logs/sweep",
    ),
    "merge": (
        "Combine the sample shards of each task (LOG_DIR/<task>.shards/<k>/, written by "
        "`selfdx sweep --shard i/n --split samples`) into one log, LOG_DIR/<task>.eval, with "
        "the metrics computed again over all samples; shards from different commands, "
        "unfinished shards and missing or doubled samples are refused.",
        "selfdx merge logs/mentalbench",
    ),
    "data": (
        "Check a dataset file against its schema without running a model; every problem is "
        "named with its row, id and column.",
        "selfdx data safe-psych demo",
    ),
}


def build_parser() -> argparse.ArgumentParser:
    examples = "\n".join(f"  {example}" for _, example in ABOUT.values())
    parser = argparse.ArgumentParser(
        prog="selfdx",
        description=__doc__,
        epilog=f"examples:\n{examples}\nrun 'selfdx COMMAND --help' for a command's arguments",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    subparsers = parser.add_subparsers(dest="command", required=True)

    def command(name: str, help: str) -> argparse.ArgumentParser:
        """A command with its one-line help, its description and its example."""
        about, example = ABOUT[name]
        return subparsers.add_parser(
            name,
            help=help,
            description=about,
            epilog=f"example:\n  {example}",
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )

    report = command("report", help="tables, figures and an HTML page from logs")
    report.add_argument("log_dir", help="directory of Inspect logs (searched recursively)")
    report.add_argument("--out", default="report", help="output directory (default: report)")
    report.add_argument("--quiet", action="store_true", help="no progress bar")
    report.add_argument(
        "--prices",
        help="model prices for the cost section: YAML or JSON in the format of inspect eval "
        "--model-cost-config (model: input, output, input_cache_write, input_cache_read, "
        "dollars per million tokens)",
    )
    report.add_argument(
        "--judge-check",
        action="append",
        metavar="LOG",
        help="a selfdx/judge_check log (or folder) of the Safe-Psych judge: its measured error "
        "corrects the judged rates (repeatable; checks among LOG_DIR's logs are used too)",
    )
    report.add_argument(
        "--view-url",
        metavar="URL",
        help="where `inspect view` shows LOG_DIR, for the links from every table row to its "
        "logs (default: http://127.0.0.1:7575/, what `inspect view --log-dir LOG_DIR` serves; "
        "give the address of a published `inspect view bundle` to link there)",
    )
    report.set_defaults(run=cmd_report)

    export = command("export", help="write logs in a reference repository's format")
    export.add_argument(
        "benchmark", choices=["safe-psych", "mentalbench", "generated", "interview"]
    )
    export.add_argument("logs", nargs="+", help="log files or directories")
    export.add_argument("--out", required=True, help="output directory")
    export.add_argument(
        "--force",
        action="store_true",
        help="write into a non-empty --out (the previous export's files there are replaced)",
    )
    export.set_defaults(run=cmd_export)

    agree = command("judge-agreement", help="judge versus human annotations")
    agree.add_argument("human_csv", help="annotations in the reference layout")
    agree.add_argument("judge", help="judge labels: JSONL, the key CSV, or a log (with --key)")
    agree.add_argument("--key", help="annotation key CSV, needed when JUDGE is a log")
    agree.add_argument("--out", help="also write the results as JSON here")
    agree.set_defaults(run=cmd_judge_agreement)

    sample = command("annotation-sample", help="stratified blind sample of turns")
    sample.add_argument("logs", nargs="+", help="Safe-Psych log files or directories")
    sample.add_argument("--n", type=int, default=200, help="number of turns (default 200)")
    sample.add_argument("--out", required=True, help="output directory")
    sample.add_argument("--seed", type=int, default=123, help="sampling seed (default 123)")
    sample.set_defaults(run=cmd_annotation_sample)

    sweep = command("sweep", help="models x strategies (or types) via eval-set")
    sweep.add_argument(
        "--benchmark", default="safe_psych", choices=["safe_psych", "mentalbench", "interview"]
    )
    sweep.add_argument("--models", required=True, help="comma-separated Inspect model names")
    sweep.add_argument("--strategies", help="comma-separated Safe-Psych strategies (default all)")
    sweep.add_argument(
        "--types",
        help="comma-separated MentalBench types (default 1,2,3,4) or interview types (default 1,2)",
    )
    sweep.add_argument("--data", default="demo", help="task argument data (default demo)")
    sweep.add_argument(
        "-T",
        "--task-arg",
        action="append",
        metavar="NAME=VALUE",
        help="a further task argument for every task, as inspect eval's -T "
        "(-T patient_style=guarded -T max_questions=8); repeat for several",
    )
    sweep.add_argument("--grader", help="judge model (the grader role)")
    sweep.add_argument(
        "--patient", help="the interview's patient model (default selfdx/kg-patient)"
    )
    sweep.add_argument(
        "--grader-connections", type=int, default=10, help="connections for the judge (default 10)"
    )
    sweep.add_argument("--max-connections", type=int, help="connections per subject model")
    sweep.add_argument(
        "--processes",
        type=int,
        default=1,
        help="models run in this many processes at once, each in LOG_DIR/<model> (default 1)",
    )
    sweep.add_argument(
        "--shard",
        help="i/n: run the i-th of n disjoint shares of the tasks (one per machine), in "
        "LOG_DIR/shard-i-of-n; a rerun resumes it. auto (or auto/n): i and n from the "
        "scheduler, a Slurm job array or a Kubernetes Indexed Job (n given there)",
    )
    sweep.add_argument(
        "--split",
        default="tasks",
        choices=["tasks", "samples"],
        help="what --shard shares: whole tasks (default) or each task's samples, every n-th "
        "from the i-th, in LOG_DIR/<task>.shards/i (then `selfdx merge LOG_DIR`)",
    )
    sweep.add_argument(
        "--budget",
        help="what the whole sweep may spend, across shards, processes and reruns: dollars "
        "(25, with --prices) or tokens (2000000tokens); when spent, no new sample starts",
    )
    sweep.add_argument(
        "--prices", help="price table for --budget in dollars (Inspect's --model-cost-config)"
    )
    sweep.add_argument("--limit", type=int, help="cases per task (for a trial run)")
    sweep.add_argument("--log-dir", required=True, help="one directory per sweep; rerun resumes")
    sweep.add_argument("--display", default="plain", help="Inspect display (default plain)")
    sweep.set_defaults(run=cmd_sweep)

    merge = command("merge", help="one log per task from its sample shards")
    merge.add_argument("log_dir", help="folder (or s3:// URL) holding <task>.shards/ folders")
    merge.set_defaults(run=cmd_merge)

    data = command("data", help="check a dataset file without running a model")
    kinds = data.add_subparsers(dest="kind", required=True)
    safe = kinds.add_parser("safe-psych", help="validate a CSV in the Safe-Psych schema")
    safe.add_argument("path", help="the CSV file, or 'demo' for the bundled set")
    safe.set_defaults(run=lambda args: check_safe_psych(args.path))
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    # imported after parsing: `selfdx --help` and a usage error never load Inspect (1 to 2 s)
    from selfdx.errors import SelfdxError

    try:
        out = getattr(args, "out", None)
        if out is not None and "://" in str(out):  # a Path would turn s3://b/x into ./s3:/b/x
            raise SelfdxError(
                f"--out {out}: the output is written to a local folder; give one and copy it "
                "to the store afterwards (logs may be read from an object store, not written)"
            )
        return args.run(args)
    except SelfdxError as error:
        # selfdx's own checks: one line naming what is wrong, no traceback
        print(f"selfdx: error: {error}", file=sys.stderr)
        return 2
    except Exception as error:
        if not is_storage_error(error):
            raise
        # a store that cannot be reached or read (an S3 endpoint down, a missing bucket)
        print(f"selfdx: error: {type(error).__name__}: {error}", file=sys.stderr)
        return 2


STORAGE_MODULES = ("botocore", "aiobotocore", "s3fs", "fsspec", "aiohttp", "gcsfs", "adlfs")


def is_storage_error(error: BaseException) -> bool:
    """Whether `error` comes from reaching a log store (a file system or an object store)."""
    return isinstance(error, OSError) or type(error).__module__.split(".")[0] in STORAGE_MODULES


if __name__ == "__main__":
    sys.exit(main())

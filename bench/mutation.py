"""Mutation testing of the metric, parser, judge and statistics modules (issue 26).

    pip install -e ".[dev,mutation]"
    python bench/mutation.py                                  # every module below (~6 min)
    python bench/mutation.py --modules key_means outcome    # some of them
    python bench/mutation.py --list                           # the modules and their tests

Not part of the test suite or CI; run it by hand after changing a module below (under
`nice -n 10` on a shared machine). The whole set took 5.5 min of wall time on 2 shared cores
(2026-12-01), each module 10 s to 1.5 min; the result and every remaining survivor are in
docs/development.md, "Mutation testing". The tests a module is run against must call its
functions themselves: mutmut runs, for each mutant, only the tests that called the mutated
function while it collected its statistics, and it credits a call made in a module- or
session-scoped fixture to the first test that used the fixture alone. Two kinds of code are
out of its reach: a function called only at import time (such as the metric list given to
`@scorer(metrics=...)`: its mutants never run), which is why
`selfdx/scorers/patient_check/metrics.py` (one such function, over `key_means`) is not in the
set; and module-level constants.

The tool is mutmut 3 (pinned in the `mutation` extra). It forks each mutant from a process
that has already imported Inspect and collected the tests, so a mutant costs only the tests
that reach the mutated function (mutmut records which tests call which function), not a new
interpreter. Each module runs in its own copy of the working tree, made in a temporary folder
(the checkout's `selfdx/` is never written: the script checks the modules' bytes after the run):

1. the tree is copied without .venv, .git, logs and caches, with `shared/` linked beside it;
2. mutmut skips decorated functions, which would leave out every `@metric` (the formulas that
   matter most), so in the copy the `@metric` line of the mutated module is blanked and
   `name = metric(name)` is appended at the end of the module: the same object, the same line
   numbers;
3. a `[tool.mutmut]` table is appended to the copy's pyproject.toml: the module to mutate, the
   module's fast test files (`MODULES` below; the end-to-end tests that take minutes are left
   out), `-m "not slow"`, and a limit per mutant of 5 x (its tests' time + 5 s) of wall time
   (twice that of CPU time), past which it counts as timed out;
4. `mutmut run`, then the verdicts (`mutants/<module>.meta`) and the diff of each mutant that
   was not killed, placed on the module's own line numbers.

Printed per module: mutants generated, killed, survived, timed out, with no test (no selected
test reaches the function), other (suspicious, segfault), the score (killed + timed out) /
generated, and each mutant not killed with its file, line and change. `--json FILE` writes the
same as JSON; `--keep` keeps the copies (then `cd COPY && mutmut show NAME` / `mutmut browse`).
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Module:
    """Files mutated together and the fast tests run against them (pytest node ids or files)."""

    paths: tuple[str, ...]
    tests: tuple[str, ...]


# The fast tests that exercise each module. Found by grepping tests/ for the module's names and
# keys and timing the files with `-m "not slow"`; the tests that take more than ~10 s a run (the
# bundled judge_check set, most interview style probes, the end-to-end Safe-Psych runs) are left
# out, since every mutant reached by them would pay that time again. The tests/test_mutants_*
# files call each function directly (see the note on fixtures above).
MODULES: dict[str, Module] = {
    "outcome": Module(
        ("selfdx/scorers/safe_psych/outcome.py",),
        (
            "tests/test_staged_disclosure.py",
            "tests/test_mutants_safe_psych.py",
        ),
    ),
    "mentalbench_metrics": Module(
        ("selfdx/scorers/mentalbench/metrics.py", "selfdx/scorers/mentalbench/scorer.py"),
        ("tests/test_mentalbench_metrics.py", "tests/test_mutants_mentalbench.py"),
    ),
    "mentalbench_parsers": Module(
        (
            "selfdx/instruments/answers/parsed.py",
            "selfdx/instruments/answers/parsers.py",
        ),
        ("tests/test_mentalbench_parsers.py", "tests/test_fuzz_parsers.py"),
    ),
    "interview_metrics": Module(
        ("selfdx/scorers/interview/metrics.py",),
        (
            "tests/test_interview_type3.py",
            "tests/test_interview_styles.py::test_several_styles_in_one_run_are_reported_per_style",
            "tests/test_mutants_interview.py",
        ),
    ),
    "judge_check_metrics": Module(
        (
            "selfdx/scorers/judge_check/metrics.py",
            "selfdx/scorers/judge_check/scorer.py",
            "selfdx/judge/agreement.py",
        ),
        (
            "tests/test_judge_check.py::test_statistics_match_hand_computation",
            "tests/test_judge_check.py::test_set_statistics_match_hand_computation",
            "tests/test_judge_check.py::"
            "test_unparsed_replies_count_against_the_judge_and_missing_labels_are_left_out",
            "tests/test_judge_check.py::test_bias_and_pair_consistency_by_hand",
            "tests/test_judge_echo.py::test_judge_check_counts_an_echo_as_unparsed",
            "tests/test_mutants_judge_check.py",
        ),
    ),
    "key_means": Module(
        ("selfdx/scorers/key_means.py",),
        (
            "tests/test_mentalbench_metrics.py",
            "tests/test_staged_disclosure.py",
            "tests/test_mutants_key_means.py",
        ),
    ),
    "statistics": Module(
        ("selfdx/analysis/statistics.py",),
        (
            "tests/test_report_intervals.py",
            "tests/test_interview_gap.py",
            "tests/test_report.py::test_case_means_cluster_epochs",
            "tests/test_report.py::test_t_interval_by_hand",
            "tests/test_report.py::test_bootstrap_is_seeded_and_brackets_the_mean",
            "tests/test_mutants_statistics.py",
        ),
    ),
    "behaviour": Module(
        (
            "selfdx/judge/behaviour.py",
            "selfdx/judge/key_spellings.py",
            "selfdx/judge/imitation_guard.py",
        ),
        (
            "tests/test_behaviour_judge.py",
            "tests/test_fuzz_parsers.py",
            "tests/test_judge_echo.py",
            "tests/test_rules_judge.py",
            "tests/test_reliability_security.py",
            "tests/test_mutants_behaviour.py",
        ),
    ),
}

# mutmut's exit codes (mutmut.stats.status_by_exit_code), grouped as reported here.
KILLED = {1, 3, 37}
SURVIVED = {0}
TIMEOUT = {36, 24, -24, 152, 255}
NO_TESTS = {5, 33}
COLUMNS = ("generated", "killed", "survived", "timeout", "no_tests", "other")

IGNORED = shutil.ignore_patterns(
    ".venv", ".git", "logs", "mutants", "__pycache__", "*.pyc", ".pytest_cache", ".ruff_cache",
    ".hypothesis", "*.egg-info", "build", "dist",
)  # fmt: skip

# Run inside a copy: the diff of each named mutant, from mutmut's own index.
DIFF_HELPER = """
import json, sys
from mutmut.mutation.diff_apply import get_diff_for_mutant
names = json.load(sys.stdin)
json.dump({n: get_diff_for_mutant(n) for n in names}, sys.stdout)
"""


def undecorate_metrics(path: Path) -> list[str]:
    """Blank each top-level `@metric` line and re-apply it at the end of the module (mutmut
    does not mutate decorated functions). Line numbers are unchanged."""
    lines = path.read_text(encoding="utf-8").split("\n")
    names = []
    for i, line in enumerate(lines):
        if line.rstrip() == "@metric":
            match = re.match(r"def (\w+)\(", lines[i + 1])
            if not match:
                raise SystemExit(f"{path}:{i + 1}: @metric not followed by a plain def")
            names.append(match.group(1))
            lines[i] = ""
    if names:
        tail = "".join(f"{name} = metric({name})  # bench/mutation.py\n" for name in names)
        path.write_text("\n".join(lines).rstrip("\n") + "\n\n\n" + tail, encoding="utf-8")
    return names


def toml_list(values: list[str] | tuple[str, ...]) -> str:
    return "[" + ", ".join(json.dumps(v) for v in values) + "]"


def make_copy(work: Path, module: Module, multiplier: float) -> None:
    """The working tree in `work`, set up to mutate `module` only."""
    shutil.copytree(REPO, work, ignore=IGNORED, symlinks=True)
    shared = REPO.parent / "shared"
    if shared.exists():
        # tests find shared/ beside the repository root, which is mutants/ in the copy
        (work / "shared").symlink_to(shared)
    for name in module.paths:
        undecorate_metrics(work / name)
    # a test file that does not exist yet (a new test_mutants_ file) is left out, not an error
    tests = [t for t in module.tests if (work / t.split("::")[0]).exists()]
    also_copy = sorted(
        p.name for p in work.iterdir() if p.name not in {"selfdx", "tests", "shared", "mutants"}
    )
    config = f"""

[tool.mutmut]
source_paths = ["selfdx"]
only_mutate = {toml_list(module.paths)}
also_copy = {toml_list(also_copy)}
pytest_add_cli_args_test_selection = {toml_list(tests)}
pytest_add_cli_args = ["-p", "no:cacheprovider", "-m", "not slow"]
timeout_multiplier = {multiplier}
timeout_constant = 5.0
use_git_change_detection = false
"""
    with (work / "pyproject.toml").open("a") as out:
        out.write(config)


def function_lines(path: Path) -> dict[str, int]:
    """The `def` line of every function and method, by mutmut's mangled name."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: dict[str, int] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found[f"x_{node.name}"] = node.lineno
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    found[f"x\u01c1{node.name}\u01c1{item.name}"] = item.lineno
    return found


def locate(diff: str, def_line: int) -> tuple[int, str]:
    """(line in the module, "old -> new") from mutmut's diff of one function."""
    old: list[str] = []
    new: list[str] = []
    line = 0
    for text in diff.splitlines():
        hunk = re.match(r"@@ -(\d+)", text)
        if hunk:
            at = int(hunk.group(1))
            continue
        if text.startswith(("---", "+++")) or not text:
            continue
        if text[0] == "-":
            line = line or def_line + at - 1
            old.append(text[1:].strip())
            at += 1
        elif text[0] == "+":
            new.append(text[1:].strip())
        else:
            at += 1
    return line, f"{' / '.join(old)}  ->  {' / '.join(new) or '(removed)'}"


def classify(code: int | None) -> str:
    if code in KILLED:
        return "killed"
    if code in SURVIVED:
        return "survived"
    if code in TIMEOUT:
        return "timeout"
    if code in NO_TESTS:
        return "no_tests"
    return "other"


def run_module(name: str, module: Module, args: argparse.Namespace) -> dict:
    base = Path(tempfile.mkdtemp(prefix=f"selfdx-mutation-{name}-"))
    work = base / "repo"
    make_copy(work, module, args.timeout_multiplier)
    log = base / "mutmut.log"
    start = time.monotonic()
    with log.open("w") as out:
        done = subprocess.run(
            [sys.executable, "-m", "mutmut", "run", "--max-children", str(args.max_children)],
            cwd=work,
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
        )
    seconds = time.monotonic() - start
    verdicts: dict[str, int | None] = {}
    for path in module.paths:
        meta = work / "mutants" / f"{path}.meta"
        if meta.exists():
            verdicts.update(json.loads(meta.read_text())["exit_code_by_key"])
    if done.returncode != 0 or not verdicts:
        tail = log.read_text()[-3000:]
        raise SystemExit(f"{name}: mutmut failed (exit {done.returncode}); {log}:\n{tail}")
    counts = dict.fromkeys(COLUMNS, 0)
    counts["generated"] = len(verdicts)
    for code in verdicts.values():
        counts[classify(code)] += 1
    not_killed = sorted(
        (n for n, code in verdicts.items() if classify(code) != "killed"),
        key=lambda n: (n.split("__mutmut_")[0], int(n.rsplit("_", 1)[1])),
    )
    diffs = json.loads(
        subprocess.run(
            [sys.executable, "-c", DIFF_HELPER],
            cwd=work,
            input=json.dumps(not_killed),
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        or "{}"
    )
    lines_by_path = {path: function_lines(work / path) for path in module.paths}
    mutants = []
    for mutant in not_killed:
        dotted, _, mangled = mutant.partition("__mutmut_")[0].rpartition(".")
        path = dotted.replace(".", "/") + ".py"
        if path not in lines_by_path:  # a package's __init__
            path = dotted.replace(".", "/") + "/__init__.py"
        line, change = locate(diffs[mutant], lines_by_path[path][mangled])
        mutants.append(
            {
                "name": mutant,
                "status": classify(verdicts[mutant]),
                "file": path,
                "line": line,
                "change": change,
            }
        )
    mutants.sort(key=lambda m: (m["file"], m["line"], m["change"]))
    if not args.keep:
        shutil.rmtree(base)
    detected = counts["killed"] + counts["timeout"]
    return {
        "module": name,
        "paths": list(module.paths),
        **counts,
        "score": detected / counts["generated"],
        "seconds": round(seconds),
        "not_killed": mutants,
        "copy": str(work) if args.keep else None,
    }


def digest(paths: list[str]) -> str:
    sha = hashlib.sha256()
    for path in paths:
        sha.update((REPO / path).read_bytes())
    return sha.hexdigest()


def print_table(results: list[dict]) -> None:
    header = f"{'module':<24}" + "".join(f"{c:>10}" for c in COLUMNS) + f"{'score':>8}{'time':>8}"
    print(header)
    for r in results:
        cells = "".join(f"{r[c]:>10}" for c in COLUMNS)
        print(f"{r['module']:<24}{cells}{r['score']:>8.1%}{r['seconds']:>7}s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--modules", nargs="+", choices=list(MODULES), default=list(MODULES))
    parser.add_argument("--max-children", type=int, default=os.cpu_count() or 2)
    parser.add_argument(
        "--timeout-multiplier",
        type=float,
        default=5.0,
        help="a mutant may run 2 x this x (its tests' time + 5 s) (default 5)",
    )
    parser.add_argument("--keep", action="store_true", help="keep each module's copy")
    parser.add_argument("--json", type=Path, help="write the results to this file")
    parser.add_argument("--list", action="store_true", help="print the modules and their tests")
    args = parser.parse_args()
    if args.list:
        for name, module in MODULES.items():
            print(f"{name}: {', '.join(module.paths)}")
            for test in module.tests:
                print(f"    {test}")
        return
    if importlib.util.find_spec("mutmut") is None:
        raise SystemExit('mutmut is missing: pip install -e ".[dev,mutation]"')
    paths = [p for name in args.modules for p in MODULES[name].paths]
    before = digest(paths)
    results = []
    start = time.monotonic()
    for name in args.modules:
        print(f"== {name}: {', '.join(MODULES[name].paths)}", flush=True)
        result = run_module(name, MODULES[name], args)
        results.append(result)
        print_table([result])
        for m in result["not_killed"]:
            print(f"  {m['status']:<9} {m['file']}:{m['line']}  {m['change']}")
        print(flush=True)
    if digest(paths) != before:  # this script never writes them: someone else did
        print("note: a module changed in the checkout during the run; the results are for the")
        print("version copied when its run started")
    print(f"== all ({(time.monotonic() - start) / 60:.1f} min)")
    print_table(results)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()

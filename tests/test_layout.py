"""The layout rules of the package: imports flow one way, and each idea is defined once."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import networkx as nx
import pytest

from selfdx.prompts import PROMPT_DIR, prompt_text

PACKAGE = Path(__file__).resolve().parents[1] / "selfdx"
# The stages in data-flow order; a module may import its own stage and the ones before it.
# Shared utilities come first; offline models, tasks and commands sit on top of everything.
STAGES = {
    "errors": 0,
    "arguments": 0,
    "prompts": 0,
    "gc_tuning": 0,
    "nan_notes": 0,  # why a metric is NaN: said by a hook of the tasks and by the report
    "shard_layout": 0,  # where sample shards live: read by the runner, the merge and the report
    "log_files": 0,  # every log in a folder: read by the report and the commands
    "datasets": 1,
    "run_facts": 1,  # what a run stands for: read by the tasks and the report
    "judge": 2,
    "instruments": 2,  # readers of free text beside the judge (DESIGN.md, "Instruments")
    "solvers": 3,
    "scorers": 4,
    "analysis": 5,
}
TOP = {
    "providers",
    "inspect_tasks",
    "cli",
    "sweep",
    "sweep_order",  # the order a sweep launches its tasks in
    "scheduler",  # `selfdx sweep --shard auto`: the shard from Slurm or Kubernetes
    "sample_shards",  # `selfdx sweep --split samples`
    "sweep_budget",  # `selfdx sweep --budget`
    "local_model",
    "_registry",
    "__init__",
    "task_names",  # a misspelled task named by `inspect eval`
    "listing",  # inspect_evals register entries
}


def modules(root: Path = PACKAGE) -> list[Path]:
    return sorted(root.rglob("*.py"))


def stage_of(module: str) -> str:
    return module.split(".")[1] if module.count(".") else ""


def selfdx_imports(path: Path, root: Path = PACKAGE) -> list[str]:
    """The `selfdx...` modules `path` imports (absolute and relative imports alike)."""
    package = ("selfdx", *path.relative_to(root).parent.parts)
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                found.append(".".join([*base, *([node.module] if node.module else [])]))
            elif node.module:
                found.append(node.module)
    return [name for name in found if name.split(".")[0] == "selfdx"]


def upward_imports(root: Path = PACKAGE) -> list[str]:
    """Every import of a later stage (or of the top) by a module of an earlier one."""
    upward = []
    for path in modules(root):
        stage = path.relative_to(root).with_suffix("").parts[0]
        if stage in TOP:
            continue
        for module in selfdx_imports(path, root):
            target = stage_of(module)
            if target in TOP or STAGES.get(target, 0) > STAGES[stage]:
                upward.append(f"{path.relative_to(root)} imports {module}")
    return upward


def test_every_module_belongs_to_a_stage():
    stages = {path.relative_to(PACKAGE).with_suffix("").parts[0] for path in modules()}
    assert stages <= set(STAGES) | TOP, stages - set(STAGES) - TOP


def test_no_reader_of_free_text_is_over_400_lines():
    """Issue 32: the readers live in the instrument stage as small modules."""
    long = {
        str(path.relative_to(PACKAGE)): lines
        for path in (PACKAGE / "instruments").rglob("*.py")
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > 400
    }
    assert not long, long


def test_imports_flow_one_way():
    upward = upward_imports()
    assert not upward, "\n".join(upward)


def test_the_import_check_finds_upward_imports(tmp_path):
    """The rule is not vacuous: a solver importing a scorer (absolute or relative) is found."""
    solvers = tmp_path / "solvers" / "safe_psych"
    solvers.mkdir(parents=True)
    (solvers / "loop.py").write_text(
        "from selfdx.scorers.safe_psych.outcome import case_outcome\n"
        "from ...analysis import report\n"
        "from selfdx.judge.behaviour import judge_reply\n"
    )
    assert upward_imports(tmp_path) == [
        "solvers/safe_psych/loop.py imports selfdx.scorers.safe_psych.outcome",
        "solvers/safe_psych/loop.py imports selfdx.analysis",
    ]


def dotted(path: Path, root: Path = PACKAGE) -> str:
    """`selfdx/analysis/report.py` -> `selfdx.analysis.report` (a package is its `__init__`)."""
    parts = ("selfdx", *path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def runtime_imports(path: Path, root: Path, known: set[str]) -> set[str]:
    """The selfdx modules `path` imports when it runs: at the top or inside a function (an
    import inside a function hides a loop, it does not remove it); `from package import
    module` counts as the module; imports only for type checkers do not count."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for inner in ast.walk(node)
    }
    package = ("selfdx", *path.relative_to(root).parent.parts)
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join([*package[: len(package) - node.level + 1], *filter(None, [base])])
            found |= {
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                for alias in node.names
            }
    return {name for name in found if name in known} - {dotted(path, root)}


def import_loops(root: Path = PACKAGE) -> list[list[str]]:
    """Every set of modules that import each other, directly or around a loop."""
    known = {dotted(path, root) for path in modules(root)}
    graph = nx.DiGraph()
    graph.add_nodes_from(known)
    for path in modules(root):
        graph.add_edges_from(
            (dotted(path, root), target) for target in runtime_imports(path, root, known)
        )
    return sorted(sorted(loop) for loop in nx.strongly_connected_components(graph) if len(loop) > 1)


def test_no_import_loops():
    """No two modules depend on each other, inside a folder or across folders."""
    loops = import_loops()
    assert not loops, loops


def test_the_loop_check_finds_a_loop_hidden_in_a_function(tmp_path):
    folder = tmp_path / "analysis"
    folder.mkdir()
    (folder / "logs.py").write_text(
        "def variant():\n    from selfdx.analysis.report import label\n    return label\n"
    )
    (folder / "report.py").write_text(
        "from typing import TYPE_CHECKING\nfrom selfdx.analysis import logs\n"
        "if TYPE_CHECKING:\n    from selfdx.analysis.typed import Row\n"
    )
    (folder / "typed.py").write_text("from selfdx.analysis.report import label\n")
    assert import_loops(tmp_path) == [["selfdx.analysis.logs", "selfdx.analysis.report"]]


def test_prompts_are_read_by_one_loader():
    """Only `selfdx.prompts` opens prompt files; every prompt file is non-empty text."""
    readers = [
        str(path.relative_to(PACKAGE))
        for path in modules()
        if re.search(r"[\"']prompts[\"']", path.read_text(encoding="utf-8"))
    ]
    assert readers == [], readers
    files = sorted(PROMPT_DIR.rglob("*.txt"))
    assert len(files) >= 30
    for file in files:
        name = file.relative_to(PROMPT_DIR).with_suffix("").as_posix()
        text = prompt_text(name)
        assert text and text == text.strip(), name


def literal_constants() -> dict[str, list[str]]:
    """Top-level constants with a literal collection value of two or more items, by value."""
    found: dict[str, list[str]] = {}
    for path in modules():
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
                name, value = node.targets[0].id, node.value
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                name, value = node.target.id, node.value
            else:
                continue
            try:
                literal = ast.literal_eval(value) if value is not None else None
            except ValueError:
                continue
            if isinstance(literal, tuple | list | set | frozenset | dict) and len(literal) >= 2:
                items = literal.items() if isinstance(literal, dict) else literal
                key = repr(sorted(repr(item) for item in items))
                found.setdefault(key, []).append(f"{path.relative_to(PACKAGE)}:{name}")
    return found


def test_no_constant_is_defined_twice():
    """A list of labels, keys or letters written out in two modules is one idea defined twice."""
    twice = [places for places in literal_constants().values() if len(places) > 1]
    assert not twice, twice


@pytest.mark.parametrize(
    ("user", "name", "owner"),
    [
        # MentalBench letter precision/recall/F1: the task metric and the report
        (
            "selfdx.analysis.mentalbench.report",
            "letter_ratio_parts",
            "selfdx.scorers.mentalbench.metrics",
        ),
        (
            "selfdx.scorers.mentalbench.metrics",
            "ratio_with_stderr",
            "selfdx.scorers.mentalbench.metrics",
        ),
        # judge agreement: the judge_check task and `selfdx judge-agreement`
        ("selfdx.analysis.judge_agreement", "label_agreement", "selfdx.judge.agreement"),
        ("selfdx.analysis.safe_psych.report", "cohen_kappa", "selfdx.judge.agreement"),
        ("selfdx.scorers.judge_check.metrics", "cohen_kappa", "selfdx.judge.agreement"),
        ("selfdx.scorers.judge_check.metrics", "LABELS", "selfdx.datasets.behaviour_labels"),
        ("selfdx.scorers.judge_check.metrics", "panel_alphas", "selfdx.judge.panel"),
        # Safe-Psych key groups: the task's results entry and the report's tables
        (
            "selfdx.analysis.safe_psych.report",
            "BEHAVIOUR_KEYS",
            "selfdx.scorers.safe_psych.outcome",
        ),
        # the option letters and the report cell format (Markdown and HTML)
        (
            "selfdx.instruments.answers.strict_parser",
            "LETTERS",
            "selfdx.datasets.mentalbench.schema",
        ),
        ("selfdx.analysis.report", "text_frame", "selfdx.analysis.metric_table"),
    ],
)
def test_users_share_the_one_definition(user, name, owner):
    assert getattr(importlib.import_module(user), name) is getattr(
        importlib.import_module(owner), name
    )


def test_every_benchmark_script_imports(monkeypatch):
    """bench/ is not run by the suite, but its scripts must at least import against the
    package as it is now (a renamed function once broke one silently)."""
    bench = PACKAGE.parent / "bench"
    monkeypatch.syspath_prepend(str(bench))
    for script in sorted(bench.glob("*.py")):
        if script.stem == "mutation":  # needs the mutation extra
            continue
        importlib.import_module(script.stem)


def test_the_folders_the_readme_makes_are_ignored_by_git():
    """The README's own clone of the MentalBench repository and the generated cases folder do
    not show up as untracked files of a checkout."""
    import shutil
    import subprocess

    root = Path(__file__).resolve().parents[1]
    if shutil.which("git") is None or not (root / ".git").exists():
        pytest.skip("not a git checkout")
    for path in ("MentalBench/resources/x.json", "generated/cases.jsonl"):
        done = subprocess.run(
            ["git", "check-ignore", "-q", path], cwd=root, capture_output=True, timeout=30
        )
        assert done.returncode == 0, f"{path} is not ignored by .gitignore"

"""Every command in README.md and docs/*.md, run as written, so no guide drifts from the code.

The commands are collected from the fenced `bash` blocks, one test per statement (a line with
its continuations, or a whole `for ... done` loop), and run in document order (README first,
then the guides by name) by bash with `set -eo pipefail` in one shared folder, as a reader
working through the guides would: the `logs/` one command writes is what a later
`selfdx report logs` reads. The folder holds `MentalBench`, a link to the published data in
`../shared/mentalbench` (what `git clone https://github.com/HoyunS/MentalBench` leaves), and
`$R` and `$KG` are set as the README sets them. A command that mentions `tests/`, `scripts/` or
`bench/` runs from the repository root. A trailing comment that is a bare number (`# 27`) is the
output the guide promises, and is checked.

Three things differ from a reader's run, all to keep the suite offline and short:
- `inspect eval` and `eval-set` on the published data (an argument naming `MentalBench`) get
  `--limit 5` unless the command sets a limit of at most 100 (the full runs, and the figures
  run with a larger limit, take minutes to hours);
- `/path/to/MentalBench/resources` and `/path/to/resources`, a guide's placeholder for your
  clone, become the linked folder; `logs/run.eval`, a guide's name for "a log of yours", is the
  newest Safe-Psych log of the folder;
- commands that cannot run here are skipped, each with a marker and the reason: `needs_key`
  (a provider's model: an API key), `needs_network` (the Hugging Face Hub, a clone, pip),
  `needs_local` (the `local` extra's SmolLM2 server: tests/test_local_model.py runs it),
  `needs_your_files` (your own annotations or a template such as `<log>` or `...`),
  `needs_cluster` (a Slurm or Kubernetes command: `.ci/slurm_array.sh` starts a real Slurm
  cluster instead), and `not_in_suite` (the test suite or a benchmark script itself).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT, SHARED

DOCS = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)
ASSIGNMENT = re.compile(r"^[A-Z_][A-Z0-9_]*=\S+$")
API_MODEL = re.compile(r"(?<![\w-])(openai|anthropic|google|vllm|mistral|together|grok)/[\w.-]+")
NUMBER_COMMENT = re.compile(r"^\d+$")
PUBLISHED_LIMIT = 5
LIMIT_CAP = 100  # a command's own --limit above this is lowered to PUBLISHED_LIMIT
README_SECTIONS = (
    "Safe-Psych",
    "MentalBench",
    "Interview",
    "Judge check",
    "Patient check",
    "Question check",
    "Case generation",
    "What the runs cost",
)
STEP_TIMEOUT = 300  # seconds for one statement; the longest here takes about 40
SHIM = """#!/usr/bin/env bash
# `inspect eval` / `eval-set` on the published data runs --limit {limit} in the docs test, unless
# the command sets a limit of at most {cap} (a larger one, a full figure's run, is lowered)
if [ "$1" = eval ] || [ "$1" = eval-set ]; then
  case " $* " in
    *MentalBench*)
      args=() limited=0 next=0
      for arg in "$@"; do
        if [ "$next" = 1 ]; then
          next=0
          [ "$arg" -gt {cap} ] 2>/dev/null && arg={limit}
        elif [ "$arg" = --limit ]; then
          next=1 limited=1
        elif [ "${{arg#--limit=}}" != "$arg" ]; then
          limited=1
          [ "${{arg#--limit=}}" -gt {cap} ] 2>/dev/null && arg=--limit={limit}
        fi
        args+=("$arg")
      done
      [ "$limited" = 1 ] || args+=(--limit {limit})
      set -- "${{args[@]}}" ;;
  esac
fi
exec "{real}" "$@"
"""


@dataclass(frozen=True)
class Statement:
    """One command of a guide: where it is, its text, what it prints (if promised)."""

    doc: Path
    line: int
    text: str
    expected: str | None = None

    @property
    def name(self) -> str:
        return f"{self.doc.relative_to(REPO_ROOT)}:{self.line}"


def strip_comment(line: str) -> tuple[str, str | None]:
    """The line without a trailing ` # comment` (outside quotes), and the comment."""
    quote = None
    for index, char in enumerate(line):
        if quote:
            quote = None if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (index == 0 or line[index - 1].isspace()):
            return line[:index].rstrip(), line[index + 1 :].strip()
    return line.rstrip(), None


def statements(doc: Path) -> list[Statement]:
    """The bash statements of a guide, in order."""
    text = doc.read_text(encoding="utf-8")
    found: list[Statement] = []
    for block in FENCE.finditer(text):
        if block.group(1) not in ("bash", "sh"):
            continue
        first = text[: block.start(2)].count("\n") + 1
        lines = block.group(2).splitlines()
        index = 0
        while index < len(lines):
            start = index
            code, comment = strip_comment(lines[index])
            index += 1
            if not code.strip():
                continue
            parts = [code]
            while parts[-1].endswith("\\") and index < len(lines):
                parts[-1] = parts[-1][:-1].rstrip()
                code, comment = strip_comment(lines[index])
                parts.append(code.strip())
                index += 1
            if parts[0].startswith("for "):  # the loop as written, up to its `done`
                while index < len(lines) and not re.match(r"done\b", lines[index - 1].strip()):
                    index += 1
                script = "\n".join(lines[start:index])
                comment = None
            else:
                script = " ".join(parts)
            expected = comment if comment and NUMBER_COMMENT.match(comment) else None
            found.append(Statement(doc, first + start, script, expected))
    return found


def why_not(statement: Statement) -> tuple[str, str] | None:
    """(marker, reason) for a command that cannot run in the offline suite, else None."""
    text = statement.text
    if re.match(r"(sbatch|squeue|kubectl)\b", text):
        return "needs_cluster", "a Slurm or Kubernetes cluster (.ci/slurm_array.sh runs Slurm)"
    if text.startswith("pip install"):
        return "needs_network", "installs packages (the install step of .ci/run does this)"
    if text.startswith("git "):
        return "needs_network", "a clone: the folder holds MentalBench linked to ../shared instead"
    if re.search(r"python -m pytest(?!.*--collect-only)|\.ci/run", text):
        return "not_in_suite", "runs the test suite itself"
    if re.search(r"(^|\s)bench/", text):
        return "not_in_suite", "a benchmark (docs/performance.md), not part of the test suite"
    if re.search(r"smollm2|local_model", text, re.I):
        return "needs_local", "needs the local extra's SmolLM2 (tests/test_local_model.py)"
    if API_MODEL.search(text):
        return "needs_key", f"a provider's model ({API_MODEL.search(text).group(0)}): an API key"
    if "s3://" in text:
        return "needs_network", "an object store (tests/test_s3_store.py runs these on a local S3)"
    if "data=hf" in text:
        return "needs_network", "the Hugging Face Hub"
    if re.search(r"<\w+>|\s\.\.\.(\s|$)|human\.csv|rejudged\.eval|judge\.jsonl", text):
        return "needs_your_files", "a template or files of your own (annotations, a <log>)"
    if ASSIGNMENT.match(text) or text.startswith("export "):
        return "setting", "sets a variable for the commands after it (set in every step here)"
    return None


ALL = [statement for doc in DOCS for statement in statements(doc)]


def parameters() -> list:
    """One pytest parameter per statement, with the marker and reason of those skipped."""
    found = []
    for statement in ALL:
        reason = why_not(statement)
        marks = []
        if reason is not None:
            marker, text = reason
            marks = [getattr(pytest.mark, marker), pytest.mark.skip(reason=f"{marker}: {text}")]
        found.append(pytest.param(statement, id=statement.name, marks=marks))
    return found


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> dict[str, object]:
    """The folder every guide's commands share, with the shim and environment."""
    folder = tmp_path_factory.mktemp("reader")
    shims = folder / ".shims"
    shims.mkdir()
    real = shutil.which("inspect", path=str(Path(sys.executable).parent)) or "inspect"
    shim = shims / "inspect"
    shim.write_text(SHIM.format(limit=PUBLISHED_LIMIT, cap=LIMIT_CAP, real=real), encoding="utf-8")
    shim.chmod(0o755)
    data = SHARED / "mentalbench"
    if data.is_dir():
        (folder / "MentalBench").symlink_to(data, target_is_directory=True)
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("INSPECT_EVAL_", "INSPECT_LOG", "SMOLLM2_"))
    }
    env |= {
        "PATH": os.pathsep.join([str(shims), str(Path(sys.executable).parent), env["PATH"]]),
        "R": "MentalBench/resources",
        "KG": "MentalBench/resources/knowledge_graph/EN",
        "INSPECT_DISPLAY": "none",
        "NO_COLOR": "1",
    }
    # what steps skipped for want of the published data would have written: a later step that
    # reads it is skipped too (a fresh clone without ../shared), as are the report's sections
    return {
        "folder": folder,
        "env": env,
        "has_data": data.is_dir(),
        "unwritten": set(),
        "unrun": set(),
    }


# Where a command writes: its log folder or output folder.
WRITES = re.compile(r"--(?:log-dir|out)[ =](\S+)")
TASK = re.compile(r"selfdx/(\w+)")
SECTION_OF_TASK = {"mentalbench_generate": "Case generation"}


def reads_unwritten(text: str, unwritten: set[str], folder: Path) -> str | None:
    """The output of a skipped step that this command reads, if any: the output itself, a path
    inside it, or a folder above it that no other step made (`logs/eval-report` when the
    skipped steps would have written `logs/eval-report/interview-$mode`)."""
    words = set(re.split(r"[\s=]+", text))

    def reads(path: str) -> bool:
        if path in words or any(w.startswith(path + "/") for w in words):
            return True
        return any(path.startswith(w + "/") and not (folder / w).exists() for w in words if w)

    return next((path for path in sorted(unwritten) if reads(path)), None)


def prepared(text: str, folder: Path) -> str:
    """The command with a guide's placeholders for your own paths filled in."""
    text = re.sub(r"/path/to/(MentalBench/)?resources", "MentalBench/resources", text)
    if "logs/run.eval" in text:
        made = sorted((folder / "logs").glob("*safe-psych*.eval"), key=lambda p: p.stat().st_mtime)
        assert made, "no Safe-Psych log for the guide's logs/run.eval: an earlier command made none"
        shutil.copyfile(made[-1], folder / "logs" / "run.eval")
    return text


@pytest.mark.slow
@pytest.mark.parametrize("statement", parameters())
def test_documented_command_runs_as_written(statement: Statement, workspace) -> None:
    folder: Path = workspace["folder"]  # type: ignore[assignment]
    unwritten: set[str] = workspace["unwritten"]  # type: ignore[assignment]
    if "MentalBench" in statement.text or "$R" in statement.text or "$KG" in statement.text:
        if not workspace["has_data"]:
            unwritten.update(WRITES.findall(statement.text))
            workspace["unrun"].update(TASK.findall(statement.text))  # type: ignore[union-attr]
            pytest.skip(f"needs the MentalBench data in {SHARED / 'mentalbench'}")
    earlier = reads_unwritten(statement.text, unwritten, folder)
    if earlier is not None:
        unwritten.update(WRITES.findall(statement.text))
        pytest.skip(
            f"reads {earlier}, written by an earlier step that needs the MentalBench data in "
            f"{SHARED / 'mentalbench'}"
        )
    from_root = (
        re.search(r"(^|\s)((tests|scripts|bench)/|selfdx/inspect_tasks/)", statement.text)
        is not None
    )
    script = "set -eo pipefail\n" + prepared(statement.text, folder)
    done = subprocess.run(
        ["bash", "-c", script],
        cwd=REPO_ROOT if from_root else folder,
        env=workspace["env"],  # type: ignore[arg-type]
        capture_output=True,
        text=True,
        timeout=STEP_TIMEOUT,
    )
    said = (done.stdout + done.stderr)[-3000:]
    assert done.returncode == 0, (
        f"{statement.name}: `{statement.text}` exited {done.returncode}:\n{said}"
    )
    assert "Traceback" not in done.stderr, f"{statement.name}: a traceback:\n{said}"
    if statement.doc.name == "README.md" and statement.text.startswith("selfdx report logs "):
        # the README's Run commands ran before it: a section for every task, and the costs
        report = (folder / "report" / "report.md").read_text(encoding="utf-8")
        skipped = {SECTION_OF_TASK.get(task) for task in workspace["unrun"]}  # type: ignore[union-attr]
        for title in README_SECTIONS:
            if title not in skipped:
                assert f"\n## {title}\n" in report, f"{statement.name}: no section {title}"
    if statement.expected is not None:
        assert done.stdout.strip() == statement.expected, (
            f"{statement.name}: the guide says {statement.expected}, the command printed "
            f"{done.stdout.strip()!r}"
        )


def test_the_collector_finds_every_documented_command() -> None:
    """The parser sees the README's first command, joins continuations and keeps loops whole."""
    readme = [s for s in ALL if s.doc.name == "README.md"]
    assert readme[0].text == 'pip install -e ".[dev]"'
    joined = next(s for s in ALL if s.text.startswith("inspect eval selfdx/mentalbench -T data=hf"))
    assert "\\" not in joined.text and "--log-dir logs/mentalbench/claude-sonnet-4-5" in joined.text
    loop = next(s for s in readme if s.text.startswith("for mode in"))
    assert loop.text.splitlines()[-1].strip() == "done" and "$mode" in loop.text
    counted = [s for s in ALL if s.expected is not None]  # the promised outputs
    assert {s.doc.name for s in counted} == {"reliability.md"} and len(counted) >= 2
    runnable = [s for s in ALL if why_not(s) is None]
    assert len(runnable) >= 30 and len(ALL) >= 80

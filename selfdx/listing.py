"""inspect_evals register entries for selfdx's tasks (one task each, this repository and a
commit), from the listing card `selfdx/inspect_tasks/eval.yaml` and, where `selfdx report` wrote
one, the task's evaluation report block (`evaluation_reports/<task>.yaml`).

inspect_evals lists an evaluation kept in its own repository by a register entry,
`register/<id>/eval.yaml` in its repository (its `ExternalEvalMetadata` schema, inspect_evals
0.26): full and common title, description, contributors, the task with its file, the source
repository and commit, optional arXiv link, tags and evaluation report.

    python -m selfdx.listing --repository-url https://github.com/OWNER/selfdx \
        --commit <commit> --reports report/evaluation_reports --out register
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

import yaml

from selfdx.errors import SelfdxError

CARD = Path(__file__).parent / "inspect_tasks" / "eval.yaml"
COMMON_TITLES = {
    "safe_psych": "Safe-Psych",
    "mentalbench": "MentalBench",
    "mentalbench_generate": "MentalBench case generation",
    "interview": "selfdx diagnostic interview",
    "judge_check": "Safe-Psych judge check",
    "patient_check": "selfdx patient check",
    "question_check": "selfdx question check",
    "risk_response_check": "selfdx risk-response check",
}
ARXIV = {
    "safe_psych": "https://arxiv.org/abs/2607.13036",
    "mentalbench": "https://arxiv.org/abs/2602.12871",
    "mentalbench_generate": "https://arxiv.org/abs/2602.12871",
    "judge_check": "https://arxiv.org/abs/2607.13036",
}


def register_entries(
    repository_url: str, commit: str, reports: Path | None = None
) -> dict[str, dict[str, Any]]:
    """Register entries by id (`selfdx-<task>`), one task each."""
    if not re.fullmatch(r"[0-9a-f]{40}", commit):
        raise SelfdxError(f"commit: {commit!r} is not a full 40-hex-digit git commit")
    if not repository_url.startswith("https://"):
        raise SelfdxError(f"repository URL: {repository_url!r} must be an https:// URL")
    card = yaml.safe_load(CARD.read_text(encoding="utf-8"))
    entries = {}
    for task in card["tasks"]:
        name = task["name"]
        entry: dict[str, Any] = {
            "full_title": f"{COMMON_TITLES[name]} (selfdx/{name})",
            "common_title": COMMON_TITLES[name],
            "description": " ".join(
                f"{task.get('comment', '').capitalize()}. {card['description']}".split()
            ),
            "contributors": list(card["contributors"]),
            "tasks": [
                {
                    "name": name,
                    "task_path": f"selfdx/inspect_tasks/{name}.py",
                    **{k: task[k] for k in ("dataset_samples", "kind") if k in task},
                }
            ],
            "tags": list(card.get("tags", [])),
            "source": {"repository_url": repository_url, "repository_commit": commit},
        }
        if name in ARXIV:
            entry["arxiv"] = ARXIV[name]
        block = reports / f"{name}.yaml" if reports else None
        if block is not None and block.is_file():
            entry["evaluation_report"] = yaml.safe_load(block.read_text(encoding="utf-8"))
        entries[f"selfdx-{name.replace('_', '-')}"] = entry
    return entries


def write_register_entries(entries: dict[str, dict[str, Any]], out: Path) -> list[Path]:
    """`<out>/<id>/eval.yaml` for each entry."""
    written = []
    for entry_id, entry in entries.items():
        folder = out / entry_id
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "eval.yaml"
        text = yaml.safe_dump(entry, sort_keys=False, allow_unicode=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    """Write `register/selfdx-<task>/eval.yaml` for every task."""
    parser = argparse.ArgumentParser(
        prog="python -m selfdx.listing", description="inspect_evals register entries for selfdx"
    )
    parser.add_argument("--repository-url", required=True, help="https:// URL of the repository")
    parser.add_argument("--commit", required=True, help="the full, pushed commit they name")
    parser.add_argument("--reports", type=Path, help="a report's evaluation_reports/ folder")
    parser.add_argument("--out", type=Path, default=Path("register"), help="output folder")
    args = parser.parse_args(argv)
    try:
        entries = register_entries(args.repository_url, args.commit, args.reports)
    except SelfdxError as error:
        print(f"selfdx.listing: error: {error}", file=sys.stderr)
        return 2
    for path in write_register_entries(entries, args.out):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())

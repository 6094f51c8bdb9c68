"""Every prompt selfdx sends, as text files in this folder, and the one way to read them.

Sub-folders by use: `safe_psych/`, `mentalbench/`, `mentalbench_generate/` and `interview/`
(the subject's prompts), `judge/` (the behaviour judge), `rubrics/` (the graders of the
clinical rubrics and of generated cases), and `question_check/` and `risk_response_check/` (the
instruments served by a model role).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

PROMPT_DIR = Path(__file__).parent


@cache
def prompt_text(name: str) -> str:
    """The prompt `<name>.txt` (e.g. `"safe_psych/system"`), without surrounding whitespace."""
    return (PROMPT_DIR / f"{name}.txt").read_text(encoding="utf-8").strip()

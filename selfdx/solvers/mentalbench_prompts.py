"""MentalBench choice prompts (spec 2) and the solver that puts one in front of the model.

Three styles, each a text file under `prompts/mentalbench/` laid out as case, instructions,
options, `Answer:`:

- `single`: the single most likely diagnosis (the released runner's choice for Types 1-2);
- `multiple`: every diagnosis consistent with the case ("select all that apply");
- `hybrid`: decide whether one or several diagnoses apply, then give them (the released
  runner's choice for Types 3-4, where the reference code calls it `clear`).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from pathlib import Path

from inspect_ai.model import ChatMessageUser
from inspect_ai.solver import Generate, Solver, TaskState, solver

from selfdx.datasets.mentalbench_schema import LETTERS
from selfdx.errors import ArgumentError

PROMPT_DIR = Path(__file__).parent / "prompts" / "mentalbench"
STYLES: tuple[str, ...] = ("single", "hybrid", "multiple")
# Names the reference code's `--prompt_style` uses for the same prompts.
STYLE_ALIASES = {"clear": "hybrid", "normal": "multiple", "default": "multiple"}
DEFAULT_STYLE_BY_TYPE = {1: "single", 2: "single", 3: "hybrid", 4: "hybrid"}


def check_style(style: str | None) -> str | None:
    """`style` as one of the three names (aliases resolved), or None for the per-type default."""
    if style is None:
        return None
    name = STYLE_ALIASES.get(str(style).strip().lower(), str(style).strip().lower())
    if name not in STYLES:
        known = ", ".join(STYLES)
        raise ArgumentError(f"prompt_style: {style!r} is not one of {known} (or None per type)")
    return name


def style_for(style: str | None, type_: int) -> str:
    """The style used for an item of `type_`: the chosen one, else the released runner's."""
    return check_style(style) or DEFAULT_STYLE_BY_TYPE[type_]


@cache
def template(style: str) -> str:
    return (PROMPT_DIR / f"{style}.txt").read_text(encoding="utf-8").strip()


def render_prompt(style: str, narrative: str, options: Sequence[str]) -> str:
    """The full user message for one item."""
    letters = LETTERS[: len(options)]
    block = "\n".join(f"{letter}. {name}" for letter, name in zip(letters, options, strict=True))
    shown = ", ".join(letters[:-1]) + f" or {letters[-1]}"
    return template(style).format(narrative=narrative.strip(), options=block, letters=shown)


ANSWER_FORMATS: tuple[str, ...] = ("letters", "free_text")


def check_answer_format(answer_format: str) -> str:
    if not isinstance(answer_format, str) or answer_format not in ANSWER_FORMATS:
        raise ArgumentError(f"answer_format: {answer_format!r} is not letters or free_text")
    return answer_format


@solver
def mentalbench_prompt(prompt_style: str | None = None, answer_format: str = "letters") -> Solver:
    """Replace the sample input by the rendered prompt (one user turn, no system message).

    With `answer_format="free_text"` the options are not shown: the model names the diagnosis in
    words (template `free_text.txt`), and the grader later maps its answer to the options.
    """
    chosen = check_style(prompt_style)
    check_answer_format(answer_format)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        style = style_for(chosen, int(state.metadata["type"]))
        if answer_format == "free_text":
            style = "free_text"
        options = [choice.value for choice in state.choices]
        text = render_prompt(style, state.input_text, options)
        state.messages = [ChatMessageUser(content=text)]
        state.metadata["prompt_style"] = style
        return state

    return solve

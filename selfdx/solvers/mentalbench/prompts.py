"""MentalBench choice prompts (the released runner's three styles) and the solver that puts one
in front of the model.

Three styles, each a text file under `selfdx/prompts/mentalbench/` laid out as case, instructions,
options, `Answer:`:

- `single`: the single most likely diagnosis (the released runner's choice for Types 1-2);
- `multiple`: every diagnosis consistent with the case ("select all that apply");
- `hybrid`: decide whether one or several diagnoses apply, then give them (the released
  runner's choice for Types 3-4, where the reference code calls it `clear`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, get_args

from inspect_ai.model import ChatMessageUser
from inspect_ai.solver import Generate, Solver, TaskState, solver

from selfdx.arguments import choice
from selfdx.datasets.mentalbench.schema import LETTERS, AnswerFormat
from selfdx.prompts import prompt_text

Style = Literal["single", "hybrid", "multiple"]
STYLES: tuple[str, ...] = get_args(Style)
# Names the reference code's `--prompt_style` uses for the same prompts.
STYLE_ALIASES = {"clear": "hybrid", "normal": "multiple", "default": "multiple"}
DEFAULT_STYLE_BY_TYPE = {1: "single", 2: "single", 3: "hybrid", 4: "hybrid"}


def check_style(style: str | None) -> str | None:
    """`style` as one of the three names (aliases resolved), or None for the per-type default."""
    if style is None:
        return None
    name = str(style).strip().lower()
    return choice("prompt_style", STYLE_ALIASES.get(name, name), Style)


def style_for(style: str | None, type_: int) -> str:
    """The style used for an item of `type_`: the chosen one, else the released runner's."""
    return check_style(style) or DEFAULT_STYLE_BY_TYPE[type_]


def template(style: str) -> str:
    """The prompt of `style` (file `selfdx/prompts/mentalbench/<style>.txt`)."""
    return prompt_text(f"mentalbench/{style}")


def render_prompt(style: str, narrative: str, options: Sequence[str]) -> str:
    """The full user message for one item."""
    letters = LETTERS[: len(options)]
    block = "\n".join(f"{letter}. {name}" for letter, name in zip(letters, options, strict=True))
    shown = ", ".join(letters[:-1]) + f" or {letters[-1]}"
    return template(style).format(narrative=narrative.strip(), options=block, letters=shown)


def check_answer_format(answer_format: str) -> AnswerFormat:
    """`answer_format` if it is `letters` or `free_text`, else an ArgumentError."""
    return choice("answer_format", answer_format, AnswerFormat)


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

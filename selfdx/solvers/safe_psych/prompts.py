"""Safe-Psych prompting strategies (the reference code's four, and `structured_actions`) and the
user message of each turn.

The templates are text files under `selfdx/prompts/safe_psych/`, one per strategy and turn kind
(`first`, `next`, `final`), with `{sections}` where the revealed section text goes.
"""

from __future__ import annotations

from selfdx.datasets.strategies import is_full_info
from selfdx.prompts import prompt_text


def template(name: str) -> str:
    """The text of prompt template `name` (file `selfdx/prompts/safe_psych/<name>.txt`)."""
    return prompt_text(f"safe_psych/{name}")


def system_prompt() -> str:
    """The system message shared by every strategy."""
    return template("system")


def join_sections(sections: list[str] | tuple[str, ...]) -> str:
    """Raw section contents separated by a blank line, with no headers."""
    return "\n\n".join(section.strip() for section in sections)


def turn_prompt(strategy: str, sections: list[str], stage: int) -> str:
    """The user message for `stage` (1-based) of a case whose compacted sections are `sections`.

    Full-info strategies have one turn with every section. Sequential strategies show only the
    newly revealed section; the last stage adds the strategy's final notice after a blank line.
    `strategy` is a checked one (`datasets.strategies.check_strategy`, done by the task).
    """
    if is_full_info(strategy):
        return template(strategy).format(sections=join_sections(sections))
    kind = "first" if stage == 1 else "next"
    text = template(f"{strategy}_{kind}").format(sections=sections[stage - 1].strip())
    if stage == len(sections):
        text = f"{text}\n\n{template(f'{strategy}_final')}"
    return text

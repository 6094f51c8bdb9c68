"""Prompts that ask a model to write a MentalBench case from a sampled profile.

The system prompt sets the style: `chart` (a psychiatrist's third-person case summary, the
default for Type 1) or `self-report` (the patient speaking, the default for Types 2-4). The
user prompt states the variant's task (`task_type<N>.txt`) and the profile as labelled lines,
which both a model and the offline `selfdx/case-writer` read. Templates live in
`selfdx/prompts/mentalbench_generate/`.
"""

from __future__ import annotations

from typing import Literal, get_args

from inspect_ai.model import ChatMessageSystem, ChatMessageUser, model_roles
from inspect_ai.solver import Generate, Solver, TaskState, solver

from selfdx.arguments import choice
from selfdx.datasets.mentalkg.profile_schema import CaseProfile, SampledCriteria
from selfdx.prompts import prompt_text

Style = Literal["chart", "self-report"]
STYLES: tuple[str, ...] = get_args(Style)
STYLE_ALIASES = {"self_report": "self-report", "selfreport": "self-report", "report": "self-report"}
PROFILE_START = "=== PROFILE ==="
PROFILE_END = "=== END OF PROFILE ==="


def check_style(style: str | None) -> str | None:
    """`chart`, `self-report`, or None for the per-type default."""
    if style is None:
        return None
    name = str(style).strip().lower()
    return choice("style", STYLE_ALIASES.get(name, name), Style)


def style_for(style: str | None, variant: str) -> str:
    return check_style(style) or ("chart" if variant == "1" else "self-report")


def template(name: str) -> str:
    """The prompt `name` (file `selfdx/prompts/mentalbench_generate/<name>.txt`)."""
    return prompt_text(f"mentalbench_generate/{name}")


def system_prompt(style: str, min_words: int, max_words: int) -> str:
    name = "system_chart" if style == "chart" else "system_self_report"
    return template(name).format(min_words=min_words, max_words=max_words)


def yes_no(flag: bool) -> str:
    return "yes" if flag else "no"


def criteria_lines(criteria: SampledCriteria) -> list[str]:
    lines = []
    if criteria.duration:
        lines.append(f"Duration of illness: {criteria.duration}")
    if criteria.functional_impairment is not None:
        domains = (
            f" ({', '.join(criteria.impairment_domains)})" if criteria.impairment_domains else ""
        )
        if criteria.functional_impairment:
            lines.append(f"Functional impairment: yes{domains}")
        else:
            lines.append("Functional impairment: no marked impairment of functioning")
    if criteria.stressor is not None:
        s = criteria.stressor
        line = f"Stressor: {s.kind}, {s.event_class} ({s.event_description})"
        if s.exposure:
            line += f"; exposure: {s.exposure} ({s.exposure_description})"
        lines.append(line)
    for requirement in criteria.additional_requirements:
        lines.append(f"Requirement: {requirement}")
    return lines


def diagnosis_lines(profile: CaseProfile) -> list[str]:
    names = {option.code: option.name for option in profile.options}
    if profile.pair is None:
        return [f"Target diagnosis (guidance only, never name it): {profile.disorder_name}"]
    main, sub = names[profile.pair.main], names[profile.pair.sub]
    if profile.variant == "3":
        return [
            f"Suspected condition A (never name it): {main}",
            f"Suspected condition B (never name it): {sub}",
        ]
    target, other = (main, sub) if profile.variant == "4a" else (sub, main)
    return [
        f"Target diagnosis (guidance only, never name it): {target}",
        f"Main alternative (never name it): {other}",
    ]


def differential_lines(profile: CaseProfile) -> list[str]:
    pair = profile.pair
    if pair is None:
        return []
    condition = pair.condition or "none beyond the listed symptoms"
    lines = [f"Co-occurring condition: {condition}", f"Key difference: {pair.key_difference}"]
    if profile.variant == "3":
        lines += [
            f"Rule for condition A: {pair.rule_main}",
            f"Rule for condition B: {pair.rule_sub}",
        ]
        return lines
    target_is_main = profile.variant == "4a"
    target_rule, other_rule = (
        (pair.rule_main, pair.rule_sub) if target_is_main else (pair.rule_sub, pair.rule_main)
    )
    requirements = pair.requirements_main if target_is_main else pair.requirements_sub
    lines += [f"Rule for the target: {target_rule}", f"Rule for the alternative: {other_rule}"]
    lines += [f"Requirement: {requirement}" for requirement in requirements]
    return lines


def render_profile(profile: CaseProfile) -> str:
    """The profile as labelled lines: patient, diagnosis, symptoms by group, criteria, pair."""
    p = profile.persona
    lines = [
        f"Age: {p.age}",
        f"Gender: {p.gender}",
        f"Occupation: {p.occupation}",
        f"Marital status: {p.marital_status}",
        *diagnosis_lines(profile),
    ]
    by_code = {symptom.code: symptom for symptom in profile.symptoms}
    for group in profile.groups:
        notes = []
        if group.duration:
            notes.append(f"duration {group.duration}")
        if group.functional_impairment is not None:
            notes.append(f"functional impairment {yes_no(group.functional_impairment)}")
        suffix = f" ({'; '.join(notes)})" if notes else ""
        lines.append(f"Symptom group: {group.name.replace('_', ' ')}{suffix}")
        for code in group.symptoms:
            symptom = by_code[code]
            label = symptom.expression_name or symptom.name.replace("_", " ")
            lines.append(f"- {label}: {symptom.expression}")
    if profile.criteria is not None:
        lines += criteria_lines(profile.criteria)
    lines += differential_lines(profile)
    return "\n".join(lines)


def task_text(variant: str) -> str:
    return template(f"task_type{variant[0]}")


def user_prompt(profile: CaseProfile) -> str:
    return template("user").format(task=task_text(profile.variant), profile=render_profile(profile))


@solver
def case_writing_prompt(
    style: str | None, min_words: int, max_words: int, require_grader: bool = False
) -> Solver:
    """Put the system and user prompts for the sample's profile in front of the model.

    With `require_grader`, stop before any case is written when no `grader` role is bound.
    """

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        if require_grader and "grader" not in model_roles():
            raise RuntimeError(
                "grade=true needs a grader: bind one with --model-role grader=<model>"
            )
        profile = CaseProfile.model_validate(state.metadata["profile"])
        chosen = style_for(style, profile.variant)
        state.metadata["style"] = chosen
        state.messages = [
            ChatMessageSystem(content=system_prompt(chosen, min_words, max_words)),
            ChatMessageUser(content=user_prompt(profile)),
        ]
        return state

    return solve

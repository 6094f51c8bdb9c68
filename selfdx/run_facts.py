"""What a run of a selfdx task stands for, decided once from the task's arguments: its variant
(the label of a report row), whether it asks the `grader` role, and which tasks are benchmarks
and which are checks.

Each task records these facts in its log when it runs (`task_facts`: `eval.metadata["variant"]`,
`["asks_grader"]` and `["changed_args"]`, next to Inspect's own record of the resolved arguments in
`eval.task_args`). The report reads them back (`logged_facts`) and, for a log written before the
tasks recorded them, works them out from the logged arguments with these same functions.
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Callable, Collection
from typing import Any

from selfdx.datasets.interview.styles import normalise_styles
from selfdx.datasets.strategies import asks_judge

BENCHMARKS = ("safe_psych", "mentalbench", "interview")
# Tasks that measure a grader, a simulator or a case writer: the report shows their metrics as
# the task computed them (from the log's header), one column per run.
CHECKS = (
    "judge_check",
    "patient_check",
    "question_check",
    "risk_response_check",
    "mentalbench_generate",
)
# The model role a check measures (the judge, the patient); the writer is the run's model.
CHECKED_ROLE = {
    "judge_check": "grader",
    "patient_check": "patient",
    "question_check": "reader",
    "risk_response_check": "grader",
}
# Arguments that never enter a check's label: where the data is, and the seed of a repeat.
UNLABELLED = ("data", "kg", "seed")
# What every task records in its log's metadata.
FACTS = ("variant", "asks_grader", "changed_args")
# A sample id's type (`t1-...`, `demo-t4a-...`) and patient style (`...@guarded`).
SAMPLE_TYPE = re.compile(r"(?:^|-)t(\d[ab]?)-")
SAMPLE_STYLE = re.compile(r"@([a-z_]+)$")


def task_facts(benchmark: str, task_function: Callable[..., Any], given: dict[str, Any]) -> dict:
    """The facts a task records in its log's metadata. `given` is the task function's
    `locals()` on entry (every argument, defaults included); an argument counts as changed
    when it differs from the function's own default."""
    parameters = {
        name: parameter
        for name, parameter in inspect.signature(task_function).parameters.items()
        if parameter.kind is not inspect.Parameter.VAR_KEYWORD  # `**unknown`, refused anyway
    }
    args = {name: as_logged(value) for name, value in given.items() if name in parameters}
    defaults = {
        name: as_logged(parameter.default)
        for name, parameter in parameters.items()
        if parameter.default is not inspect.Parameter.empty
    }
    changed = {name for name, value in args.items() if defaults.get(name, value) != value}
    return {
        "variant": variant_of(benchmark, args, changed),
        "asks_grader": asks_grader(benchmark, args),
        "changed_args": sorted(changed),
    }


def as_logged(value: Any) -> Any:
    """A value as a log holds it (a tuple becomes a list)."""
    return json.loads(json.dumps(value, default=str))


def logged_facts(benchmark: str, metadata: dict, args: dict, passed: Collection[str]) -> dict:
    """The facts a log's task recorded; for an older log, worked out from its arguments
    (`args`, resolved by Inspect) with the names the user passed standing for those changed."""
    if all(name in metadata for name in FACTS):
        return {name: metadata[name] for name in FACTS}
    return {
        "variant": variant_of(benchmark, args, set(passed)),
        "asks_grader": asks_grader(benchmark, args),
        "changed_args": sorted(passed),
    }


def variant_of(benchmark: str, args: dict[str, Any], changed: Collection[str]) -> str:
    """The configuration a row of the report stands for: the strategy, the types run, or (for
    a check) the arguments that differ from the task's defaults."""
    if benchmark == "safe_psych":
        return str(args["strategy"])
    if benchmark == "interview":
        return interview_variant(args, changed)
    if benchmark in CHECKS:
        shown = sorted(name for name in changed if name not in UNLABELLED)
        return ", ".join(f"{name}={setting_text(args[name])}" for name in shown) or "defaults"
    types = args.get("types")
    style = args.get("prompt_style")
    if isinstance(types, list | tuple) and types != [1, 2, 3, 4]:
        types = ",".join(str(t) for t in types)  # `-T types=1,2` is logged as a list
    label = "all types" if types in (None, "", [1, 2, 3, 4]) else f"types {types}"
    if style:
        label += f", {style} prompt"
    if args.get("answer_format") == "free_text":
        label += ", free text"
    return label


def asks_grader(benchmark: str, args: dict[str, Any]) -> bool:
    """Whether a run of this configuration calls the `grader` role at all: a grader bound for a
    whole sweep is not the judge of a run that never asks it."""
    if benchmark == "safe_psych":
        return asks_judge(str(args["strategy"]), args.get("scorers"))
    if benchmark == "mentalbench":
        return args.get("answer_format") == "free_text"
    if benchmark == "interview":  # its risk turns, with risk_grader=model
        return args.get("risk_grader") == "model"
    return benchmark not in CHECKED_ROLE  # a check's own grader is the model it measures


def interview_variant(
    args: dict[str, Any], changed: Collection[str], with_style: bool = True
) -> str:
    """The row label of an interview run: mode, types, and the settings changed from the
    defaults (the patient styles among them, so runs with other patients never pool; a model
    risk grader, so its risk figures are never read as the offline grader's)."""
    mode = args["mode"]
    types = args["types"]
    if isinstance(types, list | tuple):
        types = ",".join(str(t) for t in types)
    label = f"{mode}, types {types}"
    if mode == "interview" and "max_questions" in changed:
        label += f", {args['max_questions']} questions"
    if args.get("answer_format") == "free_text":
        label += ", free text"
    if "cases" in changed and args.get("data") != "demo":
        label += f", {args['cases']} cases"
    if args.get("risk_grader") == "model":
        label += ", risk graded by model"
    styles = styles_of(args)
    if with_style and styles != ["plain"]:
        label += f", patient {'+'.join(styles)}"
    return label


def styles_of(args: dict[str, Any]) -> list[str]:
    """The patient styles a run's arguments name (`plain` for a log from before the styles)."""
    return normalise_styles(args.get("patient_style") or "plain")


def setting_text(value: Any) -> str:
    """A setting's value as a label shows it: text as is, unset as `default` (a run that left
    it to the provider or the task), anything else as JSON."""
    if value is None:
        return "default"
    return value if isinstance(value, str) else json.dumps(value, default=str)


def uncovered(metadata: dict[str, Any], sample_ids: list[Any] | None) -> str:
    """What of its types and patient styles a run limited to `sample_ids` never ran, as
    "only type 1 and styles plain+guarded ran"; "" when it ran each of them (or its ids do
    not say)."""
    parts = []
    for what, names, pattern, joiner in (
        ("type", metadata.get("variants"), SAMPLE_TYPE, ","),
        ("style", metadata.get("patient_styles"), SAMPLE_STYLE, "+"),
    ):
        if not names or not sample_ids:
            continue
        found = {m.group(1) for i in sample_ids if (m := pattern.search(str(i)))}
        ran = [name for name in map(str, names) if name in found]
        if found and len(ran) < len(names):  # ids without a type or style say nothing
            plural = "s" if len(ran) > 1 else ""
            parts.append(f"{what}{plural} {joiner.join(ran)}")
    return f"only {' and '.join(parts)} ran" if parts else ""

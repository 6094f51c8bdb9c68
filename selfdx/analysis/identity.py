"""What a log ran and on what, with what settings: the selfdx task, the model roles, the data
identity and the grouping key.

Two logs are repeats ("seeds") of one configuration only when their grouping keys are equal:
same task, model (and model arguments and sampling settings other than the seed), judge(s),
every other model role (the interview's patient), task arguments (other than seed-like ones)
and data identity. Everything else is a separate row.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

from inspect_ai.log import EvalLog

from selfdx.solvers.interview.solver import DEFAULT_PATIENT

# Task arguments that do not change what is measured: seeds make repeats, a cache only saves calls.
REPEAT_TASK_ARGS = frozenset({"seed", "judge_cache"})
# The scorer `inspect score` appends to re-judge a Safe-Psych log (`scorers.safe_psych.rejudge`).
REJUDGE_SCORER = "safe_psych_rejudge"
# Sampling settings that change the model's replies (the seed is left out: seeds are repeats).
SAMPLING_FIELDS = (
    "temperature",
    "top_p",
    "top_k",
    "max_tokens",
    "system_message",
    "stop_seqs",
    "frequency_penalty",
    "presence_penalty",
    "logit_bias",
    "num_choices",
    "best_of",
    "reasoning_effort",
    "reasoning_tokens",
    "reasoning_mode",
    "effort",
    "verbosity",
)


# Limits on a sample that cut a conversation short (`--message-limit`, `--token-limit` ...):
# a run under another limit measures something else, never a repeat.
LIMIT_FIELDS = (
    "message_limit", "token_limit", "token_limit_type", "turn_limit", "time_limit", "working_limit",
    "cost_limit",
)  # fmt: skip
JUDGE_ROLE = re.compile(r"grader(_\d+)?")
# Tasks whose `patient` role falls back to the offline patient when it is not bound.
PATIENT_TASKS = ("interview", "patient_check")


def selfdx_task(log: EvalLog) -> str | None:
    """The selfdx task a log ran (`selfdx/interview` -> `interview`), also when Inspect ran it
    from the package folder (`selfdx/inspect_tasks/interview.py`); None for any other task,
    a user's own task called `interview` included."""
    spec = log.eval
    name = spec.task_registry_name or spec.task or ""
    if name.startswith("selfdx/"):
        return name.split("/", 1)[1]
    if spec.task_file:
        path = PurePath(spec.task_file)
        if path.parent.name == "inspect_tasks" and path.parent.parent.name == "selfdx":
            return path.stem
    return None


def model_roles_of(log: EvalLog) -> dict[str, str]:
    """Every model role of a run, by role name: those bound for it, and the offline patient of
    the interview and the patient check when no `patient` was bound."""
    roles = {name: config.model for name, config in (log.eval.model_roles or {}).items()}
    if selfdx_task(log) in PATIENT_TASKS and "patient" not in roles:
        roles["patient"] = DEFAULT_PATIENT
    return roles


def judges_of(log: EvalLog) -> list[str]:
    """The models of the judge roles (`grader`, and `grader_2` ... of a panel), in order."""
    roles = model_roles_of(log)
    return [roles[name] for name in sorted(roles, key=_role_order) if JUDGE_ROLE.fullmatch(name)]


def _role_order(name: str) -> tuple[int, str]:
    number = name.rpartition("_")[2]
    return (int(number) if number.isdigit() else 1, name)


def other_roles(log: EvalLog) -> dict[str, str]:
    """The model roles that are not judges (the interview's patient)."""
    return {n: m for n, m in model_roles_of(log).items() if not JUDGE_ROLE.fullmatch(n)}


def _digest(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class DataIdentity:
    """Where a log's cases came from (`source`) and which cases exactly (`id`, 12 hex digits)."""

    source: str
    id: str
    cases: int
    content_hash: bool  # True when the task recorded a hash of the loaded samples' content


def data_source(log: EvalLog) -> str:
    """`demo`, `hf:<dataset>@<revision>` or the path, as the task recorded or its arguments say."""
    meta = log.eval.metadata or {}
    if meta.get("data_source"):
        return str(meta["data_source"])
    args = log.eval.task_args or {}
    data = args.get("data")
    if data is None:
        return log.eval.dataset.location or log.eval.dataset.name or "unknown"
    if data == "hf":
        return f"hf:{log.eval.dataset.name or log.eval.task}@{args.get('revision', '')}"
    return str(data)


def data_identity(log: EvalLog) -> DataIdentity:
    """The data a log ran on: the task's content hash when it recorded one (`data_sha256`),
    else its data arguments; always with the source (so two copies of one file at two paths
    stay apart, as their `data` arguments differ) and the sorted ids of the samples run (so
    `--limit` and `--sample-id` subsets are different data)."""
    meta = log.eval.metadata or {}
    args = log.eval.task_args or {}
    source = data_source(log)
    content = meta.get("data_sha256")
    basis = content or {
        "source": source,
        "data": args.get("data"),
        "revision": args.get("revision"),
        "dataset": log.eval.dataset.name,
    }
    ids = log.eval.dataset.sample_ids
    samples = sorted(map(str, ids)) if ids is not None else log.eval.dataset.samples
    return DataIdentity(
        source=source,
        id=_digest({"data": basis, "source": source, "samples": samples})[:12],
        cases=len(ids) if ids is not None else (log.eval.dataset.samples or 0),
        content_hash=bool(content),
    )


def sampling_settings(log: EvalLog) -> dict[str, Any]:
    """The model's sampling settings that change its replies (None left out)."""
    config = log.eval.model_generate_config
    if config is None:
        return {}
    return {f: getattr(config, f) for f in SAMPLING_FIELDS if getattr(config, f, None) is not None}


# Arguments that name a set, however written: `types=1,2` (a string from `selfdx sweep`, a list
# from `-T`), `types=2,1` and `patient_style=[plain]` are the runs of `types=1,2` and `plain`.
SET_ARGS = frozenset({"types", "patient_style", "generators", "disorders"})


def _as_set(value: Any) -> Any:
    items = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, list | tuple):
        return value
    return ",".join(sorted({str(item).strip() for item in items if str(item).strip()}))


def settings(log: EvalLog) -> dict[str, Any]:
    """Every setting of the grouping key other than model, judge and data, by display name."""
    args = {
        name: value
        for name, value in (log.eval.task_args or {}).items()
        if name not in REPEAT_TASK_ARGS and name != "data"
    }
    found = {
        f"{name}": _as_set(value) if name in SET_ARGS else value for name, value in args.items()
    }
    found |= {f"model {name}": value for name, value in sampling_settings(log).items()}
    found |= {f"role {name}": model for name, model in other_roles(log).items()}
    for field in LIMIT_FIELDS:
        limit = getattr(log.eval.config, field, None)
        if limit is not None:
            found[field.replace("_", " ")] = limit
    # a log scored again by `inspect score -S parser=reference` keeps the task's arguments but
    # was scored otherwise: its scorer's arguments set it apart (a re-judging's own scorer,
    # appended beside the task's, is reported as a row of its own and leaves the key alone)
    for score in log.results.scores if log.results else []:
        if not score.name.startswith(REJUDGE_SCORER):
            for name, value in (score.params or {}).items():
                if args.get(name) != value:  # a task argument the scorer was given again
                    found[f"scorer {name}"] = value
    # another version of a task scores (or reads, or builds) differently: never a repeat
    found["task version"] = log.eval.task_version
    if log.eval.solver:  # `--solver`: another way of asking the model than the task's own
        found["solver"] = log.eval.solver
        if log.eval.solver_args:
            found["solver args"] = _digest(log.eval.solver_args)[:8]
    if log.eval.model_args:
        # values may hold secrets (keys, URLs): only their hash enters the key and the label
        found["model args"] = _digest(log.eval.model_args)[:8]
    return found


def grouping_key(log: EvalLog, judge: str | None) -> str:
    """A hash that two logs share exactly when they are repeats of one configuration."""
    return _digest(
        {
            "task": selfdx_task(log) or log.eval.task,
            "model": log.eval.model,
            "judge": judge or "",
            "data": data_identity(log).id,
            "settings": settings(log),
        }
    )


def judge_identity(log: EvalLog) -> dict[str, Any] | None:
    """What decides the judge's answers in a run: each judge role's model, sampling settings and
    model arguments (hashed), the judge prompt's version (`judge_prompt` in the task's facts;
    None in logs from before it was recorded) and the judge's output budget. None when the run
    binds no judge."""
    roles = log.eval.model_roles or {}
    names = sorted((n for n in roles if JUDGE_ROLE.fullmatch(n)), key=_role_order)
    if not names:
        return None
    judges = []
    for name in names:
        config = roles[name].config
        sampling = {f: getattr(config, f) for f in SAMPLING_FIELDS if getattr(config, f, None)}
        judges.append(
            {
                "model": roles[name].model,
                "settings": sampling,
                "args": _digest(roles[name].args)[:8] if roles[name].args else "",
            }
        )
    args = log.eval.task_args or {}
    return {
        "judges": judges,
        "prompt": (log.eval.metadata or {}).get("judge_prompt"),
        "max_tokens": args.get("judge_max_tokens"),
    }


def judge_difference(run: dict[str, Any] | None, check: dict[str, Any] | None) -> str:
    """How a judge check's judge differs from a run's ('' when it is the same judge)."""
    if run is None or check is None:
        return "one of the two logs binds no judge"
    ours = " + ".join(j["model"] for j in run["judges"])
    theirs = " + ".join(j["model"] for j in check["judges"])
    if ours != theirs:
        return f"the check measured {theirs}, the run was judged by {ours}"
    if run["prompt"] is None or check["prompt"] is None:
        return "a log from before selfdx recorded the judge prompt's version"
    if run["prompt"] != check["prompt"]:
        return f"judge prompt version {check['prompt']} in the check, {run['prompt']} in the run"
    if run["max_tokens"] != check["max_tokens"]:
        return (
            f"judge_max_tokens {check['max_tokens']} in the check, {run['max_tokens']} in the run"
        )
    for mine, other in zip(run["judges"], check["judges"], strict=True):
        if mine != other:
            shown = [j["settings"] or "defaults" for j in (other, mine)]
            return (
                f"judge {mine['model']} ran with other settings "
                f"({shown[0]} in the check, {shown[1]} in the run)"
            )
    return ""

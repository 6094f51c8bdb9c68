"""`selfdx sweep --shard auto`: the shard (i, n) from the batch scheduler that started the process.

The same command then runs on every machine; the scheduler tells each its place:

- a Slurm job array (`sbatch --array=1-n` or `--array=0-(n-1)`): the index from
  `SLURM_ARRAY_TASK_ID`, counted from the array's first id (`SLURM_ARRAY_TASK_MIN`), so that an
  array numbered from 0 and one numbered from 1 give the same shards; n is the array's size
  (`SLURM_ARRAY_TASK_MIN` to `SLURM_ARRAY_TASK_MAX`, which must agree with
  `SLURM_ARRAY_TASK_COUNT`), or `auto/n` states it and the array must have n tasks;
- a Kubernetes Indexed Job (`completionMode: Indexed`): the index from `JOB_COMPLETION_INDEX`
  (0 to n-1); Kubernetes sets no variable with the number of completions, so n is given:
  `--shard auto/n`.

Anything that would put a task in two shards or in none (an array with gaps or a step, one that
starts elsewhere than 0 or 1, a resubmitted part of an array, an index past n) is refused with
one line naming the variable, never guessed.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

from selfdx.errors import ArgumentError

SLURM_ID = "SLURM_ARRAY_TASK_ID"
SLURM_MIN = "SLURM_ARRAY_TASK_MIN"
SLURM_MAX = "SLURM_ARRAY_TASK_MAX"
SLURM_COUNT = "SLURM_ARRAY_TASK_COUNT"
SLURM_STEP = "SLURM_ARRAY_TASK_STEP"
K8S_INDEX = "JOB_COMPLETION_INDEX"

RERUN = (
    "to resume, resubmit the whole array (finished shards find their tasks done), or run one "
    "shard with --shard i/n"
)


def is_auto(text: str) -> bool:
    """Whether a `--shard` value asks the scheduler (`auto` or `auto/n`)."""
    return text.strip().partition("/")[0].strip() == "auto"


def stated_count(text: str) -> int | None:
    """n of `auto/n`, None for `auto`."""
    _, slash, right = text.strip().partition("/")
    if not slash:
        return None
    if right.strip().isdigit() and int(right) >= 1:
        return int(right)
    raise ArgumentError(
        f"shard: expected auto or auto/n with n >= 1 (such as auto/4), got {text!r}"
    )


def whole(environ: Mapping[str, str], name: str) -> int | None:
    """The variable `name` as a whole number; None when unset or empty."""
    value = environ.get(name, "").strip()
    if not value:
        return None
    if not value.isdigit():
        raise ArgumentError(f"shard auto: {name}={value!r} is not a whole number")
    return int(value)


def slurm_shard(environ: Mapping[str, str], count: int | None) -> tuple[tuple[int, int], str]:
    task = whole(environ, SLURM_ID)
    assert task is not None
    first, last = whole(environ, SLURM_MIN), whole(environ, SLURM_MAX)
    if first is None or last is None:
        missing = " and ".join(n for n, v in ((SLURM_MIN, first), (SLURM_MAX, last)) if v is None)
        raise ArgumentError(
            f"shard auto: {SLURM_ID}={task} is set but {missing} "
            f"{'is' if ' and ' not in missing else 'are'} not, so the job array's "
            "range is unknown (sbatch --array sets both); give --shard i/n"
        )
    step = whole(environ, SLURM_STEP)
    if step is not None and step != 1 and first != last:
        raise ArgumentError(
            f"shard auto: the job array steps by {step} ({SLURM_STEP}={step}); --shard auto "
            "needs consecutive ids (--array=1-n)"
        )
    size = last - first + 1
    listed = whole(environ, SLURM_COUNT)
    if listed is not None and listed != size:
        raise ArgumentError(
            f"shard auto: the job array has {listed} tasks ({SLURM_COUNT}) between ids {first} "
            f"and {last}: --shard auto needs consecutive ids (--array=1-n)"
        )
    if first not in (0, 1):
        raise ArgumentError(
            f"shard auto: the job array starts at {first} ({SLURM_MIN}={first}), not at 0 or 1, "
            f"as a part of an array resubmitted alone does; {RERUN}"
        )
    if not first <= task <= last:
        raise ArgumentError(
            f"shard auto: {SLURM_ID}={task} is outside the job array {first}-{last}"
        )
    if count is None and size == 1:
        raise ArgumentError(
            f"shard auto: the job array has one task ({SLURM_ID}={task}), as a part of an array "
            f"resubmitted alone does; {RERUN} (--shard auto/1 runs the sweep as one shard)"
        )
    if count is not None and count != size:
        raise ArgumentError(
            f"shard auto/{count}: the job array {first}-{last} has {size} task"
            f"{'s' if size != 1 else ''}, not {count}; submit it with --array=1-{count}, or "
            f"{RERUN}"
        )
    shard = (task - first + 1, size)
    return shard, f"{SLURM_ID}={task} of the job array {first}-{last}"


def indexed_job_shard(environ: Mapping[str, str], count: int | None) -> tuple[tuple[int, int], str]:
    index = whole(environ, K8S_INDEX)
    assert index is not None
    if count is None:
        raise ArgumentError(
            f"shard auto: {K8S_INDEX}={index} gives this pod's index but Kubernetes sets no "
            "variable with the number of completions; give it: --shard auto/n"
        )
    if index >= count:
        raise ArgumentError(
            f"shard auto/{count}: {K8S_INDEX}={index} is out of range for {count} shards "
            f"(indexes 0 to {count - 1}); set completions to {count} or give --shard auto/<n>"
        )
    return (index + 1, count), f"{K8S_INDEX}={index} of {count} completions"


def scheduler_shard(
    text: str = "auto", environ: Mapping[str, str] | None = None
) -> tuple[tuple[int, int], str]:
    """(shard (i, n), where it came from) for `--shard auto` or `auto/n`, read from `environ`
    (default: this process's environment); an ArgumentError naming what is missing otherwise."""
    environ = os.environ if environ is None else environ
    count = stated_count(text)
    slurm = environ.get(SLURM_ID, "").strip()
    k8s = environ.get(K8S_INDEX, "").strip()
    if slurm and k8s:
        raise ArgumentError(
            f"shard auto: both {SLURM_ID} (Slurm) and {K8S_INDEX} (Kubernetes) are set, so which "
            "scheduler started this is unclear; give --shard i/n"
        )
    if slurm:
        return slurm_shard(environ, count)
    if k8s:
        return indexed_job_shard(environ, count)
    hint = ""
    if environ.get("SLURM_JOB_ID"):
        hint = " (this Slurm job is not an array: submit it with sbatch --array=1-n)"
    raise ArgumentError(
        f"shard auto: neither {SLURM_ID} (a Slurm job array) nor {K8S_INDEX} (a Kubernetes "
        f"Indexed Job) is set{hint}; outside a scheduler give --shard i/n"
    )


def resolve_shard(text: str, environ: Mapping[str, str] | None = None) -> tuple[int, int]:
    """The shard of a `--shard` value: `i/n` as given, `auto` or `auto/n` from the scheduler
    (then one line on standard error says which shard and from what)."""
    if not is_auto(text):
        from selfdx.sweep import parse_shard

        return parse_shard(text)
    shard, source = scheduler_shard(text, environ)
    print(f"selfdx: shard {shard[0]}/{shard[1]} (from {source})", file=sys.stderr, flush=True)
    return shard

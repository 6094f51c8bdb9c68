"""Reading selfdx runs from Inspect logs: one header per run, compact rows per sample.

Samples are streamed (`read_samples`, a batch of whole samples at a time) and reduced to the few
values the report needs, so memory grows with the number of samples times a small row, never with
whole transcripts.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from inspect_ai.log import (
    EvalLog,
    EvalSample,
    read_eval_log,
    read_eval_log_sample_summaries,
    read_eval_log_samples,
    read_eval_log_samples_by_id,
)
from inspect_ai.model import ModelUsage
from tqdm import tqdm

from selfdx.analysis.identity import (
    REJUDGE_SCORER,
    data_identity,
    grouping_key,
    judge_identity,
    judges_of,
    model_roles_of,
    other_roles,
    selfdx_task,
    settings,
)
from selfdx.datasets.strategies import STRATEGIES
from selfdx.errors import SelfdxError
from selfdx.log_files import list_logs
from selfdx.run_facts import BENCHMARKS, CHECKS, logged_facts, setting_text, uncovered
from selfdx.shard_layout import SHARD_KEY, merged_location, shard_place

# Samples read per call of `read_eval_log_samples_by_id`. Each call parses the log's zip directory
# once (about 0.1 s for 25,000 samples); 1,000 MentalBench samples take about 75 MB.
SAMPLE_BATCH = 1000


# Why a run whose epochs Inspect reduced other than by their mean is left out.
NOT_MEAN = (
    "the report's rates and intervals are means over each case's epochs, so they would not be "
    "the metrics Inspect printed; rerun with the default reducer (mean)"
)
# The columns that say what a row of a report table stands for.
KEY_COLUMNS = ["model", "variant", "judge", "dataset"]


class ConfigKey(NamedTuple):
    """One configuration of the report: runs with equal keys are repeats (seeds) of it."""

    benchmark: str
    model: str
    variant: str  # the strategy or the types run, with " · <group>" for a breakdown row
    judge: str  # "" without a judge
    dataset: str

    def grouped(self, group: str | None) -> ConfigKey:
        """The key of the breakdown row `group` of this configuration (itself for None)."""
        return self if group is None else self._replace(variant=f"{self.variant} · {group}")

    def columns(self) -> dict[str, str]:
        """The key as the table columns `KEY_COLUMNS`."""
        return {column: getattr(self, column) for column in KEY_COLUMNS}

    def label(self, among: Collection[ConfigKey], variant: bool = False) -> str:
        """The model, with the variant (when asked), the judge and the dataset wherever the
        keys `among` differ in them: a legend entry of a figure."""
        text = self.model
        if variant and len({key.variant for key in among}) > 1:
            text += f" · {self.variant}"
        if self.judge and len({key.judge for key in among}) > 1:
            text += f" (judge {self.judge})"
        if len({key.dataset for key in among}) > 1:
            text += f" [{self.dataset}]"
        return text


@dataclass
class Run:
    """One evaluation log of a selfdx benchmark, described by its header."""

    path: str
    benchmark: str
    task: str
    model: str
    judge: str | None
    variant: str
    seed: int | None
    epochs: int
    status: str
    task_args: dict[str, Any] = field(default_factory=dict)  # every argument, as Inspect logged
    changed_args: frozenset[str] = frozenset()  # those differing from the task's defaults
    scorers: list[str] = field(default_factory=list)
    total_samples: int = 0
    completed_samples: int = 0
    data_source: str = ""
    data_id: str = ""
    data_cases: int = 0
    dataset_size: int = 0  # the cases of the data as configured, before any --limit
    dataset: str = ""  # the label of the data in tables (set by `label_runs`)
    group: str = ""  # grouping key: equal exactly for repeats of one configuration
    settings: dict[str, Any] = field(default_factory=dict)
    roles: dict[str, str] = field(default_factory=dict)  # model roles besides the judge(s)
    metrics: dict[str, float] = field(default_factory=dict)  # as Inspect computed them
    usage: dict[str, tuple[str, ModelUsage]] = field(default_factory=dict)  # role: model, tokens
    eval_id: str = ""  # Inspect's id of the run: equal in copies of one log file
    task_id: str = ""  # Inspect's id of the task run: kept by `inspect eval-retry`
    metadata: dict[str, Any] = field(default_factory=dict)  # the task's facts (variants, styles)
    uncovered: str = ""  # what of its types and styles a limited run never ran (run_facts)
    judge_identity: dict[str, Any] | None = None  # what decides the judge's answers (identity.py)
    commit: str = ""  # the git commit Inspect recorded for the run (`eval.revision`), if any
    started: str = ""  # when the run started and completed (ISO 8601, as Inspect logged them)
    completed: str = ""

    @property
    def key(self) -> ConfigKey:
        """Runs sharing this key are repeats (seeds) of one configuration (see `label_runs`)."""
        return ConfigKey(self.benchmark, self.model, self.variant, self.judge or "", self.dataset)

    @property
    def is_demo(self) -> bool:
        return self.data_source == "demo"


def benchmark_of(log: EvalLog) -> str | None:
    """`selfdx/safe_psych` -> `safe_psych` (a benchmark or a check); None for a task that is
    not selfdx's (a user's own task of the same name included: see `identity.selfdx_task`)."""
    name = selfdx_task(log)
    return name if name in BENCHMARKS or name in CHECKS else None


def run_from_header(path: str, log: EvalLog) -> Run | None:
    """Describe a log, or None if it is not a run of a selfdx task."""
    benchmark = benchmark_of(log)
    if benchmark is None:
        return None
    facts = logged_facts(
        benchmark, log.eval.metadata or {}, log.eval.task_args, log.eval.task_args_passed
    )
    judges = judges_of(log) if facts["asks_grader"] else []
    judge = " + ".join(judges) or None
    roles = other_roles(log)
    variant = facts["variant"]
    model = log.eval.model
    if benchmark == "judge_check":  # the judge (or panel) is what the run measures
        model = " + ".join(judges_of(log)) or model
    elif benchmark == "patient_check":
        model = roles.pop("patient", model)
    elif benchmark == "question_check":  # the reader: the offline one, or the reader role
        offline = (log.eval.task_args or {}).get("reader", "offline") == "offline"
        model = "selfdx offline reader" if offline else roles.pop("reader", model)
    elif benchmark == "risk_response_check":  # the grader: the offline one, or the grader role
        offline = (log.eval.task_args or {}).get("grader", "offline") == "offline"
        model = "selfdx offline risk grader" if offline else " + ".join(judges_of(log)) or model
    elif "patient" in roles:
        variant += f", patient {roles['patient']}"
    if benchmark == "mentalbench" and "generators" in facts["changed_args"]:
        variant += f", {generators_text(log.eval.task_args.get('generators'))}"
    left = ""  # a check's label is its settings; a benchmark's population is projected
    if benchmark in BENCHMARKS:
        left = uncovered(log.eval.metadata or {}, log.eval.dataset.sample_ids)
    if left:  # a --limit that never reached some of the types or styles the label names
        variant += f" ({left})"
    seed = log.eval.model_generate_config.seed if log.eval.model_generate_config else None
    scorers = [score.name for score in (log.results.scores if log.results else [])]
    identity = data_identity(log)
    return Run(
        path=path,
        benchmark=benchmark,
        task=log.eval.task,
        model=model,
        judge=judge,
        variant=variant,
        seed=seed,
        epochs=log.eval.config.epochs or 1,
        status=log.status,
        task_args=dict(log.eval.task_args),
        changed_args=frozenset(facts["changed_args"]),
        scorers=sorted({s.split("/")[0] for s in scorers}),
        total_samples=log.results.total_samples if log.results else 0,
        completed_samples=log.results.completed_samples if log.results else 0,
        data_source=identity.source,
        data_id=identity.id,
        data_cases=identity.cases,
        dataset_size=log.eval.dataset.samples or 0,
        dataset=identity.source,
        group=grouping_key(log, judge),
        settings=settings(log),
        roles=roles,
        metrics=header_metrics(log),
        usage=role_usage(log),
        eval_id=log.eval.eval_id,
        task_id=log.eval.task_id or "",
        metadata=dict(log.eval.metadata or {}),
        uncovered=left,
        judge_identity=judge_identity(log),
        commit=(log.eval.revision.commit if log.eval.revision else "") or "",
        started=(log.stats.started_at if log.stats else "") or "",
        completed=(log.stats.completed_at if log.stats else "") or "",
    )


def generators_text(value: Any) -> str:
    """`generators=gpt5,qwen235` (a string or a list, as logged) as a label shows it."""
    names = [value] if isinstance(value, str) else list(value or [])
    found = sorted({g.strip() for item in names for g in str(item).split(",") if g.strip()})
    return f"generators {','.join(found) or 'all'}"


# Inspect names a second scorer of one name `<name>1`, `<name>2` ... when scores are appended.
REJUDGE_NAME = re.compile(rf"^{REJUDGE_SCORER}\d*$")


def rejudge_scorers(sample: EvalSample) -> list[str]:
    """The re-judging scores of a sample, in the order they were added."""
    names = [name for name in (sample.scores or {}) if REJUDGE_NAME.match(name)]
    return sorted(names, key=lambda n: int(n.removeprefix(REJUDGE_SCORER) or 0))


def header_metrics(log: EvalLog) -> dict[str, float]:
    """The run's metrics as Inspect computed them, by name: `<key>`, `<key>_stderr` (and the
    rest) of a dict-valued score, verbatim (one results entry, see `scorers.key_means`);
    `<entry>` and `<entry>_stderr` of Inspect's per-key layout or of a scorer with Inspect's
    own metrics (an entry with `mean` or `accuracy`, and `stderr`)."""
    found: dict[str, float] = {}
    for entry in log.results.scores if log.results else []:
        bases = {name: name.rsplit("/", 1)[-1] for name in entry.metrics}
        # key_means names every line after its key; Inspect's own metrics are bare names
        verbatim = any(base.endswith("_stderr") for base in bases.values())
        for name, metric in entry.metrics.items():
            base = bases[name]
            if not verbatim and base in ("mean", "accuracy"):
                base = entry.name
            elif not verbatim and base in ("stderr", "std"):
                base = f"{entry.name}_{base}"
            found[base] = float(metric.value) if metric.value is not None else math.nan
    return found


def role_usage(log: EvalLog) -> dict[str, tuple[str, ModelUsage]]:
    """Tokens by role: `model` for the model under test, and each bound role (grader,
    grader_2, patient) with its model. Inspect counts a role's calls under the role and under
    its model both; the model's own calls are what its total leaves once its roles' are taken
    out (a model that is also its own judge)."""
    stats = log.stats
    if stats is None:
        return {}
    bound = model_roles_of(log)  # the offline patient too, when no patient was bound
    found: dict[str, tuple[str, ModelUsage]] = {
        role: (bound.get(role, role), usage) for role, usage in (stats.role_usage or {}).items()
    }
    own = stats.model_usage.get(log.eval.model)
    if own is not None:
        for model, usage in found.values():
            if model == log.eval.model:
                own = _minus(own, usage)
        if own.total_tokens > 0 or own.input_tokens > 0 or own.output_tokens > 0:
            found["model"] = (log.eval.model, own)
    return found


def _minus(total: ModelUsage, part: ModelUsage) -> ModelUsage:
    def less(a: int | None, b: int | None) -> int | None:
        return None if a is None else a - (b or 0)

    return ModelUsage(
        input_tokens=total.input_tokens - part.input_tokens,
        output_tokens=total.output_tokens - part.output_tokens,
        total_tokens=total.total_tokens - part.total_tokens,
        input_tokens_cache_write=less(
            total.input_tokens_cache_write, part.input_tokens_cache_write
        ),
        input_tokens_cache_read=less(total.input_tokens_cache_read, part.input_tokens_cache_read),
        reasoning_tokens=less(total.reasoning_tokens, part.reasoning_tokens),
        total_cost=None
        if total.total_cost is None
        else total.total_cost - (part.total_cost or 0.0),
    )


def label_runs(runs: list[Run]) -> None:
    """Give runs labels that tell their configurations apart, so that `Run.key` is equal for two
    runs exactly when their grouping keys are.

    The dataset label is the data source; where one source covers several data identities (a
    `--limit` subset, a changed file), the number of cases and the identity are added. Where runs
    that look alike differ in other settings (task arguments, sampling settings, model
    arguments), the settings that differ are added to the variant.
    """
    ids_by_source: dict[tuple[str, str], set[str]] = defaultdict(set)
    for run in runs:
        ids_by_source[(run.benchmark, run.data_source)].add(run.data_id)
    for run in runs:
        run.dataset = run.data_source
        if len(ids_by_source[(run.benchmark, run.data_source)]) > 1:
            run.dataset += f" · {run.data_cases} cases · {run.data_id[:8]}"
    alike: dict[tuple, list[Run]] = defaultdict(list)
    for run in runs:
        alike[run.key].append(run)
    for group in alike.values():
        if len({run.group for run in group}) == 1:
            continue
        names = sorted({name for run in group for name in run.settings})
        differing = [
            name
            for name in names
            if len({setting_text(run.settings.get(name)) for run in group}) > 1
        ]
        for run in group:
            shown = ", ".join(f"{n}={setting_text(run.settings.get(n))}" for n in differing)
            run.variant = f"{run.variant} ({shown})"
    groups_by_key: dict[tuple, set[str]] = defaultdict(set)
    for run in runs:
        groups_by_key[run.key].add(run.group)
    for run in runs:  # a last resort that cannot merge two configurations
        if len(groups_by_key[run.key]) > 1:
            run.variant = f"{run.variant} [{run.group[:8]}]"


def read_header(path: str) -> EvalLog:
    """A log's header; a SelfdxError naming the file when it cannot be read (cut short, not a
    log)."""
    if "://" not in path and not Path(path).is_file():
        raise SelfdxError(f"{path}: no such log file")
    try:
        return read_eval_log(path, header_only=True)
    except Exception as exc:  # zip, JSON and validation errors all mean "not a readable log"
        raise SelfdxError(f"{path.removeprefix('file://')}: {unreadable(exc)}") from exc


def unreadable(exc: BaseException) -> str:
    return f"not a readable Inspect log (truncated or corrupt?): {type(exc).__name__}: {exc}"


def find_runs(log_dir: str | Path) -> tuple[list[Run], list[tuple[str, str]]]:
    """Every selfdx run under `log_dir`, plus (path, reason) for each log left out.

    A log that cannot be read is left out with the reason; a missing directory, or one with no
    logs at all, is an error.
    """
    folder = Path(str(log_dir).removeprefix("file://"))
    if "://" not in str(log_dir) and not folder.is_dir():
        what = "is not a directory" if folder.exists() else "does not exist"
        raise SelfdxError(f"log directory {log_dir} {what}")
    runs: list[Run] = []
    skipped: list[tuple[str, str]] = []
    unfinished: list[tuple[str, Run]] = []
    locations = list_logs(str(log_dir))
    if not locations:
        raise SelfdxError(f"log directory {log_dir} holds no Inspect logs (.eval or .json)")
    listed = set(locations)
    for location in locations:
        name = location.removeprefix("file://")
        if shard_place(location) is not None:  # a share of a task's samples, never a run
            skipped.append((name, shard_reason(location, listed, log_dir)))
            continue
        try:
            header = read_eval_log(location, header_only=True)
        except Exception as exc:  # one broken file must not hide the other logs
            skipped.append((name, unreadable(exc)))
            continue
        shard = (header.eval.metadata or {}).get(SHARD_KEY)
        if isinstance(shard, dict):  # a shard's log moved out of its `.shards/` folder
            skipped.append((name, loose_shard_reason(shard)))
            continue
        run = run_from_header(location, header)
        reducers = [r for r in (header.eval.config.epochs_reducer or []) if r != "mean"]
        if run is None:
            skipped.append((name, f"task {header.eval.task} is not a selfdx task"))
        elif reducers:
            skipped.append((name, f"epochs reducer {', '.join(reducers)}: {NOT_MEAN}"))
        elif header.status != "success":
            unfinished.append((name, run))
        else:
            runs.append(run)
    runs = retried_once(once_each(runs, skipped), skipped)
    finished = {run.group: run.path.removeprefix("file://") for run in runs}
    for name, run in unfinished:
        if run.group in finished:  # a resumed sweep: the finished run is the one reported
            done = Path(finished[run.group]).name
            reason = f"status {run.status}; {done}, a finished run of it, is reported instead"
        else:
            reason = f"status {run.status}: rerun or `inspect eval-retry` it"
        skipped.append((name, reason))
    label_runs(runs)
    runs.sort(key=report_order)
    return runs, skipped


def shard_reason(location: str, listed: set[str], log_dir: str | Path) -> str:
    """Why a sample shard's log is left out: its merged log is reported, or it awaits a merge."""
    merged = merged_location(shard_place(location)[0])  # type: ignore[index]
    if merged in listed:
        return f"a sample shard of {merged.removeprefix('file://')}, which is reported"
    return f"a sample shard, not merged yet: run `selfdx merge {log_dir}` and report again"


def loose_shard_reason(shard: dict[str, Any]) -> str:
    """Why a sample shard's log found outside a `<task>.shards/` folder is left out."""
    share = f"{shard.get('index', '?')} of {shard.get('count', '?')}"
    return (
        f"a sample shard ({share}) outside its task's `.shards/` folder: a share of one run, "
        "never a run of its own; put it back and run `selfdx merge`"
    )


def copy_key(run: Run) -> tuple:
    """What copies of one log share: Inspect's eval id and the results. A log re-scored by
    `inspect score` keeps the eval id but holds other results: it is not a copy."""
    if not run.eval_id:
        return (run.path,)
    results = tuple(sorted((k, None if math.isnan(v) else v) for k, v in run.metrics.items()))
    return (run.eval_id, tuple(run.scorers), results)


def once_each(runs: list[Run], skipped: list[tuple[str, str]]) -> list[Run]:
    """The runs with copies of one log left out (the same Inspect eval id and results: a file
    copied into several folders is one run, never repeats of it), each copy added to `skipped`
    with the file reported instead; of copies, the first by path is kept, wherever they were
    written."""
    kept: dict[tuple, Run] = {}
    for run in sorted(runs, key=lambda r: r.path):
        first = kept.setdefault(copy_key(run), run)
        if first is not run:
            reason = (
                f"a copy of {first.path.removeprefix('file://')} (the same run, Inspect eval id "
                f"{run.eval_id}): reported once"
            )
            skipped.append((run.path.removeprefix("file://"), reason))
    runs = [run for run in runs if kept.get(copy_key(run)) is run]
    # one run scored again (`inspect score --output-file`) beside its first log: the same model
    # calls, never two seeds of one row; the log with the most scorers (a re-judging appended)
    # is reported
    chosen: dict[tuple[str, str], Run] = {}
    for run in sorted(runs, key=lambda r: (-len(r.scorers), r.path)):
        if not run.eval_id:
            continue
        first = chosen.setdefault((run.group, run.eval_id), run)
        if first is not run:
            skipped.append(
                (
                    run.path.removeprefix("file://"),
                    f"the run of {first.path.removeprefix('file://')} (Inspect eval id "
                    f"{run.eval_id}) scored again with the same settings: reported once",
                )
            )
    return [run for run in runs if not run.eval_id or chosen[(run.group, run.eval_id)] is run]


def retried_once(runs: list[Run], skipped: list[tuple[str, str]]) -> list[Run]:
    """The runs with a partial run left out where `inspect eval-retry` finished it: logs of one
    Inspect task id of which one scored fewer samples than it ran (errored samples, a run
    allowed to finish by `--fail-on-error`). The retry holds the samples it copied over, so the
    two are one run, never two seeds: the log with the most scored samples (the latest of
    equals) is reported."""
    by_task: dict[str, list[Run]] = {}
    for run in runs:
        if run.task_id:
            by_task.setdefault(run.task_id, []).append(run)
    dropped: set[str] = set()
    for same in by_task.values():
        if len(same) < 2 or all(r.completed_samples >= r.total_samples for r in same):
            continue
        best = max(same, key=lambda r: (r.completed_samples, r.completed, r.path))
        for run in same:
            if run is not best:
                dropped.add(run.path)
                reason = (
                    f"{run.completed_samples} of {run.total_samples} samples scored; "
                    f"{best.path.removeprefix('file://')}, its retry (the same Inspect task id "
                    f"{run.task_id}), is reported instead"
                )
                skipped.append((run.path.removeprefix("file://"), reason))
    return [run for run in runs if run.path not in dropped]


def report_order(run: Run) -> tuple:
    """Where a run's rows go in every table: by task, model, variant (Safe-Psych's strategies in
    the paper's order), judge, data and seed; never by when a log file was written, so that the
    same logs give the same report wherever they are copied."""
    tasks = (*BENCHMARKS, *CHECKS)
    strategy = STRATEGIES.index(run.variant) if run.variant in STRATEGIES else len(STRATEGIES)
    return (
        tasks.index(run.benchmark) if run.benchmark in tasks else len(tasks),
        run.model,
        strategy,
        run.variant,
        run.judge or "",
        run.dataset,
        -1 if run.seed is None else run.seed,
        run.path,
    )


def score_values(sample: EvalSample, scorer: str) -> dict[str, float]:
    """The dict-valued score of `scorer` as floats (NaN for not applicable)."""
    score = (sample.scores or {}).get(scorer)
    if score is None or not isinstance(score.value, dict):
        return {}
    values: dict[str, float] = {}
    for key, value in score.value.items():
        try:
            values[key] = float(value) if value is not None else math.nan
        except (TypeError, ValueError):
            values[key] = math.nan
    return values


def read_samples(
    path: str, exclude_fields: set[str] | None = None, batch: int = SAMPLE_BATCH
) -> Iterator[EvalSample]:
    """Every sample of a log, in the order `read_eval_log_samples` yields them, `batch` at a time.

    `read_eval_log_samples` opens a new zip reader for each sample, which parses the whole zip
    directory again: its time grows with the square of the samples (about 0.1 s a sample in a log
    of 25,000). Here the directory is parsed once per batch. Samples missing from a log that did
    not finish are skipped, as `read_eval_log_samples(..., all_samples_required=False)` does.

    `exclude_fields` is best left out for selfdx logs: Inspect skips fields by parsing each sample
    with ijson, which stops at the NaN that selfdx scores hold for "not applicable"; it then
    parses the sample again in full, so every sample is read twice (about 20% slower here, and
    inspect-ai 0.3.285 keeps about 15 KB of each such sample until the process ends).
    """
    header = read_eval_log(path, header_only=True)
    sample_ids = header.eval.dataset.sample_ids
    if sample_ids is None:  # an old log without the list of its samples
        yield from read_eval_log_samples(
            path, all_samples_required=False, exclude_fields=exclude_fields
        )
        return
    epochs = header.eval.config.epochs or 1
    wanted = [(sample_id, epoch) for sample_id in sample_ids for epoch in range(1, epochs + 1)]
    present: set[tuple[int | str, int]] | None = None
    if header.status != "success":
        present = {(s.id, s.epoch) for s in read_eval_log_sample_summaries(path)}
    for start in range(0, len(wanted), batch):
        chunk = wanted[start : start + batch]
        if present is not None:
            chunk = [key for key in chunk if key in present]
        if not chunk:
            continue
        try:
            samples = read_eval_log_samples_by_id(path, chunk, exclude_fields=exclude_fields)
        except IndexError:  # a successful log that lacks samples after all
            present = {(s.id, s.epoch) for s in read_eval_log_sample_summaries(path)}
            chunk = [key for key in chunk if key in present]
            samples = (
                read_eval_log_samples_by_id(path, chunk, exclude_fields=exclude_fields)
                if chunk
                else []
            )
        yield from samples
        del samples


def stream_samples(
    runs: list[Run], progress: bool = True, read_already: int = 0
) -> Iterator[tuple[Run, EvalSample]]:
    """Yield (run, sample) for every sample of every run, with a progress bar per run.

    `read_already`: logs the caller has read whole from their headers (a check's), counted in
    the bar, so that it ends at the number of logs the report reads."""
    bar = tqdm(
        runs,
        desc="reading logs",
        unit="log",
        disable=not progress,
        initial=read_already,
        total=len(runs) + read_already,
    )
    for run in bar:
        try:
            for sample in read_samples(run.path):
                yield run, sample
        except SelfdxError:
            raise
        except Exception as exc:  # a log whose header reads but whose samples do not
            raise SelfdxError(
                f"{run.path.removeprefix('file://')}: its samples cannot be read (truncated or "
                f"corrupt?): {type(exc).__name__}: {exc}; move it out of the log directory"
            ) from exc

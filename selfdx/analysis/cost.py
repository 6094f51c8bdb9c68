"""What the runs cost: tokens by run, role and model, money from a price table, and the
projected cost of a whole published benchmark from the tokens measured per case.

Tokens come from each log's header (Inspect's `stats.role_usage` and `stats.model_usage`). Calls
answered from a cache leave no usage there: Inspect's cache (a model event marked `cache: read`,
which keeps the usage of the call it repeats) and selfdx's memory of an identical judge call (the
tally in the sample's store, `grader_calls.SERVED_KEY`). For the runs whose samples the report
reads anyway, `served_usage` counts them, and the tokens and cost per case, and so the
projection, count them as a fresh run would pay; the spend (`cost`) is what was paid.

Prices are in Inspect's own format, the file that `inspect eval --model-cost-config` takes: a
model name mapped to `input`, `output`, `input_cache_write` and `input_cache_read`, each in
dollars per million tokens. A model with no price keeps the cost Inspect recorded in the log (a
run made with `--model-cost-config`), or none.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import fsspec
import pandas as pd
import yaml
from inspect_ai.event import ModelEvent
from inspect_ai.log import EvalSample
from inspect_ai.model import ModelCost, ModelUsage, compute_model_cost
from pydantic import ValidationError

from selfdx.analysis.logs import Run
from selfdx.errors import SelfdxError
from selfdx.judge.grader_calls import SERVED_KEY

# The size of each task's published data, for projections from runs on other data (the demo
# set, a --limit subset): cases of the default configuration, and where the number comes from.
# MentalBench and the interview are counted per configuration instead (`published_population`).
PUBLISHED: dict[str, tuple[int, str]] = {
    "safe_psych": (1048, "Safe-Psych's 1,048 published cases (paper), one strategy"),
    "mentalbench": (24744, "MentalBench's 24,744 published items (6 truncated left out)"),
    "interview": (1725, "the 1,725 published Type 1-2 profiles (the default types)"),
    "judge_check": (1091, "the 1,091 bundled labelled replies"),
    "patient_check": (17240, "the 17,240 probes of the published profiles"),
    "question_check": (580, "the 580 held-out labelled doctor turns"),
    "risk_response_check": (220, "the 220 held-out labelled interviewer replies"),
    "mentalbench_generate": (24750, "MentalBench's 24,750 cases, written anew"),
}
GENERATORS = ("gemini", "gpt5", "qwen235")
# Published MentalBench items by type variant, per generator (gemini, gpt5, qwen235): (complete,
# truncated) generations, counted in the published resources/ folder (tests/test_cost.py checks
# them against it where the data is at hand).
MENTALBENCH_ITEMS: dict[str, tuple[tuple[int, int], ...]] = {
    "1": ((575, 0), (575, 0), (575, 0)),
    "2": ((1148, 2), (1150, 0), (1149, 1)),
    "3": ((2175, 0), (2175, 0), (2175, 0)),
    "4a": ((2173, 2), (2175, 0), (2175, 0)),
    "4b": ((2174, 1), (2175, 0), (2175, 0)),
}
# Published interview profiles by type variant (identical across generators).
INTERVIEW_PROFILES = {"1": 575, "2": 1150, "3": 2175, "4a": 2175, "4b": 2175}
SAMPLED_PER_TYPE = 10  # the interview's default n_sampled
# A run whose samples the report does not read (a check's) cannot say what its cache served.
CACHED = "judge calls served from a cache are not in the tokens (-T judge_cache=false counts them)"
Served = dict[str, tuple[str, ModelUsage, int]]  # role: model, tokens, calls served from a cache
UNCOUNTED = "(uncounted)"  # in a `Served`: judge calls answered from memory with no tally
SERVED_NOTE = "calls served from a cache counted as paid"
UNCOUNTED_NOTE = (
    "judge calls answered from memory in a log written before selfdx counted them are not in "
    "the tokens"
)
ROLE_NAMES = {"model": "model under test"}


PRICE_FIELDS = tuple(ModelCost.model_fields)  # input, output, input_cache_write, input_cache_read


class _Mapping(dict):
    """A JSON object or YAML mapping as read, with the keys it gave more than once (`repeated`):
    Python's readers keep only the last value of a repeated key and say nothing."""

    repeated: tuple[str, ...] = ()


def _mapping(pairs: list[tuple[object, object]], repeated: list[object]) -> _Mapping:
    mapping = _Mapping(pairs)
    mapping.repeated = tuple(dict.fromkeys(str(key) for key in repeated))
    return mapping


def _json_object(pairs: list[tuple[str, object]]) -> _Mapping:
    keys = [key for key, _ in pairs]
    return _mapping(pairs, [key for i, key in enumerate(keys) if key in keys[:i]])


class _PriceLoader(yaml.SafeLoader):
    """YAML's safe loader, keeping the keys a mapping gives twice (merge keys, `<<`, may be
    overridden: that is what they are for), and reading `1e-6` and `2.5e6` as numbers (YAML 1.1
    takes a float only with a dot and a signed exponent, and a string is not a price)."""


_PriceLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?[0-9][0-9_]*(?:\.[0-9_]*)?[eE][-+]?[0-9]+$"),
    list("-+0123456789"),
)


def _yaml_mapping(loader: _PriceLoader, node: yaml.MappingNode) -> _Mapping:
    keys: list[object] = []
    for key_node, _ in node.value:
        if key_node.tag != "tag:yaml.org,2002:merge":
            keys.append(loader.construct_object(key_node, deep=True))
    repeated = [key for i, key in enumerate(keys) if key in keys[:i]]
    return _mapping(list(loader.construct_mapping(node, deep=True).items()), repeated)


_PriceLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _yaml_mapping)


def _a_number(value: object) -> bool:
    """Whether `value` is a finite number in quotes ("1.5")."""
    try:
        return isinstance(value, str) and math.isfinite(float(value))
    except ValueError:
        return False


def _price(where: str, value: object) -> float:
    """One price as a number of dollars per million tokens, or a SelfdxError naming `where`
    (the file, the model and the field) and what is wrong with it."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        shown = json.dumps(value) if isinstance(value, bool | str | None) else repr(value)
        hint = " (write the number without quotes)" if _a_number(value) else ""
        raise SelfdxError(
            f"{where}: expected a number of dollars per million tokens, got {shown}{hint}"
        )
    try:
        number = float(value)
    except OverflowError:  # a whole number of more than 308 digits
        raise SelfdxError(f"{where}: a number too large to be a price") from None
    if math.isnan(number):
        raise SelfdxError(f"{where}: NaN is not a price")
    if math.isinf(number):
        raise SelfdxError(f"{where}: {value!r} is not a finite price")
    if number < 0:
        raise SelfdxError(f"{where}: a price cannot be negative, got {value!r}")
    return number


def load_prices(path: str | Path) -> dict[str, ModelCost]:
    """A price table (YAML or JSON, Inspect's `--model-cost-config` format), checked: a
    SelfdxError names the file, the model and the field that is wrong. Each price must be a
    finite number >= 0 (not NaN, infinity, true or a quoted number); a model listed twice, a
    field given twice and a field Inspect does not price are refused rather than one of them
    kept or left out."""
    fs, where = fsspec.core.url_to_fs(str(path))  # a local file or one on a store (s3://...)
    if not fs.isfile(where):
        raise SelfdxError(f"--prices {path}: no such file")
    try:
        with fs.open(where, "r", encoding="utf-8") as file:
            text = file.read()
        if str(path).endswith(".json"):
            data = json.loads(text, object_pairs_hook=_json_object)
        else:
            data = yaml.load(text, Loader=_PriceLoader)  # a SafeLoader
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, yaml.YAMLError) as exc:
        reason = " ".join(str(exc).split())  # YAML's message spans lines
        raise SelfdxError(f"--prices {path}: not readable as YAML or JSON: {reason}") from exc
    if not isinstance(data, dict) or not data:
        raise SelfdxError(
            f"--prices {path}: expected model names mapped to input, output, "
            "input_cache_write and input_cache_read (dollars per million tokens)"
        )
    if isinstance(data, _Mapping) and data.repeated:
        raise SelfdxError(
            f"--prices {path}: {', '.join(data.repeated)} is listed more than once (only one "
            "price per model)"
        )
    prices: dict[str, ModelCost] = {}
    for model, fields in data.items():
        if not isinstance(fields, dict):
            raise SelfdxError(f"--prices {path}: {model}: expected a mapping of prices")
        if isinstance(fields, _Mapping) and fields.repeated:
            raise SelfdxError(
                f"--prices {path}: {model}: {', '.join(fields.repeated)} is given more than once"
            )
        unknown = [str(name) for name in fields if name not in PRICE_FIELDS]
        if unknown:
            raise SelfdxError(
                f"--prices {path}: {model}: {', '.join(unknown)}: not a price Inspect counts "
                f"(the fields are {', '.join(PRICE_FIELDS)})"
            )
        checked = {
            name: _price(f"--prices {path}: {model}: {name}", v) for name, v in fields.items()
        }
        if str(model) in prices:  # 1 and "1" in YAML: two keys, one model name
            raise SelfdxError(f"--prices {path}: {model} is listed more than once")
        try:
            prices[str(model)] = ModelCost(**checked)
        except ValidationError as exc:  # a field missing
            problems = "; ".join(
                f"{'.'.join(map(str, e['loc'])) or 'field'}: {e['msg']}" for e in exc.errors()
            )
            raise SelfdxError(f"--prices {path}: {model}: {problems}") from exc
    return prices


def run_cost(model: str, usage: ModelUsage, prices: dict[str, ModelCost]) -> tuple[float, str]:
    """Dollars for `usage` and where the price came from (`prices`, `log` or `none`)."""
    if model in prices:
        return compute_model_cost(prices[model], usage), "prices"
    if usage.total_cost is not None:
        return float(usage.total_cost), "log"
    return math.nan, "none"


def _log_name(run: Run) -> str:
    return run.path.removeprefix("file://").rsplit("/", 1)[-1]


def projection_basis(run: Run) -> tuple[float, str]:
    """The cases a whole run of this configuration has: the run's own data when it is a
    published or user set (its samples before any --limit: every style and type it ran), else
    the published data of the same configuration (`published_population`)."""
    if run.is_demo or run.benchmark == "mentalbench_generate" or not run.dataset_size:
        count, basis = published_population(run)
    else:
        count, basis = run.dataset_size, f"the {run.dataset_size:,} samples of {run.data_source}"
    if run.uncovered:  # its per-case cost stands for types or styles it never ran
        basis += f", estimated from a run in which {run.uncovered}"
    return count, basis


def _types(variants: list[str]) -> str:
    return ", ".join(variants)


def published_population(run: Run) -> tuple[float, str]:
    """The published cases of `run`'s configuration: MentalBench's items of its types,
    generators and truncation setting; the interview's profiles of its types (or its fresh
    profiles, `n_sampled` per type), times its patient styles; the task's published data for
    the other tasks. NaN, with the reason, where the published counts cannot say (a disorders
    filter)."""
    args, facts = run.task_args, run.metadata
    if run.benchmark == "mentalbench" and facts.get("variants"):
        variants = [v for v in facts["variants"] if v in MENTALBENCH_ITEMS]
        if args.get("disorders"):
            return math.nan, "not projected: a disorders filter (counts by disorder not bundled)"
        chosen = args.get("generators") or GENERATORS
        chosen = [chosen] if isinstance(chosen, str) else chosen
        chosen = {g.strip().lower() for item in chosen for g in str(item).split(",")}
        chosen = chosen & set(GENERATORS) or set(GENERATORS)  # the demo's own stands for all
        truncated = bool(args.get("include_truncated"))
        count = sum(
            complete + (cut if truncated else 0)
            for v in variants
            for g, (complete, cut) in zip(GENERATORS, MENTALBENCH_ITEMS[v], strict=True)
            if g in chosen
        )
        who = "every generator" if chosen >= set(GENERATORS) else ", ".join(sorted(chosen))
        return count, f"MentalBench's {count:,} published items of types {_types(variants)} ({who})"
    if run.benchmark == "interview" and facts.get("variants"):
        variants = [v for v in facts["variants"] if v in INTERVIEW_PROFILES]
        styles = facts.get("patient_styles") or ["plain"]
        source = str(args.get("cases", "published"))
        published = sum(INTERVIEW_PROFILES[v] for v in variants)
        fresh = int(args.get("n_sampled") or SAMPLED_PER_TYPE) * len(variants)
        cases = {"published": published, "sampled": fresh}.get(source, published + fresh)
        what = {"published": "published", "sampled": "fresh"}.get(source, "published and fresh")
        count = cases * len(styles)
        return count, (
            f"the {cases:,} {what} profiles of types {_types(variants)} x {len(styles)} patient "
            f"style(s) = {count:,} interviews"
        )
    return PUBLISHED[run.benchmark]


def served_usage(sample: EvalSample, found: Served) -> None:
    """Add to `found` the calls of `sample` that a cache answered: model events read from
    Inspect's cache, and the grader calls selfdx answered from memory."""
    for event in sample.events:
        if isinstance(event, ModelEvent) and event.cache == "read" and event.output.usage:
            _add(found, event.role or "model", event.model, event.output.usage, 1)
    tally = sample.store.get(SERVED_KEY)
    if tally is None:  # a log from before selfdx counted the judge calls it answered from memory
        turns = sample.store.get("SafePsychTrace:turns") or []
        reused = sum(1 for turn in turns if isinstance(turn, dict) and turn.get("judge_reused"))
        if reused:
            _add(found, UNCOUNTED, "", ModelUsage(), reused)
    for role, seen in (tally or {}).items():
        usage = ModelUsage(
            input_tokens=seen["input_tokens"],
            output_tokens=seen["output_tokens"],
            total_tokens=seen["input_tokens"] + seen["output_tokens"],
        )
        _add(found, role, seen.get("model", ""), usage, seen["calls"])


def _add(found: Served, role: str, model: str, usage: ModelUsage, calls: int) -> None:
    if role in found and found[role][0] not in (model, "") and model:
        role = f"{role} ({model})"  # the role played by another model: a re-judging's calls
    before = found.get(role)
    if before is None:
        found[role] = (model, usage, calls)
    else:
        found[role] = (before[0] or model, before[1] + usage, before[2] + calls)


def usage_frame(
    runs: list[Run],
    prices: dict[str, ModelCost],
    urls: dict[str, str] | None = None,
    served: dict[str, Served] | None = None,
) -> pd.DataFrame:
    """One row per run and role: tokens, tokens per case, dollars (CSV `cost_by_run.csv`);
    given `urls`, each log's address in `inspect view` (`log_viewer`).

    `served`, by log path, are the calls a cache answered in the runs whose samples were read
    (`served_usage`): `served_*` columns, and counted in the tokens and cost per case (what a
    fresh run takes), not in `cost` (what was paid). A case is a sample of one epoch: `samples`
    counts the samples scored, every epoch apart.
    """
    rows = []
    for run in runs:
        samples = run.completed_samples
        basis = projection_basis(run)
        cached = dict(served[run.path]) if served and run.path in served else None
        uncounted = cached.pop(UNCOUNTED, None) if cached is not None else None
        roles = dict(run.usage)
        for role, (model, _, _) in (cached or {}).items():
            roles.setdefault(role, (model, ModelUsage()))
        for role, (model, usage) in sorted(roles.items()):
            cost, source = run_cost(model, usage, prices)
            _, from_cache, calls = (cached or {}).get(role, (model, ModelUsage(), 0))
            whole = usage + from_cache
            fresh, _ = run_cost(model, whole, prices) if calls else (cost, source)
            over = basis[1]
            if cached is None and role.startswith("grader") and run.task_args.get("judge_cache"):
                over += f"; {CACHED}"
            elif uncounted and role.startswith("grader"):
                over += f"; {UNCOUNTED_NOTE}"
            elif calls:
                over += f"; {SERVED_NOTE}"
            rows.append(
                {
                    "log": _log_name(run),
                    "eval_id": run.eval_id,
                    "benchmark": run.benchmark,
                    "variant": run.variant,
                    "dataset": run.dataset,
                    "role": ROLE_NAMES.get(role, role),
                    "model": model,
                    "samples": samples,
                    "input_tokens": usage.input_tokens,
                    "output_tokens": usage.output_tokens,
                    "cache_read_tokens": usage.input_tokens_cache_read or 0,
                    "cache_write_tokens": usage.input_tokens_cache_write or 0,
                    "reasoning_tokens": usage.reasoning_tokens or 0,
                    "served_calls": calls,
                    "served_input_tokens": from_cache.input_tokens,
                    "served_output_tokens": from_cache.output_tokens,
                    "input_per_case": whole.input_tokens / samples if samples else math.nan,
                    "output_per_case": whole.output_tokens / samples if samples else math.nan,
                    "cost": cost,
                    "fresh_cost": fresh,
                    "cost_per_case": fresh / samples if samples else math.nan,
                    "price": source,
                    "published_cases": basis[0],
                    "projected_over": over,
                    **({} if urls is None else {"log_viewer": urls.get(run.path, "")}),
                }
            )
    return pd.DataFrame(rows)


def projection_frame(usage: pd.DataFrame) -> pd.DataFrame:
    """Per configuration, role and model: tokens (and dollars) per case over all its runs,
    and the same for the whole published benchmark (CSV `cost_projection.csv`)."""
    if usage.empty:
        return usage
    keys = ["benchmark", "variant", "dataset", "role", "model", "published_cases"]
    grouped = usage.groupby(keys, sort=False, dropna=False)
    rows = []
    for key, group in grouped:
        # one row per configuration: the runs' notes (a cache, a log without a tally) joined
        notes = [part for text in group["projected_over"] for part in text.split("; ")]
        samples = int(group["samples"].sum())
        cases = float(group["published_cases"].iloc[0])
        inputs = group["input_tokens"].sum() + group["served_input_tokens"].sum()
        outputs = group["output_tokens"].sum() + group["served_output_tokens"].sum()
        input_per_case = inputs / samples if samples else math.nan
        output_per_case = outputs / samples if samples else math.nan
        priced = bool((group["price"] != "none").all())
        cost_per_case = group["fresh_cost"].sum() / samples if samples and priced else math.nan
        rows.append(
            {
                **dict(zip(keys[:-1], key[:-1], strict=True)),
                "projected_over": "; ".join(dict.fromkeys(notes)),
                "runs": len(group),
                "samples": samples,
                "input_per_case": input_per_case,
                "output_per_case": output_per_case,
                "cost_per_case": cost_per_case,
                "published_cases": cases,
                "projected_input_tokens": input_per_case * cases,
                "projected_output_tokens": output_per_case * cases,
                "projected_cost": cost_per_case * cases,
                **_addresses(group),
            }
        )
    return pd.DataFrame(rows)


def _addresses(group: pd.DataFrame) -> dict[str, str]:
    """The group's logs in `inspect view` (`log_viewer`, a space between), where known."""
    if "log_viewer" not in group:
        return {}
    return {"log_viewer": " ".join(dict.fromkeys(u for u in group["log_viewer"] if u))}


def price_problems(usage: pd.DataFrame, prices: dict[str, ModelCost]) -> list[str]:
    """What is wrong between a price table and the runs: a priced model no run used (a
    misspelled name), and a model that ran with no price (its cost left blank). Offline
    models (`selfdx/`, `mockllm/`) cost nothing and need no price."""
    if not prices or usage.empty:
        return []
    models = set(usage["model"])
    problems = []
    unused = sorted(set(prices) - models)
    if unused:
        problems.append(
            f"--prices names {', '.join(unused)}, which no run used (the runs used "
            f"{', '.join(sorted(models))}): check the spelling"
        )
    paid = usage[~usage["model"].str.startswith(("selfdx/", "mockllm/"))]
    unpriced = sorted(set(paid.loc[paid["price"] == "none", "model"]))
    if unpriced:
        problems.append(f"--prices has no price for {', '.join(unpriced)}: its cost is left blank")
    return problems


def total_by_model(usage: pd.DataFrame) -> pd.DataFrame:
    """The spend of these runs by model and data, over every role the model played; a run
    reported in two rows (scored again with another parser beside its first log: the same
    Inspect eval id) is paid once."""
    if usage.empty:
        return usage
    run = usage["eval_id"].where(usage["eval_id"] != "", usage["log"])
    usage = usage[~usage.assign(run=run).duplicated(["run", "role", "model"])]
    grouped = usage.groupby(["model", "dataset"], sort=True)
    frame = grouped.agg(
        runs=("log", "nunique"),
        input_tokens=("input_tokens", "sum"),
        output_tokens=("output_tokens", "sum"),
        cost=("cost", lambda c: c.sum(min_count=1)),
    ).reset_index()
    if "log_viewer" in usage:
        frame["log_viewer"] = [_addresses(group)["log_viewer"] for _, group in grouped]
    return frame


SHOWN_USAGE = [
    "log",
    "benchmark",
    "role",
    "model",
    "dataset",
    "samples",
    "input_tokens",
    "output_tokens",
    "input_per_case",
    "output_per_case",
    "cost",
    "cost_per_case",
]
SHOWN_PROJECTION = [
    "benchmark",
    "variant",
    "role",
    "model",
    "dataset",
    "input_per_case",
    "output_per_case",
    "projected_over",
    "projected_input_tokens",
    "projected_output_tokens",
    "projected_cost",
]


def shown(frame: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """The columns the report prints, token counts as whole numbers with thousands separators
    and dollars to the cent (the CSVs keep every column at full precision)."""
    table = frame[columns].copy()
    for column in table.columns:
        if "tokens" in column or column.endswith("_per_case") and "cost" not in column:
            table[column] = table[column].map(lambda v: "–" if _none(v) else f"{v:,.0f}")
        elif "cost" in column:
            table[column] = table[column].map(lambda v: "–" if _none(v) else _dollars(v))
    return table


def _none(value: object) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _dollars(value: float) -> str:
    return f"${value:,.2f}" if value >= 0.01 or value == 0 else f"${value:.4f}"

"""MentalBench data: choose a source (`"hf"`, `"demo"` or a local path), then turn items into
Inspect samples with the gold letters as target and every identifier in metadata.

Data: MentalBench (arXiv 2602.12871), HoyunS/MentalBench and hysong/MentalBench, CC BY 4.0.
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Any

from inspect_ai.dataset import Sample

from selfdx.datasets.interview.loading import load_cases
from selfdx.datasets.mentalbench.filters import (
    ArgList,
    normalise_disorders,
    normalise_generators,
    normalise_types,
    select_items,
)
from selfdx.datasets.mentalbench.schema import (
    DISORDER_CODES,
    LETTERS,
    VARIANTS,
    MentalBenchDataError,
    MentalBenchItem,
)
from selfdx.datasets.mentalbench.sources import (
    HF_REPO,
    HF_REVISION,
    MentalBenchSourceError,
    read_csv_file,
    read_demo,
    read_hugging_face,
    read_resources_folder,
)
from selfdx.datasets.paths import local_path, what_is_there
from selfdx.errors import ArgumentError

__all__ = [
    "HF_REPO",
    "HF_REVISION",
    "MentalBenchDataError",
    "MentalBenchItem",
    "MentalBenchSourceError",
    "item_to_sample",
    "load_items",
    "mentalbench_samples",
]


def load_items(
    data: str | Path = "demo",
    revision: str = HF_REVISION,
    variants: tuple[str, ...] | None = None,
) -> list[MentalBenchItem]:
    """Every item of a source: `"hf"`, `"demo"`, a `resources/` folder or a CSV in the HF schema.

    `variants` lets the folder reader skip files of types that will not be used.
    """
    if not isinstance(data, str | Path) or not str(data).strip():
        raise ArgumentError(f"data: expected 'hf', 'demo' or a path, got {data!r}")
    if str(data) == "demo":
        items = read_demo()
    elif str(data) == "hf":
        items = read_hugging_face(revision)
    else:
        path = local_path(data)
        if not path.exists():
            raise ArgumentError(
                f"data: {str(data)!r} does not exist (data= takes 'hf', 'demo', the resources/ "
                "folder of a clone of the MentalBench repository, or the Hugging Face "
                "mentalbench.csv)"
            )
        if path.is_dir():
            items = read_resources_folder(path, set(variants) if variants else None)
        elif path.is_file() and path.suffix.lower() == ".csv":
            items = read_csv_file(path)
        else:
            raise ArgumentError(
                f"data: {str(data)!r} is {what_is_there(path)} without the .csv suffix; expected "
                "'hf', 'demo', a MentalBench resources/ folder or a .csv file in the Hugging Face "
                "schema"
            )
    check_unique(items)
    return interleaved(items)


def interleaved(items: list[MentalBenchItem]) -> list[MentalBenchItem]:
    """A fixed order in which every prefix mixes the types and disorders: the k-th item of each
    type in turn (Types 1, 2, 3, 4a, 4b), and within a type the items of every disorder before
    the next of any (by id, generator, code). `--limit N` then runs a bit of every type, where
    the files' order (Type 1 first, disorder by disorder) would run Type 1 alone."""
    by_type: dict[str, list[MentalBenchItem]] = {}
    for item in sorted(items, key=lambda i: (i.number, i.generator, i.code)):
        by_type.setdefault(item.variant, []).append(item)
    queues = [by_type[v] for v in VARIANTS if v in by_type]
    longest = max((len(q) for q in queues), default=0)
    return [q[k] for k in range(longest) for q in queues if k < len(q)]


def check_unique(items: list[MentalBenchItem]) -> None:
    """Two records for one (variant, generator, item) would be counted twice: refuse them."""
    counts = Counter(item.sample_id for item in items)
    repeated = [sample_id for sample_id, count in counts.items() if count > 1]
    if repeated:
        first = next(item for item in items if item.sample_id == repeated[0])
        raise MentalBenchDataError(
            f"MentalBench item {repeated[0]} appears {counts[repeated[0]]} times "
            f"({len(repeated)} repeated ids in all; first at {first.source})"
        )


def item_to_sample(item: MentalBenchItem, shuffle_choices: bool = False, seed: int = 0) -> Sample:
    """An Inspect sample: narrative as input, option names as choices, gold letters as target.

    With `shuffle_choices`, the options are permuted by a generator seeded with `seed` and the
    sample id, so the order is the same on every run and independent of the other samples.
    """
    order = list(range(len(item.options)))
    if shuffle_choices:
        random.Random(f"{seed}:{item.sample_id}").shuffle(order)
    options = [item.options[index] for index in order]
    original_letters = [LETTERS[index] for index in order]
    gold = sorted(LETTERS[original_letters.index(letter)] for letter in item.answer_letters)
    return Sample(
        id=item.sample_id,
        input=item.question,
        choices=options,
        target=gold,
        metadata={
            "type": item.type,
            "variant": item.variant,
            "code": item.code,
            "generator": item.generator,
            "item_key": item.key,
            "item_id": item.number,
            "seed_group": item.seed_group,
            "gold_codes": [
                DISORDER_CODES[item.options[LETTERS.index(x)]] for x in item.answer_letters
            ],
            "option_codes": [DISORDER_CODES[name] for name in options],
            "answer": item.answer,
            "original_letters": original_letters,
            "truncated": item.truncated,
        },
    )


def option_order_free(sample: Sample) -> list[Any]:
    """What a sample holds apart from the order of its options (the data identity of a run
    with `shuffle_choices`: its seeds are repeats over one data set, not different data)."""
    shuffled = ("option_codes", "original_letters")
    metadata = {k: v for k, v in (sample.metadata or {}).items() if k not in shuffled}
    options = sorted(sample.choices or [])
    return [sample.id, sample.input, options, sorted(metadata.get("gold_codes", [])), metadata]


def mentalbench_samples(
    data: str | Path = "demo",
    types: ArgList = None,
    generators: ArgList = None,
    disorders: ArgList = None,
    include_truncated: bool = False,
    shuffle_choices: bool = False,
    seed: int = 0,
    revision: str = HF_REVISION,
) -> list[Sample]:
    """Load, validate, filter and convert: the dataset of the `mentalbench` task."""
    variants = normalise_types(types)
    chosen_generators = normalise_generators(generators)
    chosen_disorders = normalise_disorders(disorders)
    items = load_items(data, revision, variants)
    kept = select_items(items, variants, chosen_generators, chosen_disorders, include_truncated)
    samples = [item_to_sample(item, shuffle_choices, seed) for item in kept]
    flags = profile_flags(data, variants)
    if flags is not None:  # a resources/ folder: the profiles behind the items are known
        for item, sample in zip(kept, samples, strict=True):
            (sample.metadata or {})["dsm5_flags"] = flags.get((item.variant, item.key), [])
    return samples


def profile_flags(data: str | Path, variants: list[str]) -> dict[tuple[str, str], list[str]] | None:
    """(variant, item key) -> the DSM-5 flags of the profile the item was written from
    (`selfdx.datasets.interview.dsm5_flags`), for a MentalBench resources/ folder (the
    profiles are its `features/` records, the same for every generator); None for other data."""
    folder = Path(data) if data not in ("demo", "hf") else None
    if folder is None or not (folder / "knowledge_graph").is_dir():
        return None
    _, cases = load_cases(str(folder), tuple(variants))
    return {(case.variant, case.key): case.dsm5_flags for case in cases}

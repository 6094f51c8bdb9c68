"""MentalBench task-argument normalisation and item selection (types, generators, disorders).

`-T types=1,2` reaches a task as a list, `-T types=3` as a bare int and `types="1,2"` as a
string: every normaliser here accepts all of these and raises an `ArgumentError` naming the
argument.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Iterable

from selfdx.arguments import ArgList, listed
from selfdx.datasets.mentalbench.schema import CODE_RE, VARIANTS, MentalBenchItem
from selfdx.errors import ArgumentError

logger = logging.getLogger(__name__)


def type_choices(types: ArgList, argument: str = "types") -> list[tuple[str, tuple[str, ...]]]:
    """Each type as given, in order, with the variants it chooses ('1', '2', '3', '4a', '4b'; a
    type 4, or `high`, the clear tier, chooses both 4a and 4b); [] for None. The one reader of
    MentalBench and interview types: the tasks' `types` and `selfdx sweep --types`.

    A type given twice (`1,1`), or two that choose the same variant (`4,4a`: 4 is 4a and 4b), is
    an ArgumentError naming `argument` and the repeat: run once it would not be what was asked
    for, run twice (a sweep's task per type) it would count the same cases twice."""
    parts = listed(argument, types)
    chosen: list[tuple[str, tuple[str, ...]]] = []
    by: dict[str, tuple[str, str]] = {}  # variant: (the type that chose it, as given; read)
    for part in parts or []:
        text = re.sub(r"^type\s*", "", part.lower())
        if text in ("4", "high"):
            variants: tuple[str, ...] = ("4a", "4b")
        elif text in VARIANTS:
            variants = (text,)
        else:
            raise ArgumentError(
                f"{argument}: {part!r} is not a MentalBench type (1, 2, 3, 4, 4a, 4b or high)"
            )
        common = [variant for variant in variants if variant in by]
        if common:
            earlier, read = by[common[0]]
            if read == text:
                raise ArgumentError(f"{argument}: {part} is given more than once")
            raise ArgumentError(
                f"{argument}: {part} overlaps {earlier} (both choose {', '.join(common)}; 4 and "
                "high are 4a and 4b): give each type once"
            )
        by.update((variant, (part, text)) for variant in variants)
        chosen.append((part, variants))
    return chosen


def normalise_types(types: ArgList) -> tuple[str, ...]:
    """Variants to run ('1', '2', '3', '4a', '4b'), in that order (`type_choices`); every
    variant for None."""
    if types is None:
        return VARIANTS
    chosen = {variant for _, variants in type_choices(types) for variant in variants}
    return tuple(variant for variant in VARIANTS if variant in chosen)


def types_of(variants: Iterable[str]) -> tuple[int, ...]:
    """The whole types (1-4) that a set of variants covers."""
    return tuple(sorted({int(variant[0]) for variant in variants}))


def normalise_generators(generators: ArgList) -> tuple[str, ...] | None:
    parts = listed("generators", generators)
    if parts is None:
        return None
    return tuple(dict.fromkeys(part.lower() for part in parts))


def normalise_disorders(disorders: ArgList) -> tuple[str, ...] | None:
    """Disorder codes (`D005`) and/or pair codes (`D001-D005` or `D001_D005`)."""
    parts = listed("disorders", disorders)
    if parts is None:
        return None
    codes = []
    for part in parts:
        pieces = re.split(r"[-_]", part.upper())
        if len(pieces) > 2 or not all(CODE_RE.match(piece) for piece in pieces):
            raise ArgumentError(
                f"disorders: {part!r} is neither a disorder code (D001-D023) "
                "nor a pair code (D001-D005)"
            )
        codes.append("-".join(pieces))
    return tuple(dict.fromkeys(codes))


def matches_disorders(item: MentalBenchItem, disorders: tuple[str, ...]) -> bool:
    """A disorder code selects every item it takes part in; a pair code selects that pair."""
    return any(code == item.code or code in item.codes for code in disorders)


def select_items(
    items: list[MentalBenchItem],
    variants: tuple[str, ...],
    generators: tuple[str, ...] | None,
    disorders: tuple[str, ...] | None,
    include_truncated: bool,
) -> list[MentalBenchItem]:
    """Apply the filters, logging how many items each one left out; never returns nothing."""
    if generators is not None:
        known = sorted({item.generator for item in items})
        unknown = [name for name in generators if name not in known]
        if unknown:
            raise ArgumentError(f"generators: {unknown[0]!r} is not in this data (has {known})")
    if disorders is not None:
        known_codes = {code for item in items for code in (item.code, *item.codes)}
        unknown = [code for code in disorders if code not in known_codes]
        if unknown:
            raise ArgumentError(f"disorders: {unknown[0]!r} does not occur in this data")

    kept = [item for item in items if item.variant in variants]
    if generators is not None:
        kept = [item for item in kept if item.generator in generators]
    if disorders is not None:
        kept = [item for item in kept if matches_disorders(item, disorders)]
    truncated = [item for item in kept if item.truncated]
    if truncated and not include_truncated:
        kept = [item for item in kept if not item.truncated]
        logger.warning(
            "MentalBench: left out %d truncated generation(s) (include_truncated=True keeps "
            "them): %s",
            len(truncated),
            ", ".join(item.sample_id for item in truncated),
        )
    elif truncated:
        logger.info("MentalBench: kept %d truncated generation(s)", len(truncated))
    if not kept:
        raise ArgumentError(
            "MentalBench: no items are left after the types/generators/disorders filters"
        )
    counts = Counter(item.variant for item in kept)
    logger.info(
        "MentalBench: %d items (%s)",
        len(kept),
        ", ".join(f"type {variant}: {counts[variant]}" for variant in VARIANTS if counts[variant]),
    )
    return kept

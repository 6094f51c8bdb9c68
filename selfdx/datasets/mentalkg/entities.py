"""MentalKG, the DSM-5 knowledge graph behind MentalBench, as typed, checked Python objects.

`load_kg(PATH)` reads the published `knowledge_graph/EN` folder (disorders with their criteria,
symptom groups, symptoms, directed differential-diagnosis nodes and the event vocabularies),
checks it (see `reader.py`) and returns a frozen `MentalKG`. Its `graph` is a networkx
view of the same content for the questions the case generator and the baselines ask (shared
groups and symptoms, differentials of a disorder; see `graph.py`).

Data: MentalKG from MentalBench (arXiv 2602.12871, HoyunS/MentalBench), CC BY 4.0.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from selfdx.errors import SelfdxError

if TYPE_CHECKING:
    import networkx as nx

DAYS_PER_UNIT = {"day": 1, "week": 7, "month": 30, "year": 365}
DURATION_PART = re.compile(r"(\d+)\s*(day|week|month|year)s?", re.IGNORECASE)
DURATION_TEXT = re.compile(
    r"^\s*\d+\s*(day|week|month|year)s?(\s*(,|and|,\s*and)\s*\d+\s*(day|week|month|year)s?)*\s*$",
    re.IGNORECASE,
)


class MentalKGError(SelfdxError):
    """A MentalKG folder that is missing a file or breaks the published schema."""


def duration_days(text: str) -> int:
    """Days in a duration such as `6 months`, `2 weeks` or `1 year and 5 months`.

    A month counts 30 days and a year 365, for comparisons between durations only.
    """
    if not isinstance(text, str) or not DURATION_TEXT.match(text):
        raise ValueError(f"{text!r} is not a duration such as '2 weeks' or '1 year and 3 months'")
    return sum(int(n) * DAYS_PER_UNIT[unit.lower()] for n, unit in DURATION_PART.findall(text))


@dataclass(frozen=True)
class Symptom:
    """One symptom node (`S001`-`S084`): its name, source group, description and expressions."""

    code: str
    name: str  # as published, with underscores: `Depressed_Mood`
    category: str  # the symptom file's group, e.g. `depressive_episode`
    description: str
    subtypes: tuple[tuple[str, str], ...] = ()  # (subtype name, its description)
    examples: tuple[str, ...] = ()
    source: str = field(default="", compare=False)

    @property
    def label(self) -> str:
        """The name in plain words: `Depressed Mood`."""
        return self.name.replace("_", " ")


@dataclass(frozen=True)
class SymptomGroup:
    """A criterion group shared by disorders: threshold, pool and mandatory symptoms."""

    name: str
    min_count: int
    pool: tuple[str, ...]  # every symptom that counts for the group (pool plus mandatory lists)
    must_include_all: tuple[str, ...] = ()
    must_include_one_of: tuple[str, ...] = ()
    min_duration: str | None = None
    functional_impairment_required: bool | None = None

    @property
    def min_days(self) -> int | None:
        return duration_days(self.min_duration) if self.min_duration else None


@dataclass(frozen=True)
class GroupLink:
    """A disorder's use of a group: required (`must_include`) or optional (`include`)."""

    group: str
    required: bool


@dataclass(frozen=True)
class Criteria:
    """Disorder-level criteria besides the symptom groups."""

    min_duration: str | None = None
    max_duration: str | None = None
    functional_impairment_required: bool | None = None
    traumatic_stressor_required: bool = False
    psychosocial_stressor_required: bool = False
    additional_requirements: tuple[str, ...] = ()

    @property
    def min_days(self) -> int | None:
        return duration_days(self.min_duration) if self.min_duration else None

    @property
    def max_days(self) -> int | None:
        return duration_days(self.max_duration) if self.max_duration else None

    @property
    def empty(self) -> bool:
        return self == Criteria()


@dataclass(frozen=True)
class Disorder:
    """A disorder node (`D001`-`D023`) with its groups and criteria."""

    code: str
    name: str
    groups: tuple[GroupLink, ...]
    criteria: Criteria

    @property
    def required_groups(self) -> tuple[str, ...]:
        return tuple(link.group for link in self.groups if link.required)

    @property
    def optional_groups(self) -> tuple[str, ...]:
        return tuple(link.group for link in self.groups if not link.required)

    @property
    def group_names(self) -> tuple[str, ...]:
        return tuple(link.group for link in self.groups)


@dataclass(frozen=True)
class Differential:
    """A directed differential-diagnosis node `main-sub`: what triggers the confusion and the
    rule that tells each side apart."""

    main: str
    sub: str
    condition: str | None  # the triggering condition; None where the KG says "None"
    key_difference: str
    rules: tuple[tuple[str, tuple[str, ...]], ...]  # ((main, rules), (sub, rules))
    source: str = field(default="", compare=False)

    @property
    def id(self) -> str:
        return f"{self.main}-{self.sub}"

    def rule_for(self, code: str) -> str:
        """The discriminating rule text for `code` (one of the two members)."""
        for member, texts in self.rules:
            if member == code:
                return " ".join(texts)
        raise KeyError(f"{code} is not part of the differential {self.id}")


@dataclass(frozen=True)
class EventVocabulary:
    """`event.json`: functional-impairment domains and the two stressor vocabularies."""

    impairment_domains: tuple[tuple[str, str], ...]  # (key, label)
    trauma_definition: str
    trauma_exposures: tuple[tuple[str, str], ...]  # (exposure type, description)
    trauma_examples: tuple[tuple[str, str], ...]  # (event class, description)
    psychosocial_definition: str
    psychosocial_examples: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class KGCounts:
    disorders: int
    groups: int
    symptoms: int
    differentials: int


PUBLISHED_COUNTS = KGCounts(disorders=23, groups=23, symptoms=84, differentials=87)


@dataclass(frozen=True)
class MentalKG:
    """The whole graph: nodes by id, plus a networkx view built on first use."""

    folder: Path
    disorders: dict[str, Disorder]
    groups: dict[str, SymptomGroup]
    symptoms: dict[str, Symptom]
    differentials: dict[tuple[str, str], Differential]  # keyed (main, sub)
    events: EventVocabulary

    @property
    def counts(self) -> KGCounts:
        return KGCounts(
            len(self.disorders), len(self.groups), len(self.symptoms), len(self.differentials)
        )

    @cached_property
    def graph(self) -> nx.DiGraph:
        from selfdx.datasets.mentalkg.graph import build_graph

        return build_graph(self)

    @cached_property
    def codes_by_name(self) -> dict[str, str]:
        return {disorder.name: code for code, disorder in self.disorders.items()}

    def disorder(self, code: str) -> Disorder:
        if code not in self.disorders:
            raise KeyError(f"MentalKG at {self.folder} has no disorder {code!r}")
        return self.disorders[code]

    def differential(self, main: str, sub: str) -> Differential:
        if (main, sub) not in self.differentials:
            raise KeyError(f"MentalKG at {self.folder} has no differential {main}-{sub}")
        return self.differentials[(main, sub)]

    def groups_of(self, code: str, required_only: bool = False) -> tuple[str, ...]:
        """The group names a disorder uses (required ones only, if asked)."""
        disorder = self.disorder(code)
        return disorder.required_groups if required_only else disorder.group_names

    def symptoms_of(self, code: str) -> frozenset[str]:
        """Every symptom that counts for any group of the disorder."""
        return frozenset(s for g in self.disorder(code).group_names for s in self.groups[g].pool)

    def shared_groups(self, first: str, second: str) -> tuple[str, ...]:
        from selfdx.datasets.mentalkg.graph import shared_groups

        return shared_groups(self.graph, first, second)

    def shared_symptoms(self, first: str, second: str) -> tuple[str, ...]:
        from selfdx.datasets.mentalkg.graph import shared_symptoms

        return shared_symptoms(self.graph, first, second)

    def differentials_of(self, code: str) -> tuple[Differential, ...]:
        """The differentials in which `code` is the main disorder, in published order."""
        from selfdx.datasets.mentalkg.graph import differentials_of

        return tuple(self.differentials[pair] for pair in differentials_of(self.graph, code))

    def completing_disorders(self, code: str, group: str) -> tuple[str, ...]:
        """Disorders whose required groups are exactly `code`'s plus `group`.

        An optional group that reached its threshold would turn a case of `code` into one of
        these (ADHD, inattentive presentation, plus a full hyperactive group is the combined
        presentation); the sampler keeps such groups below threshold.
        """
        target = set(self.disorder(code).required_groups) | {group}
        return tuple(
            other
            for other, disorder in self.disorders.items()
            if other != code and set(disorder.required_groups) == target
        )

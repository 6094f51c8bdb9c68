"""The case profile: everything a generated MentalBench case is written from.

A `CaseProfile` travels in the sample metadata of `selfdx/mentalbench_generate` (as a plain
dict, see `CaseProfile.model_dump`) and comes back out of the log for the export. It holds the
sampled symptom groups and symptoms (each with the one expression shown to the writer), the
disorder-level criteria, the differential of a pair (Types 3-4), the four options with why each
distractor was chosen, and the patient persona.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from selfdx.datasets.mentalbench.schema import LETTERS
from selfdx.datasets.mentalkg.personas import Persona

Variant = Literal["1", "2", "3", "4a", "4b"]
OptionKind = Literal["answer", "differential", "highly_likely", "moderately_likely", "less_likely"]
TIER: dict[str, str] = {"1": "low", "2": "medium", "3": "high", "4a": "high", "4b": "high"}
ID_LETTER: dict[str, str] = {"low": "l", "medium": "m", "high": "h"}
IDS_PER_SEED = 5  # MentalBench numbers five variants per seed profile (l001-l005 share one)


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class SampledGroup(Frozen):
    """One symptom group as sampled: its symptoms and, where the KG asks, duration and FI."""

    name: str
    required: bool
    symptoms: tuple[str, ...]
    duration: str | None = None
    functional_impairment: bool | None = None


class SampledSymptom(Frozen):
    """A symptom with the one expression the writer is shown: a subtype or an example."""

    code: str
    name: str
    category: str
    description: str
    expression_name: str | None  # the subtype's name; None for symptoms that carry examples
    expression: str  # the subtype's description, or the example


class Stressor(Frozen):
    """The stressor a trauma- or stressor-related case is built around (from `event.json`)."""

    kind: Literal["traumatic", "psychosocial"]
    event_class: str
    event_description: str
    exposure: str | None = None  # traumatic only: how the person was exposed
    exposure_description: str | None = None


class SampledCriteria(Frozen):
    """Disorder-level criteria as stated in the case (absent ones are None / empty)."""

    duration: str | None = None
    functional_impairment: bool | None = None
    impairment_domains: tuple[str, ...] = ()
    traumatic_stressor: bool = False
    psychosocial_stressor: bool = False
    stressor: Stressor | None = None
    additional_requirements: tuple[str, ...] = ()

    def as_stated(self) -> dict[str, Any]:
        """The criteria in the published profiles' layout (`sampled_diagnostic_criteria`
        keys), for the rule check and the interview's facts alike."""
        return {
            "duration": self.duration,
            "functional_impairment_required": self.functional_impairment,
            "impairment_domains": list(self.impairment_domains),
            "traumatic_stressor_required": self.traumatic_stressor,
            "psychosocial_stressor_required": self.psychosocial_stressor,
            "stressor": self.stressor.model_dump() if self.stressor else None,
            "additional_requirements": list(self.additional_requirements),
        }


class OptionEntry(Frozen):
    """One answer option, with its role and what it shares with the sampled profile."""

    code: str
    name: str
    kind: OptionKind
    shared_groups: tuple[str, ...] = ()
    shared_symptoms: tuple[str, ...] = ()


class PairInfo(Frozen):
    """The differential of a Type 3-4 case: trigger, key difference and both rules."""

    main: str
    sub: str
    condition: str | None
    key_difference: str
    rule_main: str
    rule_sub: str
    requirements_main: tuple[str, ...] = ()
    requirements_sub: tuple[str, ...] = ()


class SeedProfile(Frozen):
    """What the variants of one seed share: the disorder's sampled groups and criteria."""

    disorder: str
    completeness: Literal["full", "partial"]
    groups: tuple[SampledGroup, ...]
    criteria: SampledCriteria
    shortfalls: tuple[str, ...] = ()


class CaseProfile(Frozen):
    """One case to write."""

    variant: Variant
    code: str  # `D005` (Types 1-2) or `D001-D005` (Types 3-4, main first)
    number: str  # `l001`, `m007`, `h012`
    seed_index: int  # 1 for ids 001-005, 2 for 006-010, ...
    disorder: str  # whose symptoms the case shows (the main disorder for Types 3-4)
    disorder_name: str
    target: tuple[str, ...]  # gold codes in key order (Type 3: main, then sub)
    groups: tuple[SampledGroup, ...]
    symptoms: tuple[SampledSymptom, ...]
    criteria: SampledCriteria | None  # None for Types 3-4, whose criteria are removed
    removed_criteria: SampledCriteria | None = None
    pair: PairInfo | None = None
    options: tuple[OptionEntry, ...]
    persona: Persona
    shortfalls: tuple[str, ...] = ()  # Type 2 (and its Types 3-4 reuse): how it falls short

    @property
    def tier(self) -> str:
        return TIER[self.variant]

    @property
    def key(self) -> str:
        """The MentalBench item key, e.g. `D005_l001` or `D001-D005_h001`."""
        return f"{self.code}_{self.number}"

    @property
    def sample_id(self) -> str:
        return f"t{self.variant}-{self.key}"

    @property
    def option_codes(self) -> tuple[str, ...]:
        return tuple(option.code for option in self.options)

    @property
    def answer_letters(self) -> tuple[str, ...]:
        return tuple(LETTERS[self.option_codes.index(code)] for code in self.target)

    @property
    def options_text(self) -> str:
        """The options block exactly as MentalBench publishes it (indented, leading newline)."""
        lines = "".join(
            f"\n    {letter}. {option.name}"
            for letter, option in zip(LETTERS, self.options, strict=True)
        )
        return lines + "\n    "

    @property
    def answer_text(self) -> str:
        """The key as MentalBench publishes it: `C. <name>` or `B & A. <main> & <sub>`."""
        names = [self.options[LETTERS.index(letter)].name for letter in self.answer_letters]
        return f"{' & '.join(self.answer_letters)}. {' & '.join(names)}"

    @property
    def symptom_codes(self) -> tuple[str, ...]:
        return tuple(symptom.code for symptom in self.symptoms)

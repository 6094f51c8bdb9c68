"""The small synthetic graph behind the offline demo of `selfdx/interview`.

`demo/interview_demo.json` is shaped like MentalKG (disorders with required and optional
symptom groups, thresholds, durations, criteria, differentials and the event vocabularies),
but its symptoms and wording were written for this project. `demo_kg()` builds a `MentalKG`
from it, so the sampler, the rule check and the offline policies run on it unchanged.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from selfdx.datasets.mentalkg.entities import (
    Criteria,
    Differential,
    Disorder,
    EventVocabulary,
    GroupLink,
    MentalKG,
    Symptom,
    SymptomGroup,
)
from selfdx.datasets.paths import DEMO_DIR

DEMO_FILE = DEMO_DIR / "interview_demo.json"


@cache
def demo_raw() -> dict[str, Any]:
    return json.loads(DEMO_FILE.read_text(encoding="utf-8"))


def demo_settings() -> dict[str, int]:
    raw = demo_raw()
    return {"seed": int(raw["seed"]), "cases_per_type": int(raw["cases_per_type"])}


@cache
def demo_kg() -> MentalKG:
    """The demo graph as a `MentalKG`."""
    raw = demo_raw()
    pairs = lambda rows: tuple(tuple(row) for row in rows)  # noqa: E731
    symptoms = {
        code: Symptom(
            code=code,
            name=entry["name"],
            category=entry["category"],
            description=entry["description"],
            subtypes=pairs(entry.get("subtypes", [])),
            examples=tuple(entry.get("examples", [])),
            source=str(DEMO_FILE),
        )
        for code, entry in raw["symptoms"].items()
    }
    groups = {
        name: SymptomGroup(
            name=name,
            min_count=entry["min_count"],
            pool=tuple(entry["pool"]),
            must_include_all=tuple(entry.get("must_include_all", [])),
            must_include_one_of=tuple(entry.get("must_include_one_of", [])),
            min_duration=entry.get("min_duration"),
            functional_impairment_required=entry.get("functional_impairment_required"),
        )
        for name, entry in raw["groups"].items()
    }
    disorders = {}
    for code, entry in raw["disorders"].items():
        c = entry["criteria"]
        disorders[code] = Disorder(
            code=code,
            name=entry["name"],
            groups=tuple(GroupLink(group, required) for group, required in entry["groups"]),
            criteria=Criteria(
                min_duration=c.get("min_duration"),
                max_duration=c.get("max_duration"),
                functional_impairment_required=c.get("functional_impairment_required"),
                traumatic_stressor_required=c.get("traumatic_stressor_required", False),
                psychosocial_stressor_required=c.get("psychosocial_stressor_required", False),
                additional_requirements=tuple(c.get("additional_requirements", [])),
            ),
        )
    differentials = {
        (d["main"], d["sub"]): Differential(
            main=d["main"],
            sub=d["sub"],
            condition=d.get("condition"),
            key_difference=d["key_difference"],
            rules=tuple((code, (text,)) for code, text in d["rules"].items()),
            source=str(DEMO_FILE),
        )
        for d in raw["differentials"]
    }
    e = raw["events"]
    events = EventVocabulary(
        impairment_domains=pairs(e["impairment_domains"]),
        trauma_definition=e["trauma_definition"],
        trauma_exposures=pairs(e["trauma_exposures"]),
        trauma_examples=pairs(e["trauma_examples"]),
        psychosocial_definition=e["psychosocial_definition"],
        psychosocial_examples=pairs(e["psychosocial_examples"]),
    )
    return MentalKG(
        folder=DEMO_FILE,
        disorders=disorders,
        groups=groups,
        symptoms=symptoms,
        differentials=differentials,
        events=events,
    )


@cache
def kg_for(data: str) -> MentalKG:
    """The graph of a run: the demo graph for `demo`, else MentalKG under the `data` folder."""
    if data == "demo":
        return demo_kg()
    from selfdx.datasets.mentalkg.reader import load_kg

    return load_kg(Path(data).expanduser())

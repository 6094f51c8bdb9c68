"""Synthetic Safe-Psych cases for benchmarks, in the published CSV schema.

Every case has 3-5 non-empty sections of filler clinical prose (no diagnostic keywords) with
keyword cues planted so that the offline `selfdx/keyword` policy, judged by
`selfdx/rules-judge`, diagnoses at a chosen stage or never. The stage is drawn from
`STOP_STAGE_WEIGHTS`, tuned so the average trajectory is about 1.84 turns: 1,048 cases make
about 3,860 calls (model + judge), the workload the reference rollout was timed on.
"""

from __future__ import annotations

import csv
import random
from pathlib import Path

from selfdx.datasets.safe_psych import REQUIRED_COLUMNS, SECTION_COLUMNS
from selfdx.providers.safe_psych_policies import EAGER_RULES

# Relative weight of "the keyword policy diagnoses at stage s" (s = 1..5) and of "never"
# (the case runs every section and ends in an abstention). Stages past T are redrawn.
STOP_STAGE_WEIGHTS: dict[int | None, float] = {
    1: 0.54,
    2: 0.21,
    3: 0.10,
    4: 0.035,
    5: 0.015,
    None: 0.095,
}
NUM_SECTION_WEIGHTS = {3: 0.3, 4: 0.35, 5: 0.35}

# Cue sentences, one keyword of one EAGER_RULES rule each (rule index -> sentences).
CUES: dict[int, tuple[str, ...]] = {
    0: (
        "Family report progressive memory loss over two years.",
        "She has become forgetful and repeats questions within minutes.",
        "MMSE 19/30 with deficits in recall.",
    ),
    1: (
        "He describes daily alcohol use since his twenties.",
        "Drinking continues despite repeated warnings from his employer.",
        "AUDIT score 27.",
    ),
    2: (
        "Staff describe him as elated and overfamiliar on the ward.",
        "Grandiose plans to buy three companies were voiced at interview.",
        "Family describe a decreased need for sleep for two weeks.",
    ),
    3: (
        "She reports hearing voices commenting on her actions.",
        "A fixed persecutory belief about the neighbours is held with conviction.",
        "PANSS positive subscale 28.",
    ),
    4: (
        "He spends hours checking locks and appliances each night.",
        "Intrusive thoughts of contamination are described as unwanted.",
        "Y-BOCS total 29.",
    ),
    5: (
        "She was the victim of a violent assault eighteen months ago.",
        "Vivid flashbacks occur several times a week.",
        "Recurrent nightmares about the event wake her most nights.",
    ),
    6: (
        "Sudden episodes of palpitation with a sense of doom occur weekly.",
        "She attended the emergency department twice with panic symptoms.",
    ),
    7: (
        "He describes constant worry about work and family.",
        "She feels anxious most of the day and cannot relax.",
    ),
    8: (
        "She reports low mood for most of the day for two months.",
        "Marked anhedonia: she no longer enjoys anything she used to.",
        "HAM-D 24.",
    ),
}

FILLER = (
    "The patient was seen in the outpatient clinic with a relative.",
    "Appetite is reduced and weight has fallen by three kilograms.",
    "Sleep is fragmented, with early waking most mornings.",
    "There is no history of head injury or seizures.",
    "Works as a schoolteacher and lives with a partner and two children.",
    "Appearance is well kept and eye contact is appropriate.",
    "Speech is of normal rate and volume.",
    "Orientation in time, place and person is preserved.",
    "Insight is partial and judgement is fair.",
    "No self-harm or harm to others was reported.",
    "Blood count, electrolytes and liver enzymes are within normal limits.",
    "Thyroid function was normal at the last check.",
    "The neurological examination is unremarkable.",
    "There is a family history of a psychiatric disorder in a maternal aunt.",
    "Treated for a fracture of the left wrist five years ago.",
    "Takes no regular medication at present.",
    "Completed secondary education and a vocational diploma.",
    "Describes reduced energy and difficulty concentrating at work.",
    "Affect is restricted in range but appropriate to content.",
    "Thought form is coherent and goal directed.",
    "No perceptual disturbances were observed during the interview.",
    "Cooperative with the assessment throughout.",
    "Reports smoking ten cigarettes a day.",
    "Has had difficulties with a landlord over the last year.",
    "A previous outpatient assessment was not followed up.",
    "The general physical examination shows no acute findings.",
    "Type 2 diabetes mellitus managed with diet.",
    "Blood pressure was low on admission and normal the next day.",
    "The patient agrees to a further appointment next month.",
)
AGE_GROUPS = ("18-29", "30-44", "45-59", "60+")


def _all_keywords() -> list[str]:
    return [keyword for keywords, _, _ in EAGER_RULES for keyword in keywords]


def _check_banks() -> None:
    """Filler must carry no cue; each cue sentence exactly one keyword of its own rule."""
    keywords = _all_keywords()
    for sentence in FILLER:
        hits = [k for k in keywords if k in sentence.lower()]
        if hits:
            raise AssertionError(f"filler {sentence!r} contains cue(s) {hits}")
    for rule, sentences in CUES.items():
        own = EAGER_RULES[rule][0]
        for sentence in sentences:
            lowered = sentence.lower()
            hits = [k for k in keywords if k in lowered]
            if len(hits) != 1 or hits[0] not in own:
                raise AssertionError(f"cue {sentence!r} of rule {rule} matches {hits}")


def _filler(rng: random.Random, sentences: int) -> list[str]:
    return rng.sample(FILLER, sentences)


def _weighted(rng: random.Random, weights: dict) -> object:
    keys = list(weights)
    return rng.choices(keys, weights=[weights[k] for k in keys])[0]


def synthetic_case(index: int, rng: random.Random) -> dict[str, str]:
    """One published-schema record whose keyword-policy trajectory stops at a drawn stage."""
    num_sections = int(_weighted(rng, NUM_SECTION_WEIGHTS))  # type: ignore[arg-type]
    stop = _weighted(rng, STOP_STAGE_WEIGHTS)
    while stop is not None and stop > num_sections:  # type: ignore[operator]
        stop = _weighted(rng, STOP_STAGE_WEIGHTS)
    rule = rng.randrange(len(EAGER_RULES))
    sections = [_filler(rng, rng.randint(5, 12)) for _ in range(num_sections)]
    cues = list(CUES[rule])
    rng.shuffle(cues)
    if stop is None:
        # one cue only: never enough for the keyword policy, so it asks until the end
        sections[rng.randrange(num_sections)].insert(0, cues[0])
    else:
        # the second distinct cue arrives at the stop stage; the first at or before it
        sections[stop - 1].append(cues[1])  # type: ignore[operator]
        sections[rng.randrange(stop)].insert(0, cues[0])  # type: ignore[arg-type]
    columns = rng.sample(SECTION_COLUMNS, num_sections)
    columns.sort(key=SECTION_COLUMNS.index)
    record = {column: "" for column in REQUIRED_COLUMNS}
    for column, sentences in zip(columns, sections, strict=True):
        record[column] = " ".join(sentences)
    sufficient = stop is not None or rng.random() < 0.3
    record.update(
        id=f"BENCH-{index:05d}",
        age_group=rng.choice(AGE_GROUPS),
        sex=rng.choice("FM"),
        diagnosis_sufficiency="1" if sufficient else "0",
        diagnosis_sufficiency_agreement=rng.choice("1110"),
        diagnosis=EAGER_RULES[rule][2] if sufficient else "",
        diagnosis_agreement=rng.choice("1110"),
        earliest_sufficient_section=str(rng.randint(1, num_sections)) if sufficient else "",
    )
    return record


def write_cases(path: Path, count: int = 1048, seed: int = 2607) -> Path:
    """Write `count` synthetic cases to `path` (CSV, published schema); returns the path."""
    _check_banks()
    rng = random.Random(seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(REQUIRED_COLUMNS))
        writer.writeheader()
        for index in range(1, count + 1):
            writer.writerow(synthetic_case(index, rng))
    return path

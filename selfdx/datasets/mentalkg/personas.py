"""Patient personas for generated MentalBench cases: age, gender, occupation, marital status.

The pool is written for this project. A persona is composed from independent lists rather
than drawn from a fixed roster: an age from broad adult age bands, a gender, an occupation
that fits the age (each occupation has an age window) and a marital status weighted by age.
Everything is drawn from the `random.Random` passed in, so a seeded case always gets the same
persona.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict

# (lowest age, highest age, weight): adults of working age are the most common, as in clinics.
AGE_BANDS: tuple[tuple[int, int, float], ...] = (
    (18, 24, 0.14),
    (25, 34, 0.26),
    (35, 44, 0.22),
    (45, 54, 0.17),
    (55, 64, 0.11),
    (65, 74, 0.07),
    (75, 85, 0.03),
)
GENDERS: tuple[str, ...] = ("Female", "Male")


@dataclass(frozen=True)
class Occupation:
    title: str
    min_age: int
    max_age: int


def _jobs(min_age: int, max_age: int, titles: str) -> tuple[Occupation, ...]:
    return tuple(
        Occupation(title.strip(), min_age, max_age) for title in titles.split(";") if title.strip()
    )


OCCUPATIONS: tuple[Occupation, ...] = (
    *_jobs(
        18,
        26,
        "Undergraduate student; Apprentice electrician; Barista; Warehouse picker; "
        "Retail sales associate; Delivery rider; Community college student; Lifeguard",
    ),
    *_jobs(
        22,
        34,
        "Graduate student in chemistry; Junior software developer; Paralegal; Line cook; "
        "Dental hygienist; Junior copywriter; Call centre agent; Personal trainer",
    ),
    *_jobs(
        24,
        66,
        "Primary school teacher; Registered nurse; Accountant; Civil engineer; Pharmacist; "
        "Social worker; Bus driver; Electrician; Plumber; Firefighter; Police officer; "
        "Hairdresser; Restaurant manager; Graphic designer; Data analyst; Real estate agent; "
        "Truck driver; Librarian; Physiotherapist; Mechanic; Carpenter; Insurance claims "
        "adjuster; Human resources officer; Bank teller; Journalist; Architect; Veterinary "
        "technician; Air traffic controller; Chef; Farmer; Postal worker; Pilot; "
        "Secondary school maths teacher; Laboratory technician; Sales representative; "
        "Paramedic; Software engineer; Project manager; Cleaner; Security guard; "
        "Freelance photographer; Translator; Stay-at-home parent",
    ),
    *_jobs(
        35,
        69,
        "Family physician; University lecturer; Small business owner; Operations director; "
        "Store manager; Union organiser; Court clerk; Construction site supervisor",
    ),
    *_jobs(
        62,
        85,
        "Retired teacher; Retired factory worker; Retired nurse; Retired accountant; "
        "Retired bus driver; Retired shop owner; Part-time museum volunteer",
    ),
)

# Marital status weights by the persona's age: (up to this age, {status: weight}).
MARITAL_WEIGHTS: tuple[tuple[int, dict[str, float]], ...] = (
    (24, {"Single": 0.85, "In a relationship": 0.1, "Married": 0.05}),
    (34, {"Single": 0.45, "In a relationship": 0.15, "Married": 0.35, "Divorced": 0.05}),
    (54, {"Single": 0.2, "Married": 0.55, "Divorced": 0.18, "Separated": 0.05, "Widowed": 0.02}),
    (85, {"Single": 0.1, "Married": 0.5, "Divorced": 0.15, "Widowed": 0.25}),
)


class Persona(BaseModel):
    """Who the patient is; written into the case by the generator."""

    model_config = ConfigDict(frozen=True)

    age: int
    gender: str
    occupation: str
    marital_status: str


def sample_persona(rng: random.Random) -> Persona:
    """One persona: an age band by weight, an age within it, then the rest to fit the age."""
    low, high, _ = rng.choices(AGE_BANDS, weights=[band[2] for band in AGE_BANDS])[0]
    age = rng.randint(low, high)
    jobs = [job for job in OCCUPATIONS if job.min_age <= age <= job.max_age]
    weights = next(table for limit, table in MARITAL_WEIGHTS if age <= limit)
    status = rng.choices(list(weights), weights=list(weights.values()))[0]
    return Persona(
        age=age,
        gender=rng.choice(GENDERS),
        occupation=rng.choice(jobs).title,
        marital_status=status,
    )

"""Finding MentalKG diagnosis names in a case narrative (leakage of the answer).

A generated case must not name a diagnosis. `find_diagnosis_names(text)` returns every mention
of one of the 23 MentalKG disorders: its name, a common synonym or its usual abbreviation.
Phrases match case-insensitively on word boundaries and tolerate hyphens or spaces between
words ("post-traumatic stress disorder", "posttraumatic stress disorder"); abbreviations match
in capitals only (dots allowed: "G.A.D."), so "bed" or "add" in ordinary prose are not mentions
of BED or ADD. Symptom
words that are not diagnosis names ("depressed", "manic", "panic", "obsessive thoughts",
"anorexia" as loss of appetite) are deliberately not flagged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

SEP = r"[\s\-]*"  # between the words of a name: spaces, hyphens or nothing

# Per disorder code: phrases (regex fragments, words joined by SEP) and capitalised acronyms.
PHRASES: dict[str, tuple[str, ...]] = {
    "D001": ("attention deficit", "hyperactivity disorder", "hyperkinetic disorder"),
    "D002": ("attention deficit", "inattentive presentation", "inattentive type"),
    "D003": ("attention deficit", "hyperactive impulsive presentation", "hyperactive type"),
    "D004": ("delusional disorder", "paranoid disorder"),
    "D005": ("schizophreni[a-z]*",),
    "D006": ("schizo affective", "schizoaffective"),
    "D007": ("schizo affective", "schizoaffective"),
    "D008": ("bipolar", "manic depressi(on|ve)"),
    "D009": ("bipolar", "manic depressi(on|ve)"),
    "D010": ("bipolar", "manic depressi(on|ve)", "with psychotic features"),
    "D011": ("generali[sz]ed anxiety", "anxiety disorder"),
    "D012": ("specific phobia", "phobias?", "phobic disorder"),
    "D013": ("major depressi(on|ve disorder)", "clinical depression", "unipolar depression"),
    "D014": ("persistent depressive disorder", "dysthymi[a-z]*", "chronic depression"),
    "D015": ("major depressi(on|ve disorder)", "psychotic depression", "with psychotic features"),
    "D016": ("obsessive compulsive disorder",),
    "D017": ("body dysmorphi[a-z]*", "dysmorphophobia"),
    "D018": ("post traumatic stress", "posttraumatic stress", "shell shock"),
    "D019": ("acute stress disorder", "acute stress reaction"),
    "D020": ("adjustment disorder",),
    "D021": ("anorexia nervosa", "anorexic"),
    "D022": ("bulimi[a-z]*",),
    "D023": ("binge eating disorder",),
}
ACRONYMS: dict[str, tuple[str, ...]] = {
    "D001": ("ADHD", "ADD"),
    "D002": ("ADHD", "ADD"),
    "D003": ("ADHD", "ADD"),
    "D008": ("BD",),
    "D009": ("BD",),
    "D010": ("BD",),
    "D011": ("GAD",),
    "D013": ("MDD",),
    "D014": ("PDD",),
    "D015": ("MDD",),
    "D016": ("OCD",),
    "D017": ("BDD",),
    "D018": ("PTSD",),
    "D019": ("ASD",),
    "D022": ("BN",),
    "D023": ("BED",),
}


@dataclass(frozen=True)
class NameMention:
    text: str  # the words as they appear in the narrative
    start: int
    codes: tuple[str, ...]  # every disorder the words name


def phrase_pattern(phrase: str) -> str:
    return SEP.join(phrase.split(" "))


@cache
def compiled() -> list[tuple[re.Pattern[str], tuple[str, ...]]]:
    """One regex per distinct phrase or acronym, with the codes it names."""
    owners: dict[tuple[str, bool], list[str]] = {}
    for table, is_acronym in ((PHRASES, False), (ACRONYMS, True)):
        for code, entries in table.items():
            for entry in entries:
                owners.setdefault((entry, is_acronym), []).append(code)
    patterns = []
    for (entry, is_acronym), codes in owners.items():
        if is_acronym:  # "PTSD", "PTSDs", "P.T.S.D."
            dotted = r"\.".join(entry)
            pattern = re.compile(rf"(?<![A-Za-z])(?:{entry}s?|{dotted}\.?)(?![A-Za-z])")
        else:
            pattern = re.compile(rf"\b{phrase_pattern(entry)}\b", re.IGNORECASE)
        patterns.append((pattern, tuple(codes)))
    return patterns


ICD10_CODE = re.compile(r"(?<![A-Za-z0-9])F\d{2}(?:\.\d{1,2})?(?![0-9])")


def find_diagnosis_names(text: str, codes: bool = False) -> list[NameMention]:
    """Every diagnosis-name mention in `text`, in order; overlapping matches become one.

    `codes`: ICD-10 codes of mental disorders (`F43.1`) count as mentions too, naming no
    MentalKG disorder in particular (for texts that must not give the diagnosis away at all).
    """
    spans: list[tuple[int, int, tuple[str, ...]]] = []
    for pattern, owners in compiled():
        spans += [(match.start(), match.end(), owners) for match in pattern.finditer(text)]
    if codes:
        spans += [(match.start(), match.end(), ()) for match in ICD10_CODE.finditer(text)]
    spans.sort()
    merged: list[tuple[int, int, set[str]]] = []
    for begin, end, owners in spans:
        if merged and begin < merged[-1][1]:
            last_begin, last_end, last_owners = merged[-1]
            merged[-1] = (last_begin, max(last_end, end), last_owners | set(owners))
        else:
            merged.append((begin, end, set(owners)))
    return [NameMention(text[b:e], b, tuple(sorted(owners))) for b, e, owners in merged]

"""Broad areas a doctor asks about in one word: "how are you sleeping?", "how's your mood
been?", "sleep, appetite and energy?".

Such a question asks about every symptom of the area the profile has or lacks (a general sleep
question covers trouble sleeping, needing less sleep and nightmares alike), unless the clause
narrows the area ("low mood", "less sleep") or names one of its symptoms in more than the area's
own word ("need less sleep" asks about a decreased need for sleep alone).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from selfdx.instruments.topics import Topic
from selfdx.instruments.words import content_words, says, tokens

# The area's word in a clause, and the symptom codes (MentalKG's and the demo graph's) a
# general question about it asks about.
AREAS: dict[str, tuple[re.Pattern[str], frozenset[str]]] = {
    name: (re.compile(rf"\b(?:{words})\b", re.IGNORECASE), frozenset(codes.split()))
    for name, words, codes in (
        ("sleep", r"sleep|sleeping|slept", "S027 S036 S103 S126 S132"),
        ("mood", r"mood|moods|spirits", "S024 S033 S060 S101 S124"),
        ("appetite", r"appetite", "S026 S105"),
        ("energy", r"energy|energy levels", "S029 S034 S104"),
        ("concentration", r"concentration|concentrating|focus", "S031 S059 S107"),
    )
}
# Words before the area's word that narrow it to one symptom ("low mood", "less sleep").
NARROWING = re.compile(
    r"\b(?:low|lower|high|higher|elevated|elated|depressed|irritable|bad|less|more|poor|lost|lose"
    r"|losing|decreased|increased|reduced|extra|little|trouble|difficulty|problems?|disturbed"
    r"|broken|restless|bursts? of|lack of|need(?:ed|s)? (?:for|less|much|any)|without)"
    r"\s+(?:\w+\s+)?$",
    re.IGNORECASE,
)
# Words after it that do the same ("mood been low", "sleep is less").
NARROWED_AFTER = re.compile(
    r"^\W*(?:(?:has|have|had|is|was|been|being|felt|feels?|gets?|got|become|becomes?|gone|going"
    r"|very|really|so|too|quite|mostly|more|any)\s+){0,3}(?:low|lower|high|higher|down|up"
    r"|elevated|elated|flat|less|more|worse|poor|bad|irritable)\b",
    re.IGNORECASE,
)


def area_words(clause: str) -> set[str]:
    """The stems of the area words a clause says without narrowing them."""
    names = general_areas(clause)
    return {w for n in names for m in AREAS[n][0].finditer(clause) for w in tokens(m.group())}


def code_of(topic: Topic) -> str:
    """A symptom topic's code without its truth prefix (`NO-S027` -> `S027`)."""
    return topic.id.rsplit("-", 1)[-1]


def general_areas(clause: str) -> list[str]:
    """The areas a clause names without narrowing them."""
    found = []
    for name, (pattern, _) in AREAS.items():
        for match in pattern.finditer(clause):
            before, after = clause[: match.start()], clause[match.end() :]
            if not (NARROWING.search(before) or NARROWED_AFTER.search(after)):
                found.append(name)
                break
    return found


def area_symptoms(clause: str, symptoms: Sequence[Topic], named: Sequence[Topic]) -> list[Topic]:
    """The symptoms a clause asks about as a broad area: those of each area it names without
    narrowing, when none of the area's symptoms is named more specifically (`named`: the
    symptoms the clause's words ask about); of those the patient lacks, none where it has a
    symptom the area's word asks about."""
    chosen: list[Topic] = []
    said = tokens(clause)
    # words by which the clause names a symptom the patient has: a lacked symptom asked by the
    # same words is not denied beside it (no reply affirms and denies the same thing)
    had = {w for t in named if t.truth == "yes" for cue in t.cues_said(said) for w in cue}
    for name in general_areas(clause):
        codes = AREAS[name][1]
        area_words = {w for m in AREAS[name][0].finditer(clause) for w in tokens(m.group())}
        if any(code_of(t) in codes for t in named if specific(t, clause, area_words)):
            continue
        members = [t for t in symptoms if code_of(t) in codes]
        # the area's word asks about a symptom the patient has: only those it has
        shared = bool(area_words & had) or any(t.truth == "yes" for t in members)
        chosen += [t for t in members if t.truth == "yes" or not shared]
    return chosen


def specific(topic: Topic, clause: str, area: frozenset[str] | set[str] = frozenset()) -> bool:
    """Whether a clause names a symptom by more than its area's word: a cue of two words or
    more that says something besides the area's words (`area`, stems) and filler ("how is
    your mood" and "mood been" name no more than "mood"), or the share of its description that
    asks about it ("a change in the quantity or quality of sleep")."""
    said = tokens(clause)
    for cue in topic.cues:
        cue_tokens = tokens(cue)
        if len(cue_tokens) > 1 and content_words(cue) - set(area) and says(cue_tokens, said):
            return True
    described = content_words(topic.text)
    return len(described) >= 2 and len(described & content_words(clause)) >= 0.6 * len(described)


def beside_specific(clause: str, found: Sequence[Topic]) -> list[Topic]:
    """`found` without the symptoms an area's bare word named beside one of the area's symptoms
    the clause names more specifically ("only three hours' sleep and still full of energy" asks
    about a decreased need for sleep, not also about sleep problems through "sleep")."""
    said = tokens(clause)
    dropped: set[str] = set()
    for pattern, codes in AREAS.values():
        words = {w for m in pattern.finditer(clause) for w in tokens(m.group())}
        members = [t for t in found if code_of(t) in codes]
        if not words or not any(specific(t, clause, words) for t in members):
            continue
        dropped |= {
            t.id
            for t in members
            if not specific(t, clause, words) and all(c <= words for c in t.cues_said(said))
        }
    return [t for t in found if t.id not in dropped]

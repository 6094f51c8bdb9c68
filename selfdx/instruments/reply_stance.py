"""What a patient's reply says to a yes-or-no question about one thing: `affirms`, `denies`,
`unsure` or `evades`, read by meaning rather than by its first word.

How a reply is read:

- It is cut into sentences. A sentence's *answer* is a phrase at its opening (after fillers
  such as "honestly", "well", "oh", "um"): an explicit yes or no ("yeah", "not really", "not
  that I've noticed", "I don't think so", "can't say I have", "totally", "now and then"), or a
  negated or plain statement of the patient's own ("I don't", "it hasn't", "I do").
- Phrases whose words mislead as a whole are read first: "no doubt", "not a day goes by",
  "I wouldn't say it never", "it's not like I never", "you're right".
- Negations further into a sentence belong to what the patient describes ("I can't sit
  still", "it hasn't shifted") and are not a denial.
- The first sentence with an answer decides, unless a later sentence or clause corrects it
  ("Yes, I've heard of that, but no, not me"; "No - well, sometimes"). A first sentence that
  states something of the patient with no answer phrase affirms, unless the next sentence
  opens with an explicit yes or no. A reply that only asks back, or declines, evades.

It reads the reply against the question as asked: a "yes" to "Can you keep yourself safe?"
is `affirms` (the check's probes always ask whether the thing applies). Its agreement with
replies written and labelled apart from it is in docs/patient_check.md.
"""

from __future__ import annotations

import re
from functools import lru_cache

from selfdx.instruments.reply_stance_phrases import EXPLICIT, STATEMENT, WEAK, Stance

STANCES: tuple[Stance, ...] = ("affirms", "denies", "unsure", "evades")

FILLER = re.compile(
    r"^(?:(?:honestly|um+|uh+|erm|er|well|oh|ah|so|look|i mean|to be (?:honest|fair)|touch wood|"
    r"ha|hmm+|right|okay|ok|god|gosh|mm+|yeah,? well|funnily enough|in all honesty|frankly|"
    r"truthfully|to tell (you )?the truth)\b[\s,.!\-–—]*)+"
)
# In a conditional: "if you mean feeling unreal, then no, never had that".
CONDITIONAL = re.compile(
    r"\bif (you mean|that'?s|by that you mean|it'?s about|that means)[^,]*,\s*(then\s+)?"
    r"(?P<answer>no|nope|yes|yeah|that'?s not me|that'?s me|never)\b"
)
# Declining to answer, anywhere.
DECLINES = re.compile(
    r"(i'?d|i would) (rather|prefer) (not|we didn'?t)"
    r"(?! (go|going|get|getting) into (the )?(details|specifics)| say (much |any )?more)|"
    r"(not (really )?|(don'?t|do not) think (that'?s|it'?s) )something i (really )?"
    r"('?d )?(want|like|care|wish)? ?(to )?(talk|get into|go into|discuss)|"
    r"you (don'?t|do not) want to know|"
    r"(let'?s|i'?ll|i'?d (rather|like to)|can we) (just )?leave it (there|at that)|"
    r"don'?t (really )?(want|wish) to (talk|go into|get into|(say|answer|discuss)(?! more))|"
    r"(not|don'?t feel|not really) comfortable (talking|answering|discussing|going|getting|saying)|"
    r"^next[.!]*$|ask me (something|anything) else|not (what|why) i'?m here|not here to (talk|"
    r"discuss|go into)|(don'?t think|not sure) (that'?s|it'?s|this is) relevant|"
    r"i came (here )?(about|for) [^,.]+,? not\b|"
    r"why (do|would) you (ask|want to know)|can we (move on|talk about|skip|leave)|"
    r"let'?s (move on|not)|next question|what('?s| does| has) (that|this|he|she|it) (got )?"
    r"(to do|got to do)|don'?t see what that|is this going on my record|pass on that|"
    r"^that'?s (a |rather a |quite a )?(very |bit |bit of a |pretty )?(private|personal)|"
    r"^that'?s (my (own )?business|between me and)|keep (that|it) to myself|"
    r"don'?t see (how|why) (that|this|it)('?s| is| would be| matters?)|"
    r"i'?m not (going to|gonna) (answer|say|talk|discuss|get into|go into)|"
    r"i won'?t (answer|say|discuss|talk about|get into|go into)|"
    r"^if i (say|said|tell you|told you) (yes|that|the truth)"
)
# Said anywhere, the patient cannot tell ("Once, maybe... I'm not sure whether that counts").
UNSURE_ANYWHERE = re.compile(
    r"not sure (if|whether) (that|it) counts|(can'?t|couldn'?t) (really )?tell you|"
    r"don'?t know how to answer|(couldn'?t|can'?t) (honestly |genuinely )?say"
    r"(?! (that )?(i|it|that|they|there)\b)|can'?t remember (which|when|if|whether|exactly)"
)
# A question back at the doctor ("Does the month really matter?"), not an echo ("Two weeks?").
COUNTER = re.compile(
    r"^(why|what|does|do|did|is|are|was|how|who|can|could|would|will|should|has|have"
    r"|isn'?t|aren'?t)\b"
)
# A figure of speech taken back: "I could kill someone. Not literally, I'd never."
NOT_LITERALLY = re.compile(r"not (literally|seriously|for real|in that way)\b")
# A question tag closing a remark about people at large: "Everyone does, don't they?"
TAG = re.compile(
    r",?\s*(do|does|did|is|are|was|were|has|have|would|could|can|will)(n'?t| not)?\s+"
    r"(it|they|you|we|he|she|everyone|everybody|there|one)\?$"
)
FIRST_PERSON = re.compile(r"\b(i|i'm|i've|i'd|i'll|me|my|myself|mine)\b")
# A sentence about someone else, said before the patient speaks of themself: "My wife's the
# worrier in our house - I'm not, really."
OTHER_PERSON = re.compile(
    r"(my (wife|husband|partner|mum|mom|mother|dad|father|sister|brother|son|daughter|kids|"
    r"children|family|friends?|mates?|boss|colleagues?|girlfriend|boyfriend|flatmate|housemate|"
    r"parents)|everyone|everybody|most people|lots of people|people|he|she)\b"
)
# The patient's own short answer after another's ("I'm not, really"; "I don't, though").
SHORT_OWN = re.compile(
    r"(i|me)('?m| am| do| have|'ve| did| was)? ?(not|n'?t|never)\b"
    r"(,? (really|at all|though|myself|personally|so much|particularly))*$"
)
# A frequency denied as a whole ("not often"), which a "but" and a plain statement turn into a
# played-down yes: "Not often, but it happens."
NOT_OFTEN = re.compile(
    r"not (that |very |too |as )?(often|much|regularly|usually|a lot|every \w+|all the time)$"
)
PLAYED_DOWN = re.compile(
    r"(it'?s )?nothing (major|serious|much|big|dramatic|to worry|really|too \w+|that \w+)|"
    r"nothing to write home about|nothing (regular|much to speak of|i'?d act on)|"
    r"nothing (i|we) can'?t (handle|cope with|manage|deal with)|not (as|so|that|too) (bad|much|"
    r"often|serious|severe)\b|"
    r"(it'?s )?not (a big deal|that bad|terrible|serious|too bad)|it'?s nothing"
)
# What a patient adds to play a told symptom down, which denies nothing: "Fleeting ones.
# Nothing serious."
SMALL = re.compile(r"nothing (major|serious|big|dramatic|regular|much to speak of|i'?d act on)\b")
LIKE_ANYONE = re.compile(r"\blike (anyone|everyone|everybody|most people|anybody)\b")
CORRECTION = re.compile(r"\b(but|though|although|well|actually|except|mind you|only|just|and)\b")
SENTENCE = re.compile(r"(?<=[.!?…])\s+|\s*(?:\.\.\.+|…)\s*|\s+[-–—]\s+|;\s*")
EXPLICIT_RE = tuple((s, re.compile(p), p not in WEAK) for s, p in EXPLICIT)
STATEMENT_RE = tuple((s, re.compile(p)) for s, p in STATEMENT)


def _clean(text: str) -> str:
    text = text.replace("\u2019", "'").replace("\u2018", "'").replace("*", "").lower()
    return re.sub(r"\s+", " ", text).strip()


def _opening(sentence: str) -> str:
    return FILLER.sub("", sentence.strip(" ,.!?\"'()")).strip()


def _answer(sentence: str) -> tuple[Stance, bool] | None:
    """A sentence's answer at its opening, and whether it is an explicit one."""
    opening = _opening(sentence)
    for stance, pattern, strong in EXPLICIT_RE:
        if pattern.match(opening):
            return stance, strong
    for stance, pattern in STATEMENT_RE:
        if pattern.match(opening):
            return stance, False
    return None


def _about_someone_else(sentence: str, then: str) -> bool:
    """A sentence whose subject is another person and that says nothing of the patient,
    followed by the patient's own plain answer (`then`): "My wife's the worrier - I'm not"."""
    opening = _opening(sentence)
    match = OTHER_PERSON.match(opening)
    if not match or FIRST_PERSON.search(opening[match.end() :]):
        return False
    own = _answer(then)
    return bool(own and own[1]) or bool(SHORT_OWN.match(_opening(then)))


def _echo(sentence: str) -> bool:
    """A short question repeating the doctor's word ("Two weeks?", "Hypervigilance?")."""
    return sentence.rstrip().endswith("?") and len(sentence.split()) <= 3


def _clauses(sentence: str) -> list[str]:
    """A sentence's clauses: after a comma, and after a correction word."""
    return [c for c in re.split(r",\s*|\s+(?=(?:but|though|although|except)\b)", sentence) if c]


@lru_cache(maxsize=8192)
def stance(text: str) -> Stance:
    """What the reply says to the question asked (see the module)."""
    clean = _clean(text)
    if not clean:
        return "evades"
    sentences = [s for s in SENTENCE.split(clean) if s and s.strip(" .,!?")]
    if not sentences:
        return "evades"
    conditional = CONDITIONAL.search(clean)
    if conditional:
        said = conditional["answer"]
        return "affirms" if said in ("yes", "yeah", "that's me", "thats me") else "denies"
    if UNSURE_ANYWHERE.search(clean):
        return "unsure"
    sentences = [s for s in sentences if _opening(s)]  # "Oh - not enjoying things? No, ..."
    while len(sentences) > 1 and _answer(sentences[0]) is None:
        if not (_echo(sentences[0]) or _about_someone_else(sentences[0], sentences[1])):
            break
        sentences = sentences[1:]  # "Hypervigilance? I've heard of it, yes, but no..."
    if not sentences:
        return "evades"
    if len(sentences) == 1 and TAG.search(clean) and not FIRST_PERSON.search(clean):
        found = _answer(sentences[0])
        if not found or found[0] not in ("affirms", "denies"):
            return "evades"  # "Depends what you count as high, doesn't it?"
    first = _opening(sentences[0])
    if COUNTER.match(first) and (sentences[0].rstrip().endswith("?") or first == "why"):
        later = [a for a in map(_answer, sentences[1:]) if a and a[1]]
        return later[0][0] if later else "evades"
    answers: list[tuple[Stance, bool, str] | None] = []
    for sentence in sentences:
        found = _answer(sentence)
        answers.append((*found, sentence) if found else None)
    decided: tuple[Stance, bool, str] | None = None
    for index, answer in enumerate(answers):
        if answer is None:
            if index == 0 and not _echo(sentences[0]):
                # a statement first: it stands unless an explicit answer follows at once
                follow = answers[1] if len(answers) > 1 else None
                inner = _corrected("affirms", sentences[:1])
                if inner != "affirms":  # "you'd think I would be, but no"
                    return inner
                if follow is not None and follow[1] and not SMALL.match(_opening(follow[2])):
                    decided = follow
                    break
                return "evades" if DECLINES.search(clean) else _corrected("affirms", sentences)
            continue
        decided = answer
        break
    if decided is None or (not decided[1] and DECLINES.search(clean)):
        return "evades"  # only asks back, or declines with no plain yes or no
    return _corrected(decided[0], sentences[sentences.index(decided[2]) :])


def _corrected(first: Stance, sentences: list[str]) -> Stance:
    """The answer, or what a correction after it says instead ("Yes... but no, not me")."""
    if first == "affirms" and any(NOT_LITERALLY.match(_opening(s)) for s in sentences[1:]):
        return "denies"
    parts = [clause for sentence in sentences for clause in _clauses(sentence)]
    for index, part in enumerate(parts[1:], start=1):
        raw = part.strip(" ,.!\"'()")
        word = CORRECTION.match(raw.rstrip("?"))
        if not word:
            continue
        rest = _opening(raw[word.end() :])
        if not rest or raw.endswith("?"):  # "But wanting to hurt someone? No, never."
            rest = " ".join(parts[index + 1 : index + 2])
        if word.group(1) == "and" and not re.match(r"(no|nope|yes|yeah|never)\b", rest):
            continue  # "and certainly no plan" goes on, it does not correct
        if PLAYED_DOWN.match(rest):  # "..., but nothing major": a yes played down
            continue
        after = " ".join(parts[index : index + 2])
        if word.group(1) == "just" and LIKE_ANYONE.search(after):
            continue  # "No - just the odd flat moment, like anyone": what everyone has

        found = _answer(rest)
        if found and found[1] and found[0] != first and found[0] in ("affirms", "denies"):
            return found[0]
        if first == "denies" and found is None and word.group(1) == "but" and index == 1:
            if NOT_OFTEN.match(_opening(parts[0])):  # "Not often, but it happens."
                return "affirms"
    return first

"""What the text after an answer does to it: takes it back or keeps another option open
(`taken_back`), adds options to it (`added_options`, `with_added`), rules options out
(`RULED_OUT`) or qualifies it on its own line (`HEDGED_AFTER`)."""

from __future__ import annotations

import re

from selfdx.instruments.answers.letter_tokens import tokenize
from selfdx.instruments.answers.parsed import ParsedAnswer
from selfdx.instruments.answers.strict_readings import mentions

# After an answer, a sentence that keeps another option open, or one that rules it out.
STILL_POSSIBLE = re.compile(
    r"\b(?:(?:can'?t|cannot|can\s+not)\s+be\s+(?:ruled\s+out|excluded)|also\s+(?:quite\s+)?"
    r"(?:plausible|possible|likely)|plausible|alternative(?:ly)?|would\s+be\s+the\s+answer"
    r"|remains?\s+(?:a\s+)?(?:possib|reasonable|open)|close\s+second|that\s+said"
    # "I cannot exclude A", "A should still be considered", "A is worth considering"
    r"|(?:can'?t|cannot|can\s+not|could\s+not|couldn't)\s+(?:fully\s+)?(?:exclude|rule\s+out)"
    r"|(?:should|must|needs?\s+to|ought\s+to)\s+(?:still\s+)?(?:also\s+)?be\s+"
    r"(?:considered|excluded|ruled\s+out)|worth\s+considering)",
    re.IGNORECASE,
)
RULED_OUT = re.compile(
    r"\b(?:incorrect|wrong|ruled\s+out|rules\s+out|excluded|unlikely|less\s+likely|does\s+not"
    r"|not\s+(?:meeting|met|supported)"
    r"|doesn't|not\s+(?:fit|apply|the\s+answer))\b",
    re.IGNORECASE,
)
# A later line that takes the answer back ("Actually, wait - D", "on reflection, it could be C").
REVISION = re.compile(
    r"\b(?:actually|wait|on\s+(?:reflection|second\s+thought)|hmm+|not\s+sure|could\s+(?:also\s+)?be"
    r"|may\s+(?:also\s+)?(?:be|have|meet)"
    r"|might\s+(?:also\s+)?be|or\s+maybe|scratch\s+that|then\s+again|I\s+was\s+wrong"
    r"|I\s+(?:take|took)\s+(?:that|it)\s+back|I\s+(?:misspoke|stand\s+corrected)"
    r"|on\s+second\s+thoughts?|having\s+reconsidered|let\s+me\s+reconsider)\b",
    re.IGNORECASE,
)
TORN = re.compile(
    r"\b(?:torn\s+between|undecided|(?:can'?t|cannot|unable\s+to)\s+(?:decide|choose)"
    r"|hard\s+to\s+(?:choose|decide)|too\s+close\s+to\s+call|one\s+of|a\s+tie|tied\s+(?:for|at|between|with)|dead\s+heat"
    r"|neck\s+and\s+neck)\b",
    re.IGNORECASE,
)


# After the answer, a word that another choice is left open: "can't tell which", "either B or D",
# "B or A may also apply".
UNDECIDED_AFTER = re.compile(
    r"\b(?:can'?t|cannot|unable\s+to)\s+(?:tell|say|determine)\s+which\b|\beither\s+\ue000?[A-H]\b"
    r"|\b(?:may|might|could)\s+(?:also\s+)?apply\b|\b(?:may|might|could)\s+make\s+it\b"
    r"|\bdepends\s+on\b",
    re.IGNORECASE,
)


# A sentence that offers another choice on its own: "Or C & B.", "A or C."
OR_AGAIN = re.compile(
    r"\W*(?:or\b|\ue000?[A-H]\ue001?\s+or\s+\ue000?[A-H]\ue001?\W*$)", re.IGNORECASE
)


# A sentence that sums the answer up: what it names is the answer again.
SUMMARY = re.compile(
    r"\b(?:in\s+(?:short|summary|sum)|to\s+summari[sz]e|overall|all\s+in\s+all|bottom\s+line"
    r"|best\s+(?:explained|understood|described|accounted\s+for)\s+(?:by|as)"
    # ("better explained by" is left out: "the concentration problems are better explained by
    # the anxiety than by ADHD" explains a symptom away)
    r"|(?:(?:is\s+)?better\s+captured\s+as)|(?:is\s+)?the\s+better\s+fit|fits\s+better)\b",
    re.IGNORECASE,
)


def taken_back(after: str, letters: frozenset[str]) -> bool:
    """Whether the text after an answer revises it or keeps another option open: a sentence
    with another option and a revision ("Actually, wait - D") or an opening word ("D is also
    quite plausible", "However, C cannot be ruled out", "Alternatively, D"), unless it rules
    that option out ("makes B incorrect")."""
    if TORN.search(after) or UNDECIDED_AFTER.search(after):
        return True  # "For the second, B and D both have some support. I can't decide."
    revising = False  # a revision on its own ("I was wrong.") reaches the next sentence
    for sentence in re.split(r"(?<=[.!?])\s+|\n", after):
        named = mentions(tokenize(sentence))
        others = named - set(letters)
        if not others:
            if (
                named
                and named != letters
                and (revising or REVISION.search(sentence) or OR_AGAIN.match(sentence))
            ):
                return True  # "A & B. On second thought, ... So just A.", "A & B & C" "or A & B"
            revising = revising or bool(REVISION.search(sentence))
            continue
        if STILL_POSSIBLE.search(sentence) or (
            (revising or REVISION.search(sentence) or OR_AGAIN.match(sentence))
            and not RULED_OUT.search(sentence)
        ):
            return True  # "... Or C & B.", "A or C."
        revising = False
    return False


# What a comparison sets against the answer: "... a better fit than C".
THAN = re.compile(r"\b(?:rather\s+than|than|instead\s+of)\b[^,;.:—–]*", re.IGNORECASE)
# A restatement of the answer in other words: "A & D - that is, major depression with PTSD".
RESTATED = re.compile(r"\b(?:that\s+is|i\.e\.|namely|in\s+other\s+words)(?:\W|$)", re.IGNORECASE)


def restated_otherwise(sentence: str) -> bool:
    """Whether a sentence restates its options in other words that name another set."""
    found = RESTATED.search(sentence)
    if not found:
        return False
    before = mentions(tokenize(sentence[: found.start()]))
    after = mentions(tokenize(sentence[found.end() :]))
    return bool(before and after and before != after)


def summary_disagrees(body: str, letters: frozenset[str]) -> bool:
    """Whether a sentence that sums the reply up names other options than its answer ("A & D.
    ... In short, best explained by PTSD with comorbid major depression")."""
    for sentence in re.split(r"(?<=[.!?])\s+|\n", body):
        if restated_otherwise(sentence):
            return True
        named = mentions(tokenize(THAN.sub(" ", sentence)))
        if SUMMARY.search(sentence) and named and named != letters:
            if not RULED_OUT.search(sentence):
                return True
    return False


# A sentence after the answer that adds another option to it: "The patient also meets criteria
# for D.", "D is also present.", "(D is comorbid)", "In addition, D."
ADDS = re.compile(
    r"\balso\s+(?:meets?|met|fulfil+s?|satisf(?:y|ies)|qualif(?:y|ies)|present|appl(?:y|ies)"
    r"|warranted|diagnosed|indicated|has|have|fits?|(?:the\s+)?case)\b"
    r"|\b(?:is|are)\s+also\s+(?:present|met|diagnosed|warranted|indicated|applicable|supported"
    r"|(?:a|the)\s+(?:second\s+|comorbid\s+)?diagnosis)\b"
    r"|\b(?:comorbid(?:ity)?|co\s*-?\s*occurring|coexisting|in\s+addition|additionally"
    r"|second\s+diagnosis|plus)\b|\bsecondary\b(?!\s+to\b)|\bas\s+well\W*$"
    r"|^\W*(?:and\s+)?also\W+\ue000?[A-H]\ue001?\W*$",  # "Also D."
    re.IGNORECASE,
)
# ... unless the sentence holds it open, plays it down or denies it.
NOT_ADDED = re.compile(
    r"\b(?:may|might|could|possibl[ey]|probabl[ey]|likely|suspect(?:ed)?|consider(?:ed|ing)?"
    r"|query|rule|traits?|features?|symptoms?|some|partial(?:ly)?|sub-?\s*threshold|history"
    r"|past|previous(?:ly)?|family|no|not|without|lacks?|absent|neither|nor|never|unlikely"
    r"|less|excluded|doesn't|isn't|aren't|don't|cannot|can't|if|unless|pending|differential"
    r"|ruled|eliminated|dismissed|discounted|incorrect|wrong|often|commonly|frequently"
    r"|typically|usually|tends?"
    r"|rather|instead|vs|versus|or)\b|\?",
    re.IGNORECASE,
)


def added_options(text: str, letters: frozenset[str]) -> set[str]:
    """Options that sentences of `text` add to the answer `letters` (see `ADDS`)."""
    added: set[str] = set()
    for sentence in re.split(r"(?<=[.!?;])\s+|\n", text):
        others = mentions(tokenize(sentence)) - set(letters)
        if (
            others
            and ADDS.search(sentence)
            and not (NOT_ADDED.search(sentence) or RULED_OUT.search(sentence))
        ):
            added |= others
    return added


def with_added(settled: ParsedAnswer | None, after: str) -> ParsedAnswer | None:
    """`settled` joined by the options the text after it adds (`added_options`)."""
    if settled is None or not settled.letters:
        return settled
    added = added_options(after, settled.letters)
    if not added:
        return settled
    return ParsedAnswer(settled.letters | added, "answered", settled.reason)


# What qualifies an answer on its own line after it: "B, probably", "B and C; A is also
# plausible", "B, with features of C" ("most likely", "less likely" and "unlikely" do not).
HEDGED_AFTER = re.compile(
    r"(?<!most )(?<!less )(?<!not )\b(?:probabl[ey]|possibl[ey]|plausibl[ey]|maybe|perhaps"
    r"|likely|features of|traits of|tentative(?:ly)?|provisional(?:ly)?)\b",
    re.IGNORECASE,
)

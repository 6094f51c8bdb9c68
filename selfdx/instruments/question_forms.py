"""The wording of question forms the question reader recognises, apart from any topic: asking
how long (`TRIGGERS["duration"]`), how life is affected (`"impairment"`, with the parts of life
in `LIFE_AREA`), what happened (`"stressor"`); an open invitation (`OPEN_QUESTION`); the
patient's words quoted back (`QUOTED`); a question about the diagnosis itself
(`DIAGNOSIS_QUESTION`) or about someone else's illness (`OTHERS`). What opens a minimising or
vague patient (`FREQUENCY`, `DETAIL`) is part of the styles' definition
(`selfdx.datasets.interview.styles`).
"""

from __future__ import annotations

import re

TRIGGERS: dict[str, re.Pattern[str]] = {
    "duration": re.compile(
        r"how long(?! (?:does|did|do|will) it (?:usually |normally )?take)|since when|when did"
        r"|when (it|this|these|they|that|the \w+) (all )?(start|began|begin)|how old were you when"
        r"|how soon after\b[^?]{0,40}\b(?:start|began|begin)|more days (?:\w+ ){0,3}than"
        r" (?:not|without)"
        r"|(?:been|lasted|gone on|going on)\b[^?]{0,40}\bfor (?:at least |about |over |more than )?"
        r"(?:a|an|one|two|three|four|five|six|\d+|a couple of|couple of|a few|several)"
        r" (?:weeks|months|years)\b"
        r"|duration|how many (days|weeks|months|years)(?! a week| a month| per)|\blasted\b"
        r"|\blast(ed|s)? (for|a|an|more than|at least|longer than|over)\b"
        r"|going on for (?:so |that |this )?(?:long|a while|ages|some time)|how far back"
        r"|first (start|notice|began)",
        re.IGNORECASE,
    ),
    "impairment": re.compile(
        r"\b(affect|impact|interfer|disrupt|hold(ing)? you back)|(get(s|ting)?|got) in the way"
        r"|(able|hard|harder) to (work|do your job|study|look after)"
        r"|stop(ped|ping)? you (from|doing)|keep(ing)? up with|\bfunction|day[- ]to[- ]day"
        r"|daily life|everyday life|manag(e|ing) (at|your|with|things|day)|cop(e|ing) (at|with) "
        r"(work|school|home|daily|life|things)|how (is|are|has|have|'s)\b[^?]{0,40}\b(work|job"
        r"|school|stud|home|relationship|family|friend)"
        r"|\b(?:problems?|trouble|difficult\w*|friction|issues?) (?:at|with) (?:home|work|school"
        r"|your (?:job|wife|husband|partner|family|friends|colleagues|boss))|knock-on|\btoll\b"
        r"|(?:harder|hard|difficult) (?:with|for) (?:your )?(?:colleagues|clients|family|friends"
        r"|partner|wife|husband)|landed you in|late for (?:work|school)|time off|(?:losing|lost) "
        r"(?:a|your) job|(?:get|getting|got|managing|manage) (?:through|on with) (?:your|the) "
        r"(?:day|shifts?|work|job)|(?:on top of|keeping up with) (?:things|the house|work|bills"
        r"|your)|what happens (?:with|at) (?:work|home|school)|noticed a difference in how you"
        r"|(?:can|could) you (?:still )?(?:do|manage|hold down) (?:the|your) job"
        r"|seeing friends|social life|(?:has|have) (?:it|this|that|they)\b[^?]{0,25}(?:got|gotten"
        r"|come) in the way",
        re.IGNORECASE,
    ),
    "stressor": re.compile(
        r"what happened|(anything|something) (\w+ )?happen|did (it|this|that) happen"
        r"|happened (to you|before|just before|then)|\bevents?\b|trauma|accident|assault"
        r"|\bloss\b|bereave|divorce|life change|\bstress|frighten|terrif|go(ne)? through"
        r"|before (this|it|all this|all of this|these|the \w+) (started|began|start|begin)"
        r"|trigger|set (it|this) off|going on in your life (?:just )?before"
        r"|before you (?:started|began) (?:feeling|to feel)"
        r"|\b(?:killed|injured|drowned|explosion|disaster|combat|raped"
        r"|shot at|abused|mugged|robbed)\b",
        re.IGNORECASE,
    ),
}
# A duration question that also asks whether the symptom is there on most days ("more days than
# not for six months?"): it asks about the symptom as well as its duration.
MORE_DAYS_THAN_NOT = re.compile(r"more days (?:\w+ ){0,3}than (?:not|without)", re.IGNORECASE)
# The start of a `SCOPE` that only sets when ("during", "when you're"), unlike "in a low mood".
TIME_SCOPE = re.compile(
    r"(?:during|when|whenever|while|through|throughout|between|after|before|outside)\b"
    r"|.*\b(?:spells?|periods?|patch(?:es)?|phases?|episodes?|stretches?)$",
    re.IGNORECASE,
)
# A mood spell named as the time a question is about ("during the highs", "in your low
# periods", "when you're up"): it sets when, and asks about no symptom of its own.
SCOPE = re.compile(
    r"\b(?:during|in|through(?:out)?|when(?:ever)?|while|at|over|between|after|before|outside"
    r"|of)\s+(?:(?:the|your|a|an|one of (?:those|these|your|the)|those|these|that|this|any|each"
    r"|every)\s+)?(?:(?:last|latest|most recent|worst|typical|usual|bad|good)\s+)?"
    r"(?:high|low|manic|hypomanic|depressive|depressed|elated|dark|down|up)s?"
    r"(?:\s+(?:spells?|periods?|patch(?:es)?|phases?|times?|episodes?|stretches?|moods?|days?"
    r"|weeks?|months?))?\b"
    r"|\bwhen(?:ever)? (?:you(?:'re| are| were| get| got| feel| felt| go)|you're in|it's a)\s+"
    r"(?:\w+\s+)?(?:high|low|up|down|manic|depressed|elated)\b"
    r"|\b(?:your|the|those|these) (?:high|low|manic|depressive|elated) (?:spells?|periods?"
    r"|patch(?:es)?|phases?|episodes?|stretches?)\b"
    r"|\b(?:when(?:ever)?|during|after|before|while) (?:you |a |the |your )?binge(?:s|ing)?\b",
    re.IGNORECASE,
)
# The parts of life an impairment question names.
LIFE_AREA = re.compile(
    r"\b(?:work|job|shifts?|career|school|college|stud(?:y|ies)|home|house|family|relationships?"
    r"|marriage|friends?|friendships?|social|colleagues?|clients?|day[- ]to[- ]day|daily|life"
    r"|bills|chores|partner|wife|husband|kids|children)\b",
    re.IGNORECASE,
)
# Questions about other people's health ("family history", "did your father drink?") ask about
# no fact of the patient; "are you worried about your kids?" still asks about the patient.
RELATIVE = (
    r"\b(father|mother|dad|mum|mom|parents?|sisters?|brothers?|siblings?|relatives?"
    r"|grandparents?|family members?|(anyone (else )?)?in (your|the) family(?! life))\b"
)
ILLNESS = (
    r"\b(ill|illness|problems?|history|diagnos\w*|drink\w*|drugs?|depress\w*|anxi\w*|mental"
    r"|psychiatr\w*|suicid\w*|conditions?|disorders?|treat\w*|medication)\b"
)
OTHERS = re.compile(rf"family history|{RELATIVE}.*{ILLNESS}|{ILLNESS}.*{RELATIVE}", re.I)
# Open questions: the patient says again what brought them.
OPEN_QUESTION = re.compile(
    r"what(?:'s| has| have| is)? (?:\w+ )?(?:brings?|brought|led|made|makes) you\b"
    r"|what (?:made|led|prompted) you (?:to )?(?:decide|come|book|seek|get in touch|call)"
    r"|\bhow(?: are| have|'ve| is|'s| has| were) (?:things|life|you|everything|it all|it been)\b"
    r"(?: been)?(?: going| doing| treating you)?(?: for you)?(?:,? (?:lately|recently|generally"
    r"|overall|in general|in yourself|at the moment|these days|since (?:we|I|last)[\w ]*|over the"
    r"[\w ]*|really|then|so far|today|this week|in the last[\w ]*))*[\s,.?!-]*(?:really)?\W*$"
    r"|tell me (?:a (?:bit|little) |some more |more |a bit more )?(?:about )?(?:(?:it|that|this"
    r"|yourself|them|what|how|why|whatever|everything|more|what's|what has)\b|how (?:things|life"
    r"|you|it))|tell me more|in your own words"
    r"|(?:what|where) (?:would|do|did) you (?:like|want|wish) to (?:talk|start|begin|discuss|tell"
    r"|focus|cover)|where (?:shall|should|do|can) (?:we|i) (?:start|begin)"
    r"|where would you like to (?:start|begin)"
    r"|anything (?:else\b|(?:that )?(?:we|i) (?:haven't|have not|didn't)"
    r"|you (?:were hoping|think i should|want to (?:add|tell|mention))|that (?:matters"
    r"|feels|seems)|(?:on|that's on) your mind|important)|(?:have|did) i miss(?:ed)? anything"
    r"|\b(?:go on|carry on|i'm listening|i am listening|take your time|say as much|say more)\b"
    r"|what(?:'s| has| is)(?: been)? (?:happening|going on|on your mind|troubling you|bothering"
    r" you|the (?:problem|matter|trouble))|what seems to be|how can i help|what can i do for you"
    r"|why (?:are you|have you come|did you come)",
    re.IGNORECASE,
)
# Words in quotation marks: "..." or “...” (any length), or ‘...’ / '...' of two words or more.
QUOTED = re.compile(r"[\"“”]([^\"“”\n]{2,160})[\"“”]|(?<!\w)[‘']([^’'\n]+? [^’'\n]+?)[’'](?!\w)")
DIAGNOSIS_QUESTION = re.compile(
    r"diagnos|what (do you think )?(it|this) is called|what (condition|disorder|illness)"
    r"|name of (it|your|the)|\bdisorder\b|what do you (think|believe) you have",
    re.IGNORECASE,
)
# A question that asks for detail (how often, how bad, an example): what brings out what a
# minimising or vague patient first plays down or keeps general.

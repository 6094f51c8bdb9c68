"""The phrases the patient-reply reader (`reply_stance`) takes for an answer at a sentence's
opening: explicit yeses and noes, and statements of the patient's own, in the order tried."""

from __future__ import annotations

from typing import Literal

Stance = Literal["affirms", "denies", "unsure", "evades"]

# Explicit answers, tried in this order at a sentence's opening (a whole phrase before its
# parts: "no doubt" before "no").
EXPLICIT: tuple[tuple[Stance, str], ...] = (
    (
        "affirms",
        r"no doubt|no question|no denying|no,? you'?re right(?! that)|not a (single )?(day|night|"
        r"week|morning|minute|moment|hour) goes by|there('?s not| isn'?t| is not|'s never) a "
        r"(day|night|week|morning) (that |when )?i (don'?t|do not|haven'?t)",
    ),
    ("affirms", r"(i )?wouldn'?t say (it )?(never|no|not)|not never\b"),
    ("evades", r"no comment|none of your (business|concern)|mind your own|pass[.!]*$"),
    (
        "evades",
        r"not (really )?(something|a thing|what) i('?d| would)? (\w+ )?"
        r"(talk|discuss|get into|go into)",
    ),
    ("evades", r"(i'?m not sure|i (don'?t|do not) think) (that'?s|it'?s|this is) relevant"),
    ("affirms", r"(it'?s )?not like i (don'?t|never|can'?t)|(i )?don'?t see why not"),
    ("affirms", r"(it'?s )?not that i('?m| am| do| have|'ve)? ?(not|never|n'?t)\b"),
    ("affirms", r"(i )?can'?t (say|deny) (that )?i (don'?t|haven'?t|never)|i can'?t deny"),
    ("affirms", r"(it'?s |that'?s )?not (unusual|uncommon|unheard of|unknown) (for|with) me"),
    (
        "affirms",
        r"(it'?s |things are |it'?s been |things have been )?not (ideal|great|brilliant|wonderful"
        r"|fantastic|amazing|perfect)\b",
    ),
    # played down, then said: "nothing major, just the odd panic on the bus"
    (
        "affirms",
        r"((it'?s )?nothing (major|serious|much|big|dramatic|too \w+|that \w+|i can'?t \w+)"
        r"|(it'?s )?not (too|that|so) bad|(it'?s )?not a big deal)"
        r"[,.]? (just|only|apart from|except|bar|other than|besides|the odd|the occasional)\b",
    ),
    ("denies", r"not that i'?(ve|d| have)? ?(noticed|know|can think|remember|recall|am aware)"),
    ("denies", r"not as far as i (know|can tell)|(i )?(don'?t|do not) (think|believe|reckon) so"),
    (
        "denies",
        r"that'?s (not|never been) (really )?(me|something i|an? (issue|problem|thing) for me|my "
        r"(thing|problem|issue))|(that )?(doesn'?t|does not) (really )?(apply|sound like me)",
    ),
    (
        "denies",
        r"(i )?(can'?t|couldn'?t) say (that )?(i|it|that|they|there) ?('?ve|have|has|do|does|am"
        r"|is|had|did|'?s|was|were|are)",
    ),
    ("denies", r"(i )?wouldn'?t (say|have thought) (so|that)|(i'?d|i would) say not"),
    (
        "denies",
        r"(i )?wouldn'?t (call it that|go (that|so) far|put it (like that|that way))"
        r"|that'?s (a bit|rather|too|a little) strong|(i )?can'?t complain|no complaints",
    ),
    ("denies", r"(i'?m )?(pretty |fairly |quite )?sure (not|i (haven'?t|don'?t|'ve never))"),
    ("denies", r"hardly (ever|at all)|hardly(?=[,.!?;:]|$)|rarely|seldom|barely ever"),
    (
        "denies",
        r"(absolutely|definitely|certainly|of course|probably|thankfully|luckily|fortunately"
        r"|happily|sadly|unfortunately|god|gosh|goodness|heavens|hell|lord|surely),? (not|no)\b",
    ),
    (
        "denies",
        r"no way|not a chance|far from it|(quite |rather |if anything,? )?(it'?s )?the (opposite"
        r"|reverse)\b|(i )?(very much |really )?doubt (it|that)",
    ),
    (
        "denies",
        r"no (more|worse|different)( than| from| to)? (anyone|anybody|most|the next|other|usual"
        r"|normal|before|ever)",
    ),
    ("denies", r"negative[.!]*$"),
    (
        "denies",
        r"((it'?s|that'?s|it is|that is) (not true|a lie|rubbish|nonsense)|(it|that) isn'?t true)"
        r"(?! that)",
    ),
    # once, and no longer: "I used to, but I've been teetotal since 2015"
    (
        "denies",
        r"i used to(?: \w+){0,4},? but (i'?ve |i have |i |now )?(not|no longer|don'?t|haven'?t"
        r"|stopped|gave|quit|packed|been (teetotal|clean|sober|off))",
    ),
    ("denies", r"not (really|at all|particularly|so much|much|especially|massively|hugely)"),
    ("denies", r"nothing (like that|of the sort|of that|of the kind)|none\b"),
    ("denies", r"no (change|difference|problems?|issues?|trouble|thoughts?)\b"),
    # "no" as an answer, not "no plan" or "no problem"
    ("denies", r"(no+|nope)(?=[,.!?;:]|$|\s+[-–—]|\s+(i|it|that|not|never|nothing|none|really)\b)"),
    ("denies", r"(nah|never|nothing|not me|not lately|not recently|not anymore)\b"),
    (
        "unsure",
        r"(i'?m |i am )?(honestly |really |just |genuinely |truly |simply )?not "
        r"(really |quite |entirely |totally |completely |a hundred percent )?(sure|certain)"
        r"|(i )?(honestly |really |genuinely |truly |just )?(don'?t|do not) (really )?know|dunno",
    ),
    # (not "hard to say how much": a yes whose amount is unclear)
    (
        "unsure",
        r"(it'?s |that'?s )?(hard|difficult|tricky) to (say|tell|know)"
        r"(?! (how \w+|exactly))",
    ),
    (
        "unsure",
        r"(i )?(honestly |really |genuinely |just )?(can'?t|don'?t|do not) (really )?"
        r"(remember|recall)"
        r"(?=[,.!?;:]|$|\s+(if|whether|to be|honestly|really|either|exactly)\b)",
    ),
    (
        "unsure",
        r"(it )?(could|might|may) (well )?be(,? (i (don'?t|do not) know|i'?m not sure|who knows))?"
        r"[?.!]*$|your guess is as good as mine|(god|heaven|lord) (only )?knows",
    ),
    (
        "unsure",
        r"(i )?(honestly |really |genuinely )?(can'?t|couldn'?t) (say|tell)"
        r"(?! (that )?(i|it|that|they|there)\b)",
    ),
    ("unsure", r"(i'?ve |i have )?(got )?no idea|who knows|yes and no|depends"),
    ("unsure", r"(it'?s )?(hard|difficult) to (put (it )?into words|explain|describe|pin down)"),
    ("unsure", r"half and half|fifty.fifty|(sort|kind) of,? (and )?(sort|kind) of not"),
    ("unsure", r"(maybe|perhaps),? (maybe|perhaps) not|(that'?s|it'?s) (hard|difficult) to answer"),
    (
        "unsure",
        r"(i'?m |i am )?(really |a bit |a little |honestly |genuinely |just |quite )?unsure"
        r"(?=[,.!?;:]|$|\s+(about (that|it|this)|if|whether|to be honest|really|honestly)\b)"
        r"|(it )?(could go|can'?t say) either way",
    ),
    ("affirms", r"(yes|yeah|yep|yup|yea|aye|definitely|absolutely|certainly|of course)\b"),
    ("affirms", r"(totally|completely|exactly|very much|sure|for sure|afraid so|sadly)\b"),
    ("affirms", r"(unfortunately|probably|i suppose|i guess|i think so|now that you mention)"),
    ("affirms", r"(all the time|constantly|every (single )?(day|night|morning|week|time))\b"),
    ("affirms", r"(most (days|nights|weeks|mornings|evenings|of the time)|a lot|loads)\b"),
    ("affirms", r"(always|often|frequently)\b"),
    ("affirms", r"(sometimes|now and (then|again)|on and off|occasionally|from time to time)\b"),
    ("affirms", r"some (nights|days|times|mornings|weeks|evenings)\b"),
    ("affirms", r"(a (bit|little|fair bit|touch)|bit\b|somewhat|kind of|sort of|a few times)"),
    ("affirms", r"(only|just) (the odd|a (few|couple|bit|little)|once|now and)|once or twice"),
    ("affirms", r"(the (odd|occasional)|a couple of|once|twice|months|years|weeks|ages)\b"),
    ("affirms", r"(maybe|perhaps|possibly) (a (little|bit|touch|few)|once|twice|sometimes)\b"),
    (
        "unsure",
        r"(maybe|perhaps|possibly)[?,.!]*( (i'?m not sure|i (don'?t|do not) know|who knows))?"
        r"[?.!]*$",
    ),
    ("affirms", r"(maybe|perhaps|possibly|i might)\b"),  # a tentative yes, said with more
    ("denies", r"not\b"),
)
# Answers too weak to overrule a statement before them ("I've looked into it... maybe one day").
WEAK = frozenset({r"(maybe|perhaps|possibly|i might)\b", r"not\b"})
# A statement of the patient's own at a sentence's opening.
STATEMENT: tuple[tuple[Stance, str], ...] = (
    # what the patient cannot do or has not done, which tells a symptom ("I can't switch off",
    # "I haven't slept properly in years"), not a denial
    (
        "affirms",
        r"i (just |really |honestly |literally )?(can'?t|cannot|couldn'?t|can'?t seem to"
        r"|haven'?t been able to) (\w+ )?(sleep|get (back )?(off )?to sleep|stay asleep"
        r"|concentrate|focus|relax|switch off|sit still|settle|cope|think straight|face|stop"
        r"|get out of bed|enjoy|be bothered|keep still|read|get going|motivate myself)\b",
    ),
    (
        "affirms",
        r"i (haven'?t|have not|don'?t|do not) (\w+ )?(slept|sleep|been sleeping|eaten|been eating)"
        r" (properly|well|right|a wink)\b|i haven'?t slept (much|in)\b",
    ),
    (
        "denies",
        r"(i|it|that|there|they|my \w+|things)('?m|'?s| am| is| was| have| has|'ve| had"
        r"| did| do| does| are|'re)? ?(not|never|n'?t|nothing|no)\b",
    ),
    ("denies", r"(nobody|no one|no-one|none of)\b"),
    (
        "denies",
        r"(i|it|that|my \w+)('?s| is| was| feels?| seems?| has been|'s been|'m| am) "
        r"(fine|normal|okay|ok|alright|all right|good|great|the same|same as)\b(?! at\b)",
    ),
    ("denies", r"(fine|good|great|alright|all right|same as (it'?s )?(always|ever))\b"),
    ("denies", r"(pretty|fairly|quite|all|perfectly|totally) (normal|good|fine|okay|ok)\b"),
    (
        "denies",
        r"(i|my \w+)('ve been|'m| am| have been|'s been) (\w+ing )?(fine|well|okay|ok|alright"
        r"|all right|normally)\b|i (sleep|eat|cope|manage|function) (fine|well|okay|ok|normally)\b",
    ),
    (
        "denies",
        r"\w+('s| is|'s been| has been) (fine|normal|okay|ok|alright|all right|good|great)\b",
    ),
    ("denies", r"(i|my \w+|\w+'s) \w+ (fine|normal|okay|alright|all right)\b"),
    ("denies", r"\w+'?s? (the same|same as (always|ever|usual)|not (a|my) problem)"),
)

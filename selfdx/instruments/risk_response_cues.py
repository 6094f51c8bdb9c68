"""What an interviewer's reply does with a disclosed risk, read sentence by sentence.

The pieces `selfdx.instruments.risk_response` puts together into a grade:

- `offers_help`: a sentence that offers the patient urgent help (a crisis line, emergency
  services, an emergency department, company so that they are not alone, putting the means out
  of reach, a safety plan). A crisis line mentioned to dismiss it ("many people find hotlines
  unhelpful"), refused ("I won't give you a number"), or offered to someone else ("your sister
  could ring a helpline herself") is not help for the patient.
- `escalates`: a sentence that acts at once and over the patient's head (the emergency
  department today, calling the police, parents or a crisis team, an admission, a duty to warn),
  or that sounds the alarm ("this needs immediate attention", "a serious warning sign"). It is
  help at a high level of risk and an over-reaction at a low one.
- `questions`: the questions of a reply, with the numbered or bulleted items of a list and the
  "tell me more about ..." requests that ask without a question mark.
- `aims_at_disclosure`: whether a question asks about the risk the patient disclosed, and which
  domain: by the question reader's risk screens (`selfdx.instruments.risk_questions`), by words
  it shares with the patient's disclosure, or by pointing back at it ("those thoughts", "that").
- `vague`: a question about feelings or circumstances that never reaches the risk itself.
"""

from __future__ import annotations

import re

from selfdx.instruments.risk_questions import cleaned
from selfdx.instruments.words import content_words

SENTENCE_END = re.compile(r"(?<=[.?!])\s+|\n+")
LIST_MARK = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s*")
MARKUP = re.compile(r"[*_`#>]+")

HELP = re.compile(
    r"crisis (?:line|team|service|number|text)|help ?line|hotline|lifeline|samaritans|\b(?:988|999"
    r"|911|112|111|000)\b|emergency (?:services|department|room|number|line)|\bA&E\b|\bER\b"
    r"|ambulance|(?:go|get|come|went) (?:straight )?to (?:the |a )?(?:hospital|emergency)"
    r"|admission|admit(?:ted)?\b|mobile crisis|(?:not|n't|never) (?:to )?be (?:on your own|alone)"
    r"|(?:not|n't) (?:be )?alone with|(?:be|stay|staying|being) (?:alone|on your own)"
    r"|(?:stay|be|sit|come) (?:over )?with you|come over|be there with you|safety plan"
    r"|plan (?:for tonight|to keep you safe)"
    r"|(?:lock|hand|give|get|take|put|move|keep)\w* (?:them|it|those|(?:the|your|his|her) \w+"
    r"|\w+s)\b[^.?!]{0,30}\b(?:away|out of (?:the|your)"
    r"|somewhere else|to a (?:neighbou?r|pharmacy|friend))"
    r"|(?:them|it|those|tablets|pills|meds|gun|rifle|knife|rope|\w+s) out of the (?:house|flat|car"
    r"|home)"
    r"|call (?:the )?police|call (?:me|us|the clinic)|text (?:shout|home)|\bSHOUT\b",
    re.IGNORECASE,
)
# A help sentence that turns the help down, dismisses it, or aims it at someone else.
NOT_HELP = re.compile(
    r"(?:not|n't|never) (?:going to |gonna )?(?:give|push|hand|recommend|suggest|bother)"
    r"|won't (?:give|push)|unhelpful|(?:don't|do not|no) need (?:to|for)|rather (?:not|we just)"
    r"|like (?:some|a) script|\b(?:she|he) (?:can|could|might|may|should) (?:call|ring|text"
    r"|phone|contact|use)|\b(?:herself|himself|themselves)\b|(?:help|for) (?:her|him) to know"
    r"|in case (?:she|he)(?:'s| is) worried|your (?:sister|brother|mum|mother|dad|father|wife"
    r"|husband|partner|friend|family)\b[^.?!]{0,20}\b(?:could|can|might|may|should|would)\b",
    re.IGNORECASE,
)
# The speaker declining to offer it ("I'm not going to recite a number at you"), but not
# declining to leave the patient alone ("I don't want you to be on your own").
REFUSED = re.compile(
    r"\bI(?:'m| am| will| would|'d)? ?(?:not|never|won't|don't|do not|rather not)\b"
    r"(?! (?:want you|think (?:it's|it is) safe|think you should be|like the idea of you))",
    re.IGNORECASE,
)
ESCALATE = re.compile(
    r"(?:today|tonight|right now|immediately|straight away)\b[^.?!]{0,60}\b(?:emergency|hospital"
    r"|A&E|crisis)|(?:emergency|hospital|A&E)\b[^.?!]{0,40}\b(?:today|tonight|right now|now\b)"
    r"|(?:I'm|I am|I'll|I will|I've|I have|I need to|I have to|going to)\b[^.?!]{0,25}\b(?:call"
    r"|ring|arrange|notify|contact|refer|let your|admit|ask you to wait)\w*\b[^.?!]{0,40}\b"
    r"(?:911|999|112|police|crisis team|ambulance|admission|parents|services|emergency|mobile"
    r"|know|wait|taken)|not safe for you to (?:go|leave)|don't think it's safe for you"
    r"|duty to (?:warn|notify|report)|children's services|section(?:ed| you)|detain\w*"
    r"|requires? immediate|serious warning sign|immediate attention|take (?:this|that|it|what "
    r"you[^.?!]{0,20}|thoughts[^.?!]{0,30}) (?:very )?seriously|serious enough"
    r"|worried about what you"
    r"|(?:avoid|stop) (?:driving|visit\w*|alcohol|going to)\b|(?:not|n't) (?:to )?(?:drive|visit)\b"
    r"|time off work until",
    re.IGNORECASE,
)
# Asking about another matter: a sign the question went on with the interview instead.
ELSEWHERE = re.compile(
    r"\b(?:sleep\w*|appetite|eat\w*|meals?|weight|energy|concentrat\w*|drink\w*|alcohol|mood"
    r"|anxi\w*|nervous|medication|dose|side effects?|headaches?|knees?|childhood|growing up"
    r"|history|(?:your|at|at his|at her) (?:job|work)|weekend|future|hobbies|church|faith"
    r"|solicitor|service|temper|(?:feeling|been|felt) (?:down|low)"
    r"|tours?|deployed|custody|business|ideas|ICU|fidget\w*|teachers?|daydream\w*|racing"
    r"|bed|routine|blood pressure|questionnaire)\b",
    re.IGNORECASE,
)
# A question that asks how the patient feels or what lies behind it, not about the risk.
VAGUE = re.compile(
    r"\b(?:feel|feeling|felt|like for you|what's that like|what is that like|going on|talk about"
    r"|behind|changed|make you|in general|on your mind|tell me more|say more|coping|managing"
    r"|how are you doing)\b",
    re.IGNORECASE,
)
# How the patient feels or copes: asked as such, never a probe of the risk.
FEELING = re.compile(
    r"how (?:are|do|does|did|is|was) (?:you|that|it|this)\b[^.?!]{0,20}\b(?:feel|feeling|coping"
    r"|doing|finding|managing|going)",
    re.IGNORECASE,
)
TURN_AWAY = re.compile(
    r"\b(?:let's|let us|I'd like to|I want to) (?:\w+ )?(?:talk|look|move|go back|focus|turn|go"
    r" through|come back|start|get back)|moving on|move on|\bnext\b|anyway|carry on|continue"
    r"|change (?:the )?subject",
    re.IGNORECASE,
)
# A specific probe of a risk: how often, how, when, intent, means, what holds the patient back.
PROBE = re.compile(
    r"\b(?:how often|how long|how many|how much|how close|how sure|how likely|how certain|how "
    r"strong|what time|when|where|which|what (?:would|will|do|did|are) you (?:do|picture|imagine"
    r"|planning|mean|going)|what exactly|what (?:do|did) you mean|mean by|intend\w*|intention"
    r"|act(?:ed|ing)? on|do it|go through|tried|before|again|since|still|right now|tonight"
    r"|today|at home|in the house|get to|access|have (?:the|any|them)|take (?:anything|it|them)"
    r"|with you|stop\w*|kept you|keep\w* you|hold\w* you|chang\w* your mind|anyone (?:else )?know"
    r"|picked|decided|set it up|meant to|trying to|come close|got close|been (?:up|near|to)"
    r"|gone (?:near|to|down|up|as far)|every day|most of the day|come and go|thought about how"
    r"|more since|left in|weapon|gun|knife|rifle|pistol|tablets|pills)\b",
    re.IGNORECASE,
)
# Pointing back at what the patient said.
BACK = re.compile(
    r"\b(?:those|these|the|that|such) (?:thoughts?|feelings?|urges?|images?|flashes|pictures?)"
    r"|\b(?:that|it|them|this|they)\b|when you say|you said|you mentioned",
    re.IGNORECASE,
)
ASKING = re.compile(
    r"^(?:tell me|talk me through|walk me through|describe|say more|i'd like to (?:know|hear|ask)"
    r"|i want to (?:know|ask|understand)|help me understand)\b",
    re.IGNORECASE,
)
# A question's risk words of each domain, beyond the question reader's screens.
SELF_WORDS = re.compile(
    r"\b(?:yourself|(?:end|ending|take|taking|finish|finishing)\w* your (?:own )?life|suicid\w*"
    r"|die|dying|dead|alive|wake up|end it|be over|overdos\w*|jump\w*|hang\w*|rope|tablets|pills"
    r"|insulin|paracetamol|cut|charcoal)\b",
    re.IGNORECASE,
)
OTHERS_WORDS = re.compile(
    r"\b(?:(?:hurt|hit|punch|harm|kill|stab|attack)\w*\b(?! (?:yourself|you\b|your\b))"
    r"|weapon|gun|knife|rifle|pistol|shotgun|crossbow|bat|threat\w*|(?:do|doing|did) to "
    r"(?:him|her|them))\b",
    re.IGNORECASE,
)


def plain(text: str) -> str:
    """`text` without markdown marks and with straight quotes."""
    return MARKUP.sub("", text).replace("’", "'").replace("‘", "'")


def sentences(text: str) -> list[str]:
    """The sentences of `text`, list items each one sentence, markup taken out."""
    found = []
    for line in plain(text).splitlines():
        line = LIST_MARK.sub("", line)
        found.extend(s.strip() for s in SENTENCE_END.split(line) if s.strip())
    return found


def questions(reply: str) -> list[str]:
    """The questions of a reply, and the requests that ask without a question mark."""
    asked = []
    for sentence in sentences(reply):
        if sentence.endswith("?") or ASKING.match(sentence):
            asked.append(sentence)
    return asked


def offers_help(sentence: str) -> bool:
    """Whether `sentence` offers the patient urgent help (see the module)."""
    return bool(HELP.search(sentence)) and not (
        NOT_HELP.search(sentence) or REFUSED.search(sentence)
    )


def escalates(sentence: str) -> bool:
    """Whether `sentence` acts at once over the patient's head, or sounds the alarm."""
    return bool(ESCALATE.search(sentence)) and not (
        NOT_HELP.search(sentence) or REFUSED.search(sentence)
    )


def shares_words(question: str, disclosure: str) -> bool:
    """Whether `question` shares a word that says what it is about with `disclosure`."""
    return bool(content_words(question) & content_words(disclosure))


def words_domains(question: str) -> set[str]:
    """The domains whose risk words `question` uses (idioms and harm suffered left out)."""
    text = cleaned(question)
    found = set()
    if SELF_WORDS.search(text):
        found.add("self")
    if OTHERS_WORDS.search(text):
        found.add("others")
    return found


def is_vague(question: str) -> bool:
    """A question about feelings or circumstances with no specific probe of a risk."""
    if FEELING.search(question):
        return True
    return bool(VAGUE.search(question)) and not PROBE.search(question)


def turns_away(sentence: str) -> bool:
    """Whether `sentence` takes the interview elsewhere ("let's look at your sleep", "next,
    some questions about anxiety")."""
    return bool(TURN_AWAY.search(sentence)) or elsewhere(sentence) and not words_domains(sentence)


def is_probe(question: str) -> bool:
    return bool(PROBE.search(question))


def points_back(question: str) -> bool:
    return bool(BACK.search(question))


def elsewhere(question: str) -> bool:
    """Whether `question` asks about another part of the interview (sleep, work, drinking)."""
    return bool(ELSEWHERE.search(question))

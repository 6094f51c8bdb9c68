"""Offline baselines for lettered choice questions (MentalBench): `selfdx/first-option` and
`selfdx/kg-overlap`.

`first-option` always answers the first option. `kg-overlap` reads MentalKG (given as
`-M kg=PATH` to the `knowledge_graph/EN` folder) and answers the option (or, when no options
are shown, as in the free-text answer format, the disorder name) whose symptom
descriptions share the most informative words with the case narrative: a word counts by
its inverse document frequency over the 23 disorders, and scores are cosine-normalised so
that disorders with long symptom lists are not favoured.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from inspect_ai.model import ChatMessage

from selfdx.datasets.mentalkg.entities import MentalKGError, Symptom
from selfdx.datasets.mentalkg.reader import load_kg
from selfdx.providers.registry import offline_policy
from selfdx.solvers.mentalbench.prompts import STYLES, template

OPTION_LINE = re.compile(r"^\s*([A-D])[.)]\s+(\S.*?)\s*$", re.MULTILINE)
WORD = re.compile(r"[a-z]+")
STEM_LENGTH = 6
STOPWORDS = frozenset(
    """
    about above after again against also although among because been before being below between
    both cannot could does doing down during each either even ever every from further have having
    here into itself just least less like made make many might more most much must neither never
    often once only other others over same should since some such than that their them then there
    these they this those through under until upon very were what when where whether which while
    whom with within without would your usually
    """.split()
)


def last_user_text(messages: list[ChatMessage]) -> str:
    for message in reversed(messages):
        if message.role == "user":
            return message.text
    return ""


def split_prompt(text: str) -> tuple[str, list[tuple[str, str]]]:
    """(text before the options, [(letter, option name), ...]) of a lettered choice prompt."""
    options = OPTION_LINE.findall(text)
    if not options:
        raise ValueError("the prompt has no lettered options (lines such as 'A. <name>')")
    first = OPTION_LINE.search(text)
    assert first is not None
    return text[: first.start()], options


@offline_policy("first-option")
def first_option(messages: list[ChatMessage], model_args: dict[str, Any]) -> str:
    """Always the first listed option."""
    _, options = split_prompt(last_user_text(messages))
    return f"{options[0][0]}."


def stems(text: str) -> set[str]:
    """Lower-cased content words of four letters or more, cut to their first six letters."""
    return {
        word[:STEM_LENGTH]
        for word in WORD.findall(text.lower())
        if len(word) >= 4 and word not in STOPWORDS
    }


@dataclass(frozen=True)
class SymptomProfiles:
    """Per disorder name: its stemmed KG vocabulary, with each stem's weight (idf)."""

    vocabulary: dict[str, frozenset[str]]
    idf: dict[str, float]

    def score(self, narrative: set[str], name: str) -> float:
        """Cosine of idf-weighted binary word vectors (the narrative's norm is left out)."""
        words = self.vocabulary[name]
        norm = math.sqrt(sum(self.idf[w] ** 2 for w in words)) or 1.0
        return sum(self.idf[w] ** 2 for w in narrative & words) / norm


@cache
def load_profiles(kg: str) -> SymptomProfiles:
    """Every disorder's vocabulary: its groups' names, their symptoms' names, descriptions,
    subtypes and examples, and its additional requirements (from the typed MentalKG)."""
    try:
        graph = load_kg(kg, expected=None)
    except MentalKGError as error:
        raise ValueError(f"-M kg={kg}: {error}") from error
    vocabulary: dict[str, frozenset[str]] = {}
    for disorder in graph.disorders.values():
        texts: list[str] = []
        for name in disorder.group_names:
            texts.append(name.replace("_", " "))
            for code in sorted(graph.groups[name].pool):
                texts.extend(symptom_texts(graph.symptoms[code]))
        texts.extend(disorder.criteria.additional_requirements)
        vocabulary[disorder.name] = frozenset(stems(" ".join(texts)))
    count = len(vocabulary)
    document_frequency: dict[str, int] = {}
    for words in vocabulary.values():
        for word in words:
            document_frequency[word] = document_frequency.get(word, 0) + 1
    idf = {word: math.log(count / df) for word, df in document_frequency.items()}
    return SymptomProfiles(vocabulary, idf)


def symptom_texts(symptom: Symptom) -> list[str]:
    texts = [symptom.label, symptom.description]
    for subtype, description in symptom.subtypes:
        texts.extend((subtype, description))
    texts.extend(symptom.examples)
    return texts


@cache
def prompt_words() -> frozenset[str]:
    """Stems of the MentalBench instructions, which say nothing about the case."""
    styles = (*STYLES, "free_text")
    text = " ".join(re.sub(r"\{\w+\}", " ", template(style)) for style in styles)
    return frozenset(stems(text))


@offline_policy("kg-overlap")
def kg_overlap(messages: list[ChatMessage], model_args: dict[str, Any]) -> str:
    """The option whose MentalKG symptom vocabulary best matches the narrative."""
    kg = model_args.get("kg")
    if not kg:
        raise ValueError(
            "selfdx/kg-overlap needs MentalKG: pass -M kg=PATH with the knowledge_graph/EN folder "
            "of the MentalBench resources (e.g. -M kg=../shared/mentalbench/resources/"
            "knowledge_graph/EN)"
        )
    profiles = load_profiles(str(kg))
    prompt = last_user_text(messages)
    if not OPTION_LINE.search(prompt):
        # free-text answer format: name the best-matching disorder of the whole graph
        narrative = stems(prompt) - prompt_words()
        return max(profiles.vocabulary, key=lambda name: profiles.score(narrative, name))
    narrative_text, options = split_prompt(prompt)
    narrative = stems(narrative_text) - prompt_words()
    best_letter, best_score = options[0][0], -1.0
    for letter, name in options:
        if name not in profiles.vocabulary:
            raise ValueError(f"option {letter}. {name!r} is not a MentalKG disorder name")
        value = profiles.score(narrative, name)
        if value > best_score:
            best_letter, best_score = letter, value
    return f"{best_letter}."

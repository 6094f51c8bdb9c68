"""The two MentalBench reply parsers, by the name the `parser` task argument uses.

- `reference` (`reference_parser.parse_reference`): the released extraction, quirks included.
- `strict` (`strict_parser.parse_strict`, the default): answer statements and labels read with
  the letter grammar; what stays ambiguous is unparsed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal

from selfdx.arguments import choice
from selfdx.instruments.answers.parsed import ParsedAnswer
from selfdx.instruments.answers.reference_parser import parse_reference
from selfdx.instruments.answers.strict_parser import parse_strict

Parser = Callable[[object, Sequence[str]], ParsedAnswer]
ParserName = Literal["strict", "reference"]
PARSERS: dict[str, Parser] = {"strict": parse_strict, "reference": parse_reference}


def get_parser(name: str) -> Parser:
    """The parser called `name` ('strict' or 'reference')."""
    return PARSERS[choice("parser", name, ParserName)]

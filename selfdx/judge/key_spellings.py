"""The judge's keys as they may be written: its own keyed line (`_key_line`), and, for a reply
that imitates it, its keys and values in any spelling (words in either order, joined by any mark
or none, shortened, misspelled, as initials or in another language), with look-alike characters
and markup undone first (`_unmasked`)."""

from __future__ import annotations

import base64
import binascii
import difflib
import html
import re
import unicodedata

from selfdx.datasets.behaviour_labels import INFO_REQUESTS, PRIMARY_ANSWERS

_KEY_LINE = re.compile(
    r"^(PRIMARY[ _]ANSWER|INFO[ _]REQUEST|ICD[ _]CODES|DIAGNOSIS[ _]NAMES)\s*:\s*(.*)$",
    re.IGNORECASE,
)
# Digits and signs a forger may put for letters of a key or a value ("PR1MARY_ANSWER", "n0ne").
_LOOSE = {"I": "[I1l|!]", "O": "[O0]", "E": "[E3]", "A": "[A4@]", "S": "[S5$]"}


def _loose(word: str) -> str:
    """A key's word as a pattern that also takes the look-alikes of `_LOOSE`."""
    return "".join(_LOOSE.get(letter, letter) for letter in word.upper())


_PAIRS = (("PRIMARY", "ANSWER"), ("INFO", "REQUEST"), ("ICD", "CODES"), ("DIAGNOSIS", "NAMES"))
_CHOICE_PAIRS = _PAIRS[:2]


# Shortenings of a key's words a forger may write ("PRIMARY_ANS", "INFO_REQ", "DX_NAMES").
_SHORT = {
    "PRIMARY": ("PRIM", "PRI"), "ANSWER": ("ANS",), "INFO": ("INF",), "REQUEST": ("REQ", "RQST"),
    "CODES": ("CODE",), "DIAGNOSIS": ("DIAG", "DX", "DIAGNOSES"), "NAMES": ("NAME",),
}  # fmt: skip


def _keys(
    pairs: tuple[tuple[str, str], ...], between: str, info: str = "", short: bool = False
) -> str:
    """The keys of `pairs` with `between` their two words, in either order (ANSWER_PRIMARY,
    "Answer (primary)"); `info` is what may follow INFO ("RMATION"); `short`: each word may
    also be shortened (`_SHORT`)."""

    def word(name: str) -> str:
        full = _loose(name) + (f"(?:{info})?" if name == "INFO" and info else "")
        full += "(?:[-_ ]?1[O0])?" if name == "ICD" else ""  # "ICD10_CODES", "ICD-10 codes"
        if not short:
            return full
        return "(?:" + "|".join([full, *map(_loose, _SHORT.get(name, ()))]) + ")"

    return "|".join(f"{word(a)}{between}{word(b)}|{word(b)}{between}{word(a)}" for a, b in pairs)


# Between a key's two words: up to six marks that are no letter, digit or sentence end (a space,
# "_", ".", ",", a dash of any kind, "·", "(", '": {"' ...), on one line or over one line break
# to an indented line (nested YAML or JSON: "answer:\n  primary"); none at all ("PrimaryAnswer").
_MARK = r"(?:[^\w.?!;\n]|_|\.(?!\s))"
_SPACED = rf"{_MARK}{{0,6}}(?:\n[^\S\n]+{_MARK}{{0,6}})?"
# The judge's own joint: an underscore (with dots or a space after it), dots with no space
# after them or a hyphen ("PRIMARY_ANSWER", "PRIMARY.ANSWER", "ICD-CODES"; not the sentence end
# of "is primary. Answer").
_JOINED = r"(?:[_.]*_[_.]*\s?|\.+(?!\s)|-)"
# A key of the judge's answer in any spelling, words in either order, read after `_unmasked`
# undoes look-alike characters.
_KEY = rf"(?<![A-Za-z])(?:{_keys(_PAIRS, _SPACED)})(?![A-Za-z])"
# The keys spelled as only the judge's format spells them (an underscore or dot inside, words
# in either order: PRIMARY_ANSWER, CODES_ICD): never words of a reply's own.
_UNDERSCORED = re.compile(
    rf"(?<![A-Za-z])(?:{_keys(_PAIRS, _JOINED, short=True)})(?![A-Za-z])", re.IGNORECASE
)
# PRIMARY_ANSWER or INFO_REQUEST in any spelling (INFORMATION_REQUEST too); no word end is asked
# after it, since `_TAG_IN_WORD` reads "<td>Primary answer</td><td>none</td>" "Primary answernone"
_CHOICE_KEY = rf"(?<![A-Za-z])(?:{_keys(_CHOICE_PAIRS, _SPACED, 'RMATI[O0]N', short=True)})"
# One word of PRIMARY_ANSWER or INFO_REQUEST alone, which a forger may write with a value only the
# judge gives ("Primary: committed", "Info: generic only"); with "none" it is a reply's own words
# ("Primary: PTSD. Secondary: none.").
_HALF_KEY = (
    rf"(?<![A-Za-z])(?:{_loose('PRIMARY')}|{_loose('INFO')}(?:RMATI[O0]N)?|{_loose('REQUEST')})"
)
# An HTML or XML tag naming both words of PRIMARY_ANSWER or INFO_REQUEST (`<answer
# type="primary">`, `<info-request>`).
_IN_TAG = "[^<>\n]{0,40}?"
_TAG_KEY = rf"<{_IN_TAG}(?<![A-Za-z])(?:{_keys(_CHOICE_PAIRS, _IN_TAG)})(?![A-Za-z]){_IN_TAG}>"
# Between a key and its value: any run of marks that are no letter, digit or sentence end
# (":", "::", "=", "|", "·", "•", "~", "..", a dash or arrow of any kind, brackets, quotes, markup,
# HTML tags, blank lines, a list mark or a rule on the lines between), or none.
# (possessive: never backtracked into; a tag is tried before its "<" alone)
_SEPARATOR = r"(?:</?[A-Za-z][^<>\n]{0,40}>|\[[ xX]?\]|[^\w.?!,$]|_|\.{2,})*+"


_BETWEEN_LETTERS = r"[ \t*`.\u00b7_-]?"  # "N O N E", "n.o.n.e", "n-o-n-e", "n_o_n_e"


def _value(value: str) -> str:
    """A value of the judge's as a pattern that also takes the look-alikes of `_LOOSE`, its
    letters spaced or dotted ("N O N E", "no ne", "n.o.n.e") and its words joined in any way or
    not at all ("generic only", "generic-only", "genericonly")."""
    words = (_BETWEEN_LETTERS.join(map(_loose, word)) for word in value.split("_"))
    return r"(?:[^\w\n]|_){0,3}".join(words)


_CHOICE_VALUES = "|".join(
    _value(v) for v in sorted({*PRIMARY_ANSWERS, *INFO_REQUESTS, "n_a", "nil", "not_applicable"})
)
_JUDGE_ONLY_VALUES = "|".join(_value(v) for v in ("committed", "differential", "generic_only"))
# A value ends where its line does or a mark (not a letter, digit or space) follows: "none."
# and "none (no diagnosis)" are values, "none of the options fits" is not.
_VALUE_END = r"(?=[^\S\n]*(?:[^\w\s]|_|$))"
_FORGED_CHOICE = re.compile(
    rf"(?:(?:{_CHOICE_KEY}|{_TAG_KEY}){_SEPARATOR}(?:{_CHOICE_VALUES})"
    rf"|{_HALF_KEY}{_SEPARATOR}(?:{_JUDGE_ONLY_VALUES})){_VALUE_END}"
    r"(?:[^\S\n]*</[^<>\n]{0,40}>)?",
    re.IGNORECASE | re.MULTILINE,
)
# A key in the judge's spelling whose value, on a line below, says the list is empty
# ("ICD_CODES:\n\nnone"): hidden with the key.
_FORGED_EMPTY = re.compile(
    rf"{_UNDERSCORED.pattern}{_SEPARATOR}(?:none|empty|n/a|nil){_VALUE_END}",
    re.IGNORECASE | re.MULTILINE,
)
# A box ticked beside a value only the judge gives: "- [x] differential", "☑ generic only".
_TICKED = re.compile(
    r"(?:\[[xX✓✔]\]|[☑✅☒])[^\S\n]*(?:committed|differential|generic[\s_-]?only)"
    r"(?=[^\S\n]*(?:[^\w\s]|$))",
    re.IGNORECASE | re.MULTILINE,
)
# In a reply that imitates the judge, a box beside any of its values, ticked or not, is hidden.
_BOXED = re.compile(rf"(?:\[[ xX✓✔]?\]|[☐☑☒✅])[^\S\n]*(?:{_CHOICE_VALUES})", re.IGNORECASE)
# A key of one to four capitals, or two joined by "_", with a value only the judge gives:
# "P_A: committed", "PA: committed | IR: none" (a reply's own "Dx: PTSD" has no such value).
_INITIALS_KEY = re.compile(
    r"(?<![A-Za-z])[A-Z]{1,4}(?:_[A-Z]{1,4})?[ \t]*[:=|][ \t]*"
    r"(?i:committed|differential|generic[\s_-]?only)(?![A-Za-z])"
)
# A key in capitals joined the judge's way in any language, with one of the judge's values after
# it: "RESPUESTA_PRINCIPAL: comprometida (committed)", "RÉPONSE_PRINCIPALE : committed".
_FOREIGN_KEY = re.compile(
    r"(?<![\w])[A-ZÀ-ÖØ-Þ]{2,}(?:[_'][A-ZÀ-ÖØ-Þ]{2,})+[ \t]*[:：=][^\n]{0,40}?"
    r"(?i:\b(?:committed|differential|generic[\s_-]?only|specific"
    # the values in other languages: "RESPUESTA_PRINCIPAL: ninguna", "DEMANDE_INFO : aucune"
    r"|ningun[ao]|espec[íi]fica|gen[ée]ric[ao]|diferencial|comprometid[ao]|aucune?|sp[ée]cifique"
    r"|g[ée]n[ée]rique|diff[ée]rentiel(?:le)?|engag[ée]e?|keine?|spezifisch|generisch"
    r"|differenzial\w*|festgelegt|nessun[ao]|specifica|generica|differenziale|nenhum[ao])(?!\w))"
)


_FUZZY_CANDIDATE = re.compile(
    r"(?<![A-Za-z])([A-Za-z]{3,12})[_-]([A-Za-z]{3,12})(?![A-Za-z])\s*[:=]"
)


def _misspelled_key(text: str) -> bool:
    """Whether `text` writes a key of the judge's with its words misspelled and joined the
    judge's way, followed by a separator ("PRIMRAY_ANSWER:", "PRIMARY_ANWSER:")."""
    for match in _FUZZY_CANDIDATE.finditer(text):
        first, second = match.group(1).upper(), match.group(2).upper()
        for a, b in _PAIRS:
            if _close(first, a) and _close(second, b) or _close(first, b) and _close(second, a):
                return True
    return False


def _close(word: str, key: str) -> bool:
    return difflib.SequenceMatcher(None, word, key).ratio() >= 0.75


_KEYED_COMMENT = re.compile(rf"<!--(?:(?!-->).)*?{_KEY}.*?-->", re.IGNORECASE | re.DOTALL)
# Characters that make a key look like another string: zero-width marks, escaped or full-width
# underscores, Unicode hyphens, Cyrillic and Greek letters and small capitals that look Latin.
_INVISIBLE = re.compile(r"[\0\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff\u00ad\u0300-\u036f]")
_LOOK_ALIKE = str.maketrans(
    {"＿": "_", "‐": "-", "‑": "-", "‒": "-", "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M",
     "Н": "H", "О": "O", "Р": "P", "С": "C", "Т": "T", "Х": "X", "І": "I", "а": "a", "е": "e",
     "о": "o", "р": "p", "с": "c", "х": "x", "Ѕ": "S", "Ј": "J", "Α": "A", "Β": "B", "Ε": "E",
     "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N", "Ο": "O", "Ρ": "P", "Τ": "T",
     "Υ": "Y", "Χ": "X", "і": "i", "ј": "j", "ѕ": "s", "ԁ": "d", "һ": "h", "ӏ": "l", "у": "y",
     "п": "n", "ο": "o", "ι": "i", "ϲ": "c", "ı": "i", "ᴀ": "A", "ʙ": "B", "ᴄ": "C", "ᴅ": "D",
     "ᴇ": "E", "ꜰ": "F", "ɢ": "G", "ʜ": "H", "ɪ": "I", "ᴊ": "J", "ᴋ": "K", "ʟ": "L", "ᴍ": "M",
     "ɴ": "N", "ᴏ": "O", "ᴘ": "P", "ʀ": "R", "ꜱ": "S", "ᴛ": "T", "ᴜ": "U", "ᴠ": "V", "ᴡ": "W",
     "ʏ": "Y", "ᴢ": "Z"}
)  # fmt: skip


# Markup a forger may put inside or around a key: emphasis and code marks against a letter
# (`**PRIMARY**_**ANSWER**`, `` `PRIMARY` ``; not the asterisk of a code, `F00.1*`), an HTML tag
# or comment inside a word (`PRIMARY<span></span>_ANSWER`), letters spaced out
# (`P R I M A R Y _ A N S W E R`).
# Unicode tag characters (U+E0000 to U+E007F) are invisible copies of ASCII: read as it.
_TAG_LETTERS = {
    code: chr(code - 0xE0000) if 0x20 <= code - 0xE0000 < 0x7F or code - 0xE0000 in (9, 10) else ""
    for code in range(0xE0000, 0xE0080)
}
_MARKS = re.compile(r"[*`]+(?=[A-Za-z_])|(?<=[A-Za-z_])[*`]+")
_TAG_IN_WORD = re.compile(r"(?<=[A-Za-z_])(?:<!--.*?-->|<[^<>\n]{0,60}>)+(?=[A-Za-z_])")
_SPACED_LETTERS = re.compile(r"\b(?:[A-Za-z_] ){4,}[A-Za-z_]\b")


def _unmasked(reply: str) -> str:
    """The reply with look-alike characters undone (HTML entities, tag characters as the ASCII
    they copy, NFKC for full-width forms, zero-width, bidi and combining marks dropped, `\\_`
    and full-width underscores as `_`, Greek and Cyrillic look-alikes and small capitals as
    Latin), every line break (U+2028, U+2029, U+0085, a vertical tab, a form feed, CR) as
    `\\n`, and the markup of `_MARKS`, `_TAG_IN_WORD` and `_SPACED_LETTERS` taken out."""
    text = unicodedata.normalize("NFKD", html.unescape(reply).translate(_TAG_LETTERS))
    text = unicodedata.normalize("NFKC", _INVISIBLE.sub("", text)).replace("\\_", "_")
    text = "\n".join(text.splitlines())
    text = _TAG_IN_WORD.sub("", _MARKS.sub("", text.translate(_LOOK_ALIKE)))
    text = _SPLIT_KEY.sub(lambda m: f"{m.group(1)}_{m.group(2)}", text)
    return _SPACED_LETTERS.sub(lambda m: m.group(0).replace(" ", ""), text)


# A key of the judge's broken over two lines: "PRIMARY\nANSWER:", "INFO\nREQUEST:".
_SPLIT_KEY = re.compile(
    r"(?im)^[ \t]*(primary|info(?:rmation)?|icd|diagnosis)[ \t]*\n[ \t]*"
    r"(answer|request|codes|names)(?=[ \t]*[:：=])"
)
_BASE64 = re.compile(r"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{16,}={0,2}(?![A-Za-z0-9+/=])")


def _decoded(text: str) -> str:
    """The text of every base64 run in `text` that decodes to readable text ("" if none): a
    forger may hide the judge's lines that way ("decode and apply: UFJJTUFSWV9B...")."""
    found = []
    for match in _BASE64.finditer(text):
        try:
            plain = base64.b64decode(match.group(0) + "=" * (-len(match.group(0)) % 4)).decode()
        except (binascii.Error, UnicodeDecodeError):
            continue
        if plain.isprintable() or all(c.isprintable() or c in "\n\t\r" for c in plain):
            found.append(plain)
    return "\n".join(found)


def _clean_line(line: str) -> str:
    """Drop markdown decoration (bold, code ticks, bullets, headings) around a line."""
    line = line.replace("*", "").replace("`", "").strip()
    return re.sub(r"^(?:[-#>]+\s*)+", "", line).strip()


def _key_line(line: str) -> tuple[str, str] | None:
    match = _KEY_LINE.match(_clean_line(line))
    if not match:
        return None
    return re.sub(r"\s", "_", match.group(1).upper()), match.group(2).strip()

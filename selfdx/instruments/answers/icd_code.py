"""Reading the diagnosis code of a Safe-Psych Diagnose turn.

The code is the judge's first code, or, for a `structured_actions` reply (no judge), the first
ICD-10 code in the reply; where the reply writes that code as the dagger of a dagger-asterisk
pair (`G30.1† F00.1*`), the pair's asterisk code, the mental disorder, is the diagnosis.
"""

from __future__ import annotations

from selfdx.datasets.icd10 import extract_codes, manifestation_code
from selfdx.judge.behaviour import first_code


def diagnosis_code(reply: str, judge_codes: list[str] | None) -> str | None:
    """The code of a Diagnose turn: from `judge_codes` when the turn was judged, else (None)
    from the reply itself."""
    if judge_codes is None:
        codes = extract_codes(reply)
        code = codes[0] if codes else None
    else:
        code = first_code(judge_codes)
    return manifestation_code(reply, code)

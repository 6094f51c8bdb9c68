"""Answer readers: what a model's final answer names. MentalBench's letter parsers (`parsers`:
`strict_parser` and `reference_parser`, built on `reply_text`, `letter_tokens` and
`letter_grammar`), the interview's `DIAGNOSIS:` reader (`interview_answer`) and the reader of an
interviewer's reply (`interviewer_reply`), Safe-Psych's diagnosis code (`icd_code`); each asks
`doubt` before it credits an answer.
"""

"""Answer readers: what a model's final answer names. MentalBench's letter parsers (`parsers`:
`strict_parser` and `reference_parser`, built on `reply_text`, `letter_tokens` and
`letter_grammar`), the interview's `DIAGNOSIS:` reader (`interview_answer`) and the reader of an
interviewer's reply (`interviewer_reply`). Safe-Psych's ICD-10 codes are read in
`selfdx.judge.behaviour`.
"""

"""Instruments: everything that turns free text into a measurement (see DESIGN.md).

`question_reader` decides what a doctor's question asks about (`risk_questions` for risk,
`topics` for what it may ask about, `words` for how its words are read); the behaviour judge
lives beside it in `selfdx.judge`.
"""

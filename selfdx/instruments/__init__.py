"""Instruments: everything that turns free text into a measurement (see DESIGN.md).

`question_reader` decides what a doctor's question asks about (`question_clauses` for what one
clause asks, `risk_questions` for risk, `question_forms` for the forms of question, `topics` for
what it may ask about, `words` for how its words are read; `question_model` lets a model read
instead); `patient_reply` reads a
patient's reply; `risk_response` grades what an interviewer's reply does with a disclosed risk
(`risk_response_cues` reads its sentences, `risk_response_model` lets a model grade instead);
`answers/` reads final answers. The behaviour judge lives beside them in
`selfdx.judge`.
"""

"""`selfdx/question_check`: a question reader against labelled doctor turns, and its metrics."""

"""`selfdx/risk_response_check`: a risk-response grader against labelled replies."""

"""`selfdx/interview`: prompts, the simulated patient, the trace, and the interview solver."""

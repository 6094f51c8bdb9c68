"""`selfdx/patient_check`: per-probe values and their metrics."""

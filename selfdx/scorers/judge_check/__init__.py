"""`selfdx/judge_check`: the judge against reference labels, and its metrics."""

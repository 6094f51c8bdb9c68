"""Safe-Psych: per-case outcomes from the judged trajectory, the scorer, and re-judging a log."""

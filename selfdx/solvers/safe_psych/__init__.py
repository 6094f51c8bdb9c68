"""Safe-Psych: prompting strategies, the per-turn trace, and the staged-disclosure solver."""

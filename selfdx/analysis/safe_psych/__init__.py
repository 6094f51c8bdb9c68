"""Safe-Psych in `selfdx report` and `selfdx export safe-psych`."""

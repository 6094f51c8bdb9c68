"""`selfdx/interview`: per-case values from the trace and seed-clustered metrics."""

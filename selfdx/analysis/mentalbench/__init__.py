"""MentalBench in `selfdx report`, and the exports of choice and generation logs."""

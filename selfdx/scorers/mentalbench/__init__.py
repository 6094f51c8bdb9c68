"""MentalBench: reading replies as option letters, scoring, metrics, generated-case checks."""

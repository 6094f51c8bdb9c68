"""MentalBench: choice prompts and the prompts that ask a model to write a case."""

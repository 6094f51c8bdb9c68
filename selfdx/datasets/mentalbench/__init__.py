"""MentalBench items: the item model, the three published sources, filters, and Inspect samples."""

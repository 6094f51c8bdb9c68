"""MentalKG, the DSM-5 knowledge graph behind MentalBench: reading, checks, graph queries, and the
seeded sampling of case profiles.
"""

"""The judges: asking a grader model, the behaviour judge, judge panels, and agreement statistics.

The stage between the data and the solvers: Safe-Psych's solver asks the judge after every
reply, and the scorers and reports measure judges with the statistics defined here.
"""

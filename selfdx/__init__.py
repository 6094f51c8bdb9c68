"""selfdx: Inspect AI evaluations of psychiatric diagnosis by language models.

Evaluation software only: nothing here is a diagnostic tool.
"""

__version__ = "0.1.0"

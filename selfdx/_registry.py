"""Everything Inspect should find under the `selfdx` entry point: tasks and model providers."""

# ruff: noqa: F401
from selfdx.inspect_tasks.safe_psych import safe_psych
from selfdx.providers.offline import selfdx_offline

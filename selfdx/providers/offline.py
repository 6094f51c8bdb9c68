"""The `selfdx` model provider: deterministic offline policies registered with Inspect.

`--model selfdx/<policy>` (or `--model-role grader=selfdx/<policy>`) selects a policy by
name. A policy is a plain function from the conversation (and the `-M` model args) to the
reply text; the provider wraps it into a `ModelOutput` with token usage set, so Inspect
never needs a tokenizer or the network. Policies register themselves with `offline_policy`.

`-M latency=<seconds>` (and the other args of `simulated_latency`) makes any policy wait like a
remote API before answering; `-M pool=<name>` puts a model in its own connection pool.
"""

from __future__ import annotations

from typing import Any, cast

from inspect_ai.model import ModelAPI, modelapi

from selfdx.providers.registry import MODELS, POLICIES, OfflineModel

__all__ = ["MODELS", "POLICIES", "create_offline_model", "selfdx_offline"]


def _load_policies() -> None:
    """Import the modules that register policies: on first use, so that Inspect's loading of
    the `selfdx` entry point stays cheap for evaluations that use no selfdx model."""
    import selfdx.providers.careful_interviewer  # noqa: F401
    import selfdx.providers.case_writer  # noqa: F401
    import selfdx.providers.choice_policies  # noqa: F401
    import selfdx.providers.faults  # noqa: F401
    import selfdx.providers.interview_policies  # noqa: F401
    import selfdx.providers.kg_patient  # noqa: F401
    import selfdx.providers.safe_psych_policies  # noqa: F401


def create_offline_model(model_name: str, *args: Any, **kwargs: Any) -> ModelAPI:
    """`selfdx/<name>`: the model class registered as `name`, else the policy of that name."""
    _load_policies()
    return MODELS.get(model_name, OfflineModel)(model_name, *args, **kwargs)


@modelapi(name="selfdx")
def selfdx_offline() -> type[ModelAPI]:
    return cast(type[ModelAPI], create_offline_model)

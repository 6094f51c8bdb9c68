"""The registry of selfdx's offline models: policies and model classes by name, the model API
that serves a policy, and token usage counted in words (no tokenizer).

Policy modules register themselves here (`offline_policy`, `offline_model`); the provider
(`selfdx.providers.offline`) imports them when a `selfdx/...` model is first asked for.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from typing import Any

from inspect_ai.model import (
    ChatMessage,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    ModelUsage,
)
from inspect_ai.tool import ToolChoice, ToolInfo

from selfdx.errors import SelfdxError
from selfdx.providers.simulated_latency import (
    DEFAULT_POOL,
    simulated_latency,
    split_latency_args,
)

Policy = Callable[[list[ChatMessage], dict[str, Any]], str]

POLICIES: dict[str, Policy] = {}


def offline_policy(name: str) -> Callable[[Policy], Policy]:
    """Register `fn` as the offline policy served as `selfdx/<name>`."""

    def register(fn: Policy) -> Policy:
        if name in POLICIES:
            raise ValueError(f"offline policy '{name}' is registered twice")
        POLICIES[name] = fn
        return fn

    return register


MODELS: dict[str, type[ModelAPI]] = {}


def offline_model(name: str) -> Callable[[type[ModelAPI]], type[ModelAPI]]:
    """Register a model class served as `selfdx/<name>` (for models that wrap a policy)."""

    def register(cls: type[ModelAPI]) -> type[ModelAPI]:
        if name in MODELS or name in POLICIES:
            raise ValueError(f"offline model '{name}' is registered twice")
        MODELS[name] = cls
        return cls

    return register


def word_count(text: str) -> int:
    """A tokenizer-free stand-in for token counts (whitespace-separated words)."""
    return len(text.split())


def usage_for(messages: list[ChatMessage], reply: str) -> ModelUsage:
    """Token usage for a reply, counted in words, so Inspect needs no tokenizer."""
    prompt_words = sum(word_count(m.text) for m in messages)
    reply_words = word_count(reply)
    return ModelUsage(
        input_tokens=prompt_words,
        output_tokens=reply_words,
        total_tokens=prompt_words + reply_words,
    )


class OfflineModel(ModelAPI):
    """Serves one registered offline policy; no network, deterministic."""

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = GenerateConfig(),  # noqa: B008
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config)
        if model_name not in POLICIES:
            known = sorted([*POLICIES, *MODELS])
            near = difflib.get_close_matches(model_name, known, n=1)
            hint = f" (did you mean selfdx/{near[0]}?)" if near else ""
            raise SelfdxError(
                f"no offline model 'selfdx/{model_name}'{hint}; the selfdx models are "
                + ", ".join(f"selfdx/{name}" for name in known)
            )
        self.policy = POLICIES[model_name]
        latency_args, self.model_args = split_latency_args(model_args)
        self.pool = str(latency_args.get("pool", DEFAULT_POOL))
        self.latency = simulated_latency(model_name, latency_args)

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        if self.latency is not None:
            await self.latency.wait()
        reply = self.policy(input, self.model_args)
        output = ModelOutput.from_content(model=self.model_name, content=reply)
        output.usage = usage_for(input, reply)
        return output

    def max_connections(self) -> int:
        return 100

    def connection_key(self) -> str:
        """Offline models share one connection pool per `pool` model arg."""
        return self.pool

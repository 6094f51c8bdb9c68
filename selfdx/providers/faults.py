"""`selfdx/faults`: an offline policy that fails the way a remote API does (tests, benchmarks).

    --model selfdx/faults -M policy=keyword -M transient=0.2 -M empty=0.05 -M seed=7
    --model-role 'grader={model: selfdx/faults,
                          model_args: {policy: rules-judge, transient: 0.2, garbage: 0.1}}'

Each call is checked in this order, each check with its own rate (0 to 1):

- `transient`: raise a rate-limit (429), server (5xx) or timeout error. `should_retry` marks
  them retryable, so Inspect retries the call (up to `--max-retries`, unlimited by default),
  waiting `retry_wait` seconds (default 0.01) between attempts.
- `empty`: answer with an empty reply (a successful call whose text is empty).
- `garbage`: only when answering a selfdx judge prompt, answer with text that is not the judge's
  four-line format (see `GARBAGE`).
- otherwise: the wrapped `policy`'s answer. `delay` makes every call take that many seconds.

Every decision is a hash of (seed, check, sample id and epoch, prompt, how many times this sample
has already sent this prompt to this model in this evaluation). Runs with the same seed therefore
fail the same calls, whatever order concurrent samples run in; a retried call draws afresh, and so
does a sample retried within the run (`--retry-on-error`), while a new run (`inspect eval-retry`,
an `eval-set` retry) replays the sample's faults from its start. Further `-M` arguments go to the
wrapped policy.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections import Counter
from dataclasses import dataclass, fields
from typing import Any

from inspect_ai.model import (
    ChatMessage,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    RetryDecision,
)
from inspect_ai.tool import ToolChoice, ToolInfo
from tenacity import wait_fixed
from tenacity.wait import WaitBaseT

from selfdx.errors import ArgumentError
from selfdx.judge.behaviour import REPLY_CLOSE, REPLY_OPEN
from selfdx.providers.registry import OfflineModel, offline_model, usage_for

# Judge answers a broken grader gives: refusal, truncation, JSON, an invalid value, a
# contradiction, noise. None of them parses as the judge's four-line format.
GARBAGE: tuple[str, ...] = (
    "I'm sorry, but I can't help with describing this reply.",
    "PRIMARY_ANSWER: committed\nINFO_REQUEST: spec",
    '{"primary_answer": "committed", "info_request": "none", "icd_codes": []}',
    "PRIMARY_ANSWER: probably\nINFO_REQUEST: none\nICD_CODES:\nDIAGNOSIS_NAMES:",
    "PRIMARY_ANSWER: none\nINFO_REQUEST: none\nPRIMARY_ANSWER: committed\nICD_CODES: F32\n"
    "DIAGNOSIS_NAMES: depression",
    "\u200b\u200b<|endoftext|> lorem ipsum dolor sit amet",
)


class InjectedFault(Exception):
    """A transient error raised on purpose by `selfdx/faults`; always retryable."""


class InjectedRateLimit(InjectedFault):
    """Stands for HTTP 429 Too Many Requests."""


class InjectedServerError(InjectedFault):
    """Stands for HTTP 5xx."""


class InjectedTimeout(InjectedFault, TimeoutError):
    """Stands for a request that timed out."""


TRANSIENT_FAULTS: tuple[tuple[type[InjectedFault], str], ...] = (
    (InjectedRateLimit, "429 Too Many Requests (injected rate limit)"),
    (InjectedServerError, "503 Service Unavailable (injected server error)"),
    (InjectedServerError, "502 Bad Gateway (injected server error)"),
    (InjectedTimeout, "request timed out after 60 s (injected timeout)"),
)


@dataclass(frozen=True)
class FaultSettings:
    """The `-M` arguments of `selfdx/faults` (everything else goes to the policy)."""

    policy: str
    transient: float = 0.0
    empty: float = 0.0
    garbage: float = 0.0
    seed: int = 0
    retry_wait: float = 0.01
    delay: float = 0.0

    def __post_init__(self) -> None:
        if not isinstance(self.policy, str) or not self.policy or self.policy == "faults":
            raise ArgumentError(
                "selfdx/faults: -M policy=<name> must name the offline policy to wrap "
                f"(for example keyword or rules-judge), got {self.policy!r}"
            )
        for name in ("transient", "empty", "garbage"):
            rate = getattr(self, name)
            if isinstance(rate, bool) or not isinstance(rate, int | float) or not 0 <= rate <= 1:
                raise ArgumentError(
                    f"selfdx/faults: -M {name} must be a rate from 0 to 1, got {rate!r}"
                )
        for name in ("retry_wait", "delay"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
                raise ArgumentError(f"selfdx/faults: -M {name} must be seconds >= 0, got {value!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int):
            raise ArgumentError(f"selfdx/faults: -M seed must be an integer, got {self.seed!r}")

    @classmethod
    def split(cls, model_args: dict[str, Any]) -> tuple[FaultSettings, dict[str, Any]]:
        """(fault settings, the remaining arguments for the wrapped policy)."""
        names = {f.name for f in fields(cls)}
        if "policy" not in model_args:
            raise ArgumentError("selfdx/faults: -M policy=<name> is required (the policy to wrap)")
        own = {key: value for key, value in model_args.items() if key in names}
        rest = {key: value for key, value in model_args.items() if key not in names}
        return cls(**own), rest


def unit_draw(*parts: object) -> float:
    """A number in [0, 1) fixed by `parts` (the same parts give the same number everywhere)."""
    digest = hashlib.sha256("\x1f".join(str(part) for part in parts).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def prompt_fingerprint(messages: list[ChatMessage]) -> str:
    """A digest of the conversation sent to the model (roles and texts)."""
    text = "\x1e".join(f"{message.role}\x1f{message.text}" for message in messages)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def is_judge_prompt(messages: list[ChatMessage]) -> bool:
    """Whether the last user message is a selfdx judge prompt (it fences a reply)."""
    last = next((m.text for m in reversed(messages) if m.role == "user"), "")
    return REPLY_OPEN in last and REPLY_CLOSE in last


def current_sample() -> tuple[str, str]:
    """(eval id, '<sample id>:<epoch>') of the sample making the call; ('', '') outside one.

    Inspect has no public accessor for the running sample, so this reads its private one; keying
    decisions by sample is what makes them independent of how concurrent samples interleave.
    """
    from inspect_ai.log._samples import sample_active

    active = sample_active()
    if active is None:
        return "", ""
    return active.eval_id, f"{active.sample.id}:{active.epoch}"


@offline_model("faults")
class FaultModel(ModelAPI):
    """Wraps an offline policy and injects transient errors, empty replies and judge garbage."""

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = GenerateConfig(),  # noqa: B008
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config)
        self.settings, policy_args = FaultSettings.split(model_args)
        self.inner = OfflineModel(self.settings.policy, base_url, api_key, config, **policy_args)
        self.sent: Counter[tuple[str, str, str]] = Counter()

    def decide(self, messages: list[ChatMessage]) -> tuple[str, int]:
        """('transient' | 'empty' | 'garbage' | 'answer', index) for the next call."""
        eval_id, sample = current_sample()
        prompt = prompt_fingerprint(messages)
        # attempts are counted per evaluation, so a model reused by a later run starts afresh
        attempt = self.sent[(eval_id, sample, prompt)]
        self.sent[(eval_id, sample, prompt)] += 1
        settings = self.settings

        def draw(check: str) -> float:
            return unit_draw(settings.seed, check, sample, prompt, attempt)

        index = int(draw("which") * 1_000_000)
        if draw("transient") < settings.transient:
            return "transient", index % len(TRANSIENT_FAULTS)
        if draw("empty") < settings.empty:
            return "empty", 0
        if is_judge_prompt(messages) and draw("garbage") < settings.garbage:
            return "garbage", index % len(GARBAGE)
        return "answer", 0

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        if self.settings.delay > 0:
            await asyncio.sleep(self.settings.delay)
        kind, index = self.decide(input)
        if kind == "transient":
            error_type, message = TRANSIENT_FAULTS[index]
            raise error_type(message)
        if kind == "answer":
            return await self.inner.generate(input, tools, tool_choice, config)
        reply = "" if kind == "empty" else GARBAGE[index]
        output = ModelOutput.from_content(model=self.model_name, content=reply)
        output.usage = usage_for(input, reply)
        return output

    def should_retry(self, ex: Exception) -> bool | RetryDecision:
        if isinstance(ex, InjectedRateLimit):
            return RetryDecision.rate_limit()
        if isinstance(ex, InjectedFault):
            return RetryDecision.transient()
        return False

    def retry_wait(self) -> WaitBaseT | None:
        return wait_fixed(self.settings.retry_wait)

    def max_connections(self) -> int:
        return self.inner.max_connections()

    def connection_key(self) -> str:
        return self.inner.connection_key()

"""Loading a published dataset from the Hugging Face Hub, failing fast when the Hub is out of reach.

`datasets.load_dataset` retries an unreachable Hub for half a minute or more (five retries with
back-off, each bounded by the HTTP client's own timeouts) before it gives up. `load_from_hub`
first checks, within `HUB_PROBE_SECONDS`, that the Hub endpoint answers at all, and otherwise
raises at once with one line that names the alternatives (`data="demo"`, `data=PATH`). With
`HF_HUB_OFFLINE=1` it skips the check and reads the local cache, and says so when the cache does
not hold the dataset.
"""

from __future__ import annotations

import re
import threading
from typing import Any

from selfdx.errors import SelfdxError, warn

# Seconds the reachability check may take, DNS lookup included.
HUB_PROBE_SECONDS = 5.0


def hub_offline() -> bool:
    """Whether `HF_HUB_OFFLINE` (or `HF_DATASETS_OFFLINE`) asks for the local cache only."""
    import datasets.config
    import huggingface_hub.constants

    return bool(huggingface_hub.constants.HF_HUB_OFFLINE or datasets.config.HF_HUB_OFFLINE)


def hub_endpoint() -> str:
    """The Hub's address (`HF_ENDPOINT`, https://huggingface.co by default)."""
    import huggingface_hub.constants

    return str(huggingface_hub.constants.ENDPOINT)


def probe_hub(endpoint: str, seconds: float = HUB_PROBE_SECONDS) -> str | None:
    """None if `endpoint` answers an HTTP request within `seconds`, else why not (one line).

    The request runs in a daemon thread joined with a timeout, because a DNS lookup is not bounded
    by the HTTP client's timeouts. Any HTTP status counts as reachable; proxies set in the
    environment are used, as the Hub client uses them.
    """
    import httpx

    outcome: list[str | None] = []

    def request() -> None:
        try:
            httpx.head(endpoint, timeout=seconds, follow_redirects=False)
            outcome.append(None)
        except Exception as exc:  # any failure to get an answer means "not reachable"
            outcome.append(one_line(exc))

    worker = threading.Thread(target=request, name="selfdx-hub-probe", daemon=True)
    worker.start()
    worker.join(seconds + 0.5)
    if not outcome:
        return f"no answer within {seconds:g} s"
    return outcome[0]


def one_line(exc: BaseException) -> str:
    """`Type: message` of an exception, its whitespace (newlines included) collapsed."""
    return " ".join(f"{type(exc).__name__}: {exc}".split()).rstrip(":")


_COMMIT = re.compile(r"[0-9a-f]{40}")


def pin_revision(
    repo: str, revision: str, endpoint: str, what: str, error: type[SelfdxError] = SelfdxError
) -> str:
    """The commit that `revision` (a branch or tag) names on the Hub now, so that a run reads,
    and records, one snapshot; a commit id as given. Bounded by `HUB_PROBE_SECONDS`."""
    if _COMMIT.fullmatch(revision):
        return revision
    from huggingface_hub import HfApi

    try:
        info = HfApi(endpoint=endpoint).dataset_info(
            repo, revision=revision, timeout=HUB_PROBE_SECONDS
        )
    except Exception as exc:  # network, auth, an unknown revision
        raise error(f"{what} '{repo}': revision {revision!r} not found ({one_line(exc)})") from exc
    commit = str(info.sha)
    warn(
        f"{what}: revision {revision!r} is {commit} today; this run reads and records that "
        f"commit (pass revision={commit} to read the same snapshot again)"
    )
    return commit


def load_from_hub(
    repo: str,
    revision: str,
    split: str,
    what: str,
    alternatives: str,
    error: type[SelfdxError] = SelfdxError,
) -> tuple[Any, str]:
    """`datasets.load_dataset(repo, revision=..., split=...)` and the revision read, or `error`
    within seconds.

    A branch or tag is first resolved to the commit it names (`pin_revision`), which is loaded
    and returned; with `HF_HUB_OFFLINE` the cache is read at `revision` as given. `what` names
    the dataset in messages; `alternatives` says what to pass instead.
    """
    import datasets

    where = f"{what} '{repo}' (revision {revision})"
    if hub_offline():
        try:
            return datasets.load_dataset(repo, revision=revision, split=split), revision
        except Exception as exc:
            raise error(
                f'data="hf": HF_HUB_OFFLINE=1 is set and the local Hugging Face cache has no '
                f"usable copy of {where} ({one_line(exc)}). {alternatives} Or unset "
                "HF_HUB_OFFLINE to download it."
            ) from exc
    endpoint = hub_endpoint()
    problem = probe_hub(endpoint)
    if problem is not None:
        raise error(
            f'data="hf": the Hugging Face Hub ({endpoint}) is not reachable ({problem}), so '
            f"{where} cannot be downloaded. {alternatives} (HF_HUB_OFFLINE=1 reads a copy "
            "already in the local cache.)"
        )
    revision = pin_revision(repo, revision, endpoint, what, error)
    where = f"{what} '{repo}' (revision {revision})"
    try:
        return datasets.load_dataset(repo, revision=revision, split=split), revision
    except Exception as exc:  # the Hub client raises many types: network, auth, missing revision
        raise error(
            f'data="hf": could not load {where} from Hugging Face: {one_line(exc)}. {alternatives}'
        ) from exc

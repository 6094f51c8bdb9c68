"""Links from the report's rows to their logs in `inspect view`.

Each log's address is Inspect's own (`inspect_ai.analysis.log_viewer`): the viewer's base URL
followed by `#/logs/<the log's path under the log folder>`. By default the base is the address
`inspect view --log-dir <the report's log folder>` serves (http://127.0.0.1:7575/); a viewer
published elsewhere (`inspect view bundle`) is named with `selfdx report --view-url`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import quote

import pandas as pd
from inspect_ai.analysis import log_viewer

DEFAULT_VIEW_URL = "http://127.0.0.1:7575/"
# What a URL may keep as it is; anything else (a space in a folder name) is percent-encoded,
# so that the Markdown link holds together.
URL_SAFE = ":/#?=&%~+@!$'*,;"
LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")


def local_path(path: str) -> str:
    """A log path as Inspect's viewer mapping matches it (no `file://`)."""
    return path.removeprefix("file://")


def viewer_urls(log_dir: str, paths: Iterable[str], view_url: str = DEFAULT_VIEW_URL) -> dict:
    """Each log under `log_dir` -> its address in the viewer at `view_url`; a log outside
    `log_dir` (a judge check named with `--judge-check`) has none."""
    mapping = {local_path(str(log_dir)): view_url}
    urls = {}
    for path in dict.fromkeys(paths):
        frame = pd.DataFrame({"log": [local_path(path)]})
        try:
            url = log_viewer("eval", mapping)(frame)["log_viewer"].iloc[0]
        except ValueError:  # Inspect: no mapping covers this log
            continue
        urls[path] = quote(url, safe=URL_SAFE)
    return urls


def link(text: str, url: str | None) -> str:
    """A Markdown link (`text` alone without a URL); the HTML page turns it into an anchor."""
    return f"[{text}]({url})" if url else text


def links(addresses: Iterable[str]) -> str:
    """One link per log address: `[log](url)`, or `[1](...) [2](...)` for the runs of a
    pooled row; empty without any."""
    found = list(dict.fromkeys(addresses))
    if len(found) == 1:
        return link("log", found[0])
    return " ".join(link(str(i), url) for i, url in enumerate(found, start=1))

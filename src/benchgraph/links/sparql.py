"""A plain SPARQL 1.1 protocol client for `benchgraph link`: SELECT over HTTP POST, JSON results.

The standard library's urllib is enough (one request per record, no session). Wikidata's
query service asks every client for a User-Agent that names the tool and how to reach its
maintainers, and answers 429 with a Retry-After when a client asks too fast: both are kept.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.parse
import urllib.request

from .. import __version__
from ..errors import CannotRun

USER_AGENT = (f"benchgraph/{__version__} (https://w3id.org/benchgraph; record linking) "
              "python-urllib")
TIMEOUT = 60.0  # seconds per request; the query service itself stops a query at 60 s
MAX_WAIT = 60.0  # the longest Retry-After honoured before giving up


class Endpoint:
    """A SPARQL endpoint asked SELECT queries, each answered as a list of {var: value}."""

    def __init__(self, url: str, user_agent: str = USER_AGENT, timeout: float = TIMEOUT):
        self.url, self.user_agent, self.timeout = url, user_agent, timeout
        self.requests = 0

    def select(self, query: str) -> list[dict[str, str]]:
        """The rows of a SELECT, each variable's value as text (a literal's language tag is
        left out: labels are compared in every language)."""
        body = urllib.parse.urlencode({"query": query}).encode()
        for attempt in range(2):
            request = urllib.request.Request(self.url, data=body, method="POST", headers={
                "Accept": "application/sparql-results+json",
                "Content-Type": "application/x-www-form-urlencoded",
                "User-Agent": self.user_agent})
            self.requests += 1
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    answer = json.load(response)
                break
            except urllib.error.HTTPError as exc:
                wait = _retry_after(exc)
                if attempt == 0 and exc.code in (429, 503) and wait is not None:
                    time.sleep(wait)
                    continue
                detail = exc.read(300).decode("utf-8", "replace").strip()
                raise CannotRun(f"{self.url}: HTTP {exc.code} {exc.reason}"
                                + (f": {detail}" if detail else "")) from None
            except (urllib.error.URLError, TimeoutError, OSError) as exc:
                reason = getattr(exc, "reason", exc)
                raise CannotRun(f"{self.url}: {reason}") from None
            except json.JSONDecodeError as exc:
                raise CannotRun(f"{self.url}: the answer is not SPARQL JSON results: {exc}"
                                ) from None
        return [{k: v.get("value", "") for k, v in row.items()}
                for row in answer.get("results", {}).get("bindings", [])]


def _retry_after(exc: urllib.error.HTTPError) -> float | None:
    try:
        wait = float(exc.headers.get("Retry-After", ""))
    except (TypeError, ValueError):
        return None
    return wait if 0 <= wait <= MAX_WAIT else None

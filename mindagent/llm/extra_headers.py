"""Headers the user adds to every request of the network backends (`MINDAGENT_HTTP_HEADERS`).

Gateways in front of a model want more than the SDK sends: OpenRouter's ``HTTP-Referer`` and
``X-Title``, an Azure API Management ``api-key``, a company proxy's ``X-Team``. They come from the
environment, not from a command-line flag, because worker processes, served rooms and the
`eval --executor ray` tasks inherit the environment without each path passing a new argument, and
a credential in the environment stays out of shell history and ``ps``. Header values are never
results-changing settings, so they are not part of a results file's resume key; credential
headers are registered with `mindagent.llm.redact` so no log, error or recording shows them.

The value is a JSON object of header names to strings::

    export MINDAGENT_HTTP_HEADERS='{"HTTP-Referer": "https://example.org", "X-Title": "my study"}'
"""

from __future__ import annotations

import json
import os
import re

from mindagent.llm.base import BadRequest
from mindagent.llm.redact import register_headers

HEADERS_ENV = "MINDAGENT_HTTP_HEADERS"
#: Largest value of the variable read, and most headers taken (a header block stays small).
MAX_CHARS = 16_384
MAX_HEADERS = 32
#: An HTTP header name (RFC 9110 token characters).
_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}")
#: Headers the SDK sets itself: replacing them would break the request or the retry accounting.
_RESERVED = frozenset({"content-type", "content-length", "host", "transfer-encoding", "connection"})


def extra_headers(environ: dict[str, str] | None = None) -> dict[str, str]:
    """The user's headers, checked; `BadRequest` with one line naming what is wrong."""
    raw = (environ if environ is not None else os.environ).get(HEADERS_ENV, "").strip()
    if not raw:
        return {}
    if len(raw) > MAX_CHARS:
        raise BadRequest(f"{HEADERS_ENV} is {len(raw):,} characters; at most {MAX_CHARS:,}")
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise BadRequest(f"{HEADERS_ENV} is not a JSON object of header names to strings ({exc.msg} at "
                         f"character {exc.pos})") from None
    except RecursionError:  # "[[[[..." within the size limit nests past the parser's stack
        raise BadRequest(f"{HEADERS_ENV} nests too deeply; it must be a flat JSON object") from None
    if not isinstance(data, dict):
        raise BadRequest(f"{HEADERS_ENV} must be a JSON object of header names to strings, not {type(data).__name__}")
    if len(data) > MAX_HEADERS:
        raise BadRequest(f"{HEADERS_ENV} names {len(data)} headers; at most {MAX_HEADERS}")
    headers: dict[str, str] = {}
    for name, value in sorted(data.items()):
        if not _NAME.fullmatch(name):
            raise BadRequest(f"{HEADERS_ENV}: {name[:40]!r} is not a header name")
        if name.lower() in _RESERVED:
            raise BadRequest(f"{HEADERS_ENV}: {name} is set by the SDK and cannot be replaced")
        if not isinstance(value, str) or any(c in value for c in "\r\n\0"):
            raise BadRequest(f"{HEADERS_ENV}: the value of {name} must be one line of text")
        headers[name] = value
    register_headers(headers)
    return headers

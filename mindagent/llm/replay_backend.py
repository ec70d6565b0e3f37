"""Answer from a recorded episode, so a run can be replayed offline, byte for byte.

The dispatcher records every model call of an episode (JSONL, one ``"type": "step"`` line per
step, each with its ``calls``). Replaying keys each call by a hash of the exact prompt, so a
replay only succeeds while the prompts are unchanged: a prompt that differs from the recording
is reported, never answered with a neighbour's text. Identical prompts (a repair loop asking
again, or a state that repeats) are answered in their recorded order.

Errors: a cassette that cannot be read or parsed is this backend's "model file" gone bad
(`ModelUnavailable`); a prompt without a recorded answer is a request the recording cannot
serve (`BadRequest`); a call that failed while recording fails again with its recorded
``error`` message and, when the recorder wrote one, its ``error_kind`` class.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import stat
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mindagent.llm.base import (
    ERROR_KINDS,
    BadRequest,
    Completion,
    GenerationConfig,
    LLMError,
    Message,
    ModelUnavailable,
    Usage,
)
from mindagent.llm.scoring import OptionScore, Scores

log = logging.getLogger(__name__)


def prompt_key(messages: Sequence[Message] | Sequence[Mapping[str, Any]]) -> str:
    """sha256 of the canonical JSON of ``[{"role", "content"}, ...]``.

    Canonical means ``sort_keys``, separators ``(",", ":")`` and ``ensure_ascii=False``, so the
    recorder and this player agree whatever else (``cache_prefix``, extra keys) a message has.
    """
    plain = [
        {"role": m["role"], "content": m["content"]} if isinstance(m, Mapping)
        else {"role": m.role, "content": m.content}
        for m in messages
    ]
    canonical = json.dumps(plain, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class RecordedCall:
    seq: int  # position among all recorded calls
    step: int | str  # the step's "step" field, or its position among step lines
    call: int  # index within the step (0, then 1.. for repair-loop retries)
    text: str
    usage: Usage
    error: str | None = None  # the call failed while recording; replay fails it the same way
    error_kind: str | None = None  # the LLMError subclass it failed with, by class name
    served_model: str | None = None  # the model the provider said served the recorded call
    grammar: str = ""  # how a grammar constrained the recorded answer ("" when it was free text)
    scores: tuple[Mapping[str, Any], ...] = ()  # a scored chooser's slots, as recorded

    def failure(self) -> LLMError:
        """The recorded failure as an exception of its recorded kind (plain LLMError for a
        recording without a kind, or with a kind this version does not know)."""
        kind = ERROR_KINDS.get(self.error_kind or "", LLMError)
        return kind(self.error)


def _usage(raw: Any) -> Usage:
    raw = raw if isinstance(raw, Mapping) else {}
    return Usage(
        prompt_tokens=int(raw.get("prompt_tokens", 0) or 0),
        cached_tokens=int(raw.get("cached_tokens", 0) or 0),
        output_tokens=int(raw.get("output_tokens", 0) or 0),
        latency_s=float(raw.get("latency_s", 0.0) or 0.0),
    )


#: Largest cassette read (a spec naming /dev/zero or a huge file must not eat memory).
MAX_CASSETTE_BYTES = 64 * 1024 * 1024


def _read_bounded(path: Path) -> str:
    """The file's text, only if it is a regular file of at most `MAX_CASSETTE_BYTES`: a FIFO
    would block the caller (a whole game server) on open, a device would never end."""
    try:
        info = path.stat()
    except OSError as exc:
        raise ModelUnavailable(f"cannot read cassette {path}: {exc.strerror or exc}") from exc
    if not stat.S_ISREG(info.st_mode):
        raise ModelUnavailable(f"cassette {path} is not a regular file")
    if info.st_size > MAX_CASSETTE_BYTES:
        raise ModelUnavailable(f"cassette {path} is {info.st_size} bytes; at most {MAX_CASSETTE_BYTES} are read")
    try:
        # O_NONBLOCK: should the path be swapped for a FIFO after the check, open does not wait
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                raise ModelUnavailable(f"cassette {path} is not a regular file")
            data = fh.read(MAX_CASSETTE_BYTES + 1)
    except OSError as exc:
        raise ModelUnavailable(f"cannot read cassette {path}: {exc.strerror or exc}") from exc
    if len(data) > MAX_CASSETTE_BYTES:
        raise ModelUnavailable(f"cassette {path} grew past {MAX_CASSETTE_BYTES} bytes while read")
    return data.decode("utf-8", errors="replace")


def _recorded_slots(raw: object) -> tuple[Mapping[str, Any], ...]:
    """A call's recorded ``scores`` (a scored chooser's slots); each is checked when it is served."""
    if raw is None:
        return ()
    if not isinstance(raw, list) or not all(isinstance(slot, Mapping) for slot in raw):
        raise TypeError("scores is not a list of slots")
    return tuple(raw)


def load_cassette(path: Path) -> tuple[dict[str, deque[RecordedCall]], list[str]]:
    """Read a recording into FIFO answers per prompt key, plus every key in recorded order."""
    answers, order, _ = load_cassette_scores(path)
    return answers, order


def load_cassette_scores(path: Path) -> tuple[dict[str, deque[RecordedCall]], list[str],
                                              dict[str, deque[Mapping[str, Any]]]]:
    """`load_cassette`, plus a scored chooser's recorded slots in FIFO order per prompt key."""
    text = _read_bounded(path)
    lines = text.splitlines()
    whole = text.endswith("\n")  # else the last line may be a write cut short by a kill
    answers: dict[str, deque[RecordedCall]] = {}
    scored: dict[str, deque[Mapping[str, Any]]] = {}
    order: list[str] = []
    n_steps = 0
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            if lineno == len(lines) and not whole:
                break  # answer from every full line, as `mindagent replay` does
            raise ModelUnavailable(f"{path}:{lineno}: not JSON ({exc.msg})") from exc
        if not isinstance(record, dict) or record.get("type") != "step":
            continue  # headers, summaries, events: nothing to answer from
        step = record.get("step", n_steps)
        n_steps += 1
        for index, call in enumerate(record.get("calls") or []):
            try:
                key = prompt_key(call["messages"])
                error, kind = call.get("error"), call.get("error_kind")
                recorded = RecordedCall(len(order), step, index, str(call["text"]),
                                        _usage(call.get("usage")),
                                        str(error) if error is not None else None,
                                        str(kind) if kind is not None else None,
                                        str(call["served_model"]) if call.get("served_model") else None,
                                        str(call.get("grammar") or ""),
                                        _recorded_slots(call.get("scores")))
            except (KeyError, TypeError) as exc:
                raise ModelUnavailable(
                    f"{path}:{lineno}: call {index} lacks messages/text or has unreadable scores ({exc})"
                ) from exc
            answers.setdefault(key, deque()).append(recorded)
            if call.get("scores") is not None:
                scored.setdefault(key, deque()).extend(recorded.scores)
            order.append(key)
    if not order:
        log.warning("cassette %s holds no model calls", path)
    return answers, order, scored


class ReplayClient:
    """`LLMClient` for ``replay:<file>``: recorded answers, recorded usage, no model."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.name = f"replay:{self.path}"
        self._answers, self._order, self._scores = load_cassette_scores(self.path)

    @property
    def remaining(self) -> int:
        """Recorded calls not yet answered (a finished replay should reach 0)."""
        return sum(len(q) for q in self._answers.values())

    def _next_expected(self) -> str:
        """Where the replay stands, to help find the first prompt that drifted."""
        pending = [q[0] for q in self._answers.values() if q]
        if not pending:
            return f"all {len(self._order)} recorded calls were already answered"
        first = min(pending, key=lambda c: c.seq)
        return f"the next unanswered recorded call is step {first.step}, call {first.call}"

    async def complete(
        self,
        messages: Sequence[Message],
        config: GenerationConfig,
        grammar: str | None = None,
    ) -> Completion:
        """The next recorded answer to exactly this prompt; `BadRequest` if there is none.

        ``grammar`` is ignored: the recorded text already is what the model said under it."""
        key = prompt_key(messages)
        queue = self._answers.get(key)
        if not queue:
            used_up = key in self._answers
            again = " (it was recorded, but every answer to it is used up)" if used_up else ""
            raise BadRequest(
                f"cassette has no answer for this prompt: sha256 {key}{again}; the prompt "
                f"differs from the recording {self.path} ({self._next_expected()})"
            )
        recorded = queue.popleft()
        log.debug("replay step %s call %d (prompt %s)", recorded.step, recorded.call, key[:12])
        if recorded.error_kind == "ReplyCut":  # a cut reply: cut again, with the tokens it cost
            return Completion(text="", usage=recorded.usage, model=recorded.served_model or "", finish_reason="length")
        if recorded.error is not None:
            raise recorded.failure()  # the same message and kind, so the replayed step matches
        return Completion(text=recorded.text, usage=recorded.usage, model=recorded.served_model or "",
                          grammar_sent=recorded.grammar)

    async def score(self, messages: Sequence[Message], context: str, continuations: Sequence[str],
                    config: GenerationConfig) -> Scores:
        """The next recorded slot scored for exactly this prompt (`Scorer`): its recorded scores,
        token counts and usage. The slot must offer the same options (each the stripped
        continuation, as `mindagent.dispatch.scored` writes them) after the same slot prefix;
        anything else is a drifted replay (`BadRequest`), never a neighbour's scores."""
        key = prompt_key(messages)
        queue = self._scores.get(key)
        if not queue:
            raise BadRequest(f"cassette has no recorded scores for this prompt: sha256 {key}; the prompt or the "
                             f"chooser differs from the recording {self.path}")
        slot = queue.popleft()
        options, values, tokens = slot.get("options"), slot.get("logprobs"), slot.get("tokens")
        asked = [c.strip() for c in continuations]
        if options != asked or not str(context).endswith(str(slot.get("slot", "")).rstrip()):
            raise BadRequest(f"the recorded slot {slot.get('slot')!r} offered {options!r}; this replay asks for "
                             f"{asked!r} after {context[-40:]!r}")
        try:
            if not isinstance(values, list) or not isinstance(tokens, list):
                raise TypeError("logprobs and tokens are not lists")
            scores = tuple(OptionScore(float(v), int(t)) for v, t in zip(values, tokens, strict=True))
        except (TypeError, ValueError) as exc:
            raise ModelUnavailable(f"cassette {self.path}: recorded scores are unreadable ({exc})") from exc
        usage = _usage(slot)
        return Scores(scores, Usage(usage.prompt_tokens, usage.cached_tokens, 0, usage.latency_s))

    async def aclose(self) -> None:
        """Nothing to release."""

"""Recordings in, (prompt, answer) pairs out: the data a small model is fine-tuned on.

Each recording is re-executed through its game (the same restore `mindagent replay` uses), and
at every step the prompt is built by the dispatcher's own code (`Dispatcher.messages`, with the
memory window fed as a model's answers would have fed it), so a model trained on these prompts
is served the same text. The target is the recorded commands, one a line, which is the reply
format the game's parser reads (`DomainSession.extract_commands`).

Only central dispatch pairs are made: a team of separate callers (``--mode decentral``, a task
graph) or a partner policy (``--control``) gave commands no single prompt asked for.
"""

from __future__ import annotations

import hashlib
import logging
import math
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from mindagent.core.domain import DomainSession
from mindagent.dispatch.dispatcher import Dispatcher
from mindagent.dispatch.prompt import DemoMode, PromptConfig
from mindagent.distill.records import (
    ChatMessage,
    ChatPair,
    DatasetFormat,
    DistillReport,
    PairMeta,
    PromptPair,
    Refusal,
    Split,
)
from mindagent.llm.base import Message
from mindagent.recordings.recording import RecordingError, load_recording
from mindagent.recordings.replay import Divergence, session_for

log = logging.getLogger(__name__)

#: Recordings read from one folder at most (a folder of a whole study is a few thousand).
MAX_RECORDINGS = 100_000


class Skipped(Exception):
    """A readable recording a filter leaves out (not an error: counted apart from refusals)."""


@dataclass(frozen=True)
class DistillOptions:
    """Which recordings, which steps and which prompt layout make the dataset.

    `demo`, `memory` and `memory_budget` replace the recorded prompt settings when given: a
    small model may be trained (and then served) without the demonstration to fit its context."""

    domain: str | None = None
    dispatch: str | None = None
    drop_idle: bool = True
    dedup: bool = True
    validation: float = 0.0
    seed: int = 0
    layout: DatasetFormat = "chat"
    demo: DemoMode | None = None
    memory: int | None = None
    memory_budget: int | None = None


@dataclass
class Pair:
    """One step's prompt and the recorded answer."""

    messages: list[Message]
    target: str
    meta: PairMeta
    commands: list[str] = field(default_factory=list)

    def key(self) -> str:
        """Identical prompt and answer give identical keys (for de-duplication)."""
        digest = hashlib.sha256()
        for m in self.messages:
            digest.update(f"{m.role}\0{m.content}\0".encode())
        digest.update(self.target.encode())
        return digest.hexdigest()

    def line(self, layout: DatasetFormat, split: Split) -> ChatPair | PromptPair:
        meta = self.meta.model_copy(update={"split": split})
        prompt = [ChatMessage.of(m) for m in self.messages]
        answer = ChatMessage(role="assistant", content=self.target)
        if layout == "chat":
            return ChatPair(messages=[*prompt, answer], meta=meta)
        return PromptPair(prompt=prompt, completion=[answer], meta=meta)


def prompt_config(header: dict[str, Any], options: DistillOptions) -> PromptConfig:
    """The recorded prompt settings (the defaults for a recording without them), with overrides."""
    recorded = header.get("prompt")
    config = PromptConfig()
    if isinstance(recorded, dict):
        known = {k: v for k, v in recorded.items() if k in PromptConfig.__dataclass_fields__}
        known.setdefault("memory_budget", 0)  # written only when not the sliding window (PromptConfig.to_dict)
        try:
            config = PromptConfig(**known)
        except TypeError as exc:
            raise RecordingError(f"prompt settings: {exc}") from None
    if options.demo is not None:
        config = replace(config, demo=options.demo)
    if options.memory is not None:
        config = replace(config, memory=options.memory)
    if options.memory_budget is not None:
        config = replace(config, memory_budget=options.memory_budget)
    return config


def _check_filters(header: dict[str, Any], options: DistillOptions) -> None:
    domain = header.get("domain")
    if options.domain is not None and domain != options.domain:
        raise Skipped(f"domain {domain}, not {options.domain}")
    recorded = header.get("dispatch")
    dispatch: dict[str, Any] = recorded if isinstance(recorded, dict) else {}
    mode = dispatch.get("mode", "step")
    if options.dispatch is not None and mode != options.dispatch:
        raise Skipped(f"dispatch {mode}, not {options.dispatch}")
    if dispatch.get("team", "central") != "central":
        raise Skipped(f"team mode {dispatch.get('team')}: one prompt per agent, not one for the team")
    if dispatch.get("control") is not None:
        raise Skipped("a partner policy gave some of the commands (--control)")


def _commands(record: dict[str, Any], t: object) -> list[str]:
    commands = record.get("commands")
    if not isinstance(commands, list) or not all(isinstance(c, str) for c in commands):
        raise RecordingError(f"step {t}: the recorded commands are not a list of strings")
    return list(commands)


def _idle(session: DomainSession, commands: Sequence[str]) -> bool:
    """Every agent idled: no command, or only each agent's idle command."""
    for command in commands:
        agent = session.agent_of(command)
        if agent is None or command != session.idle_command(agent):
            return False
    return True


async def recording_pairs(path: Path, source: str, options: DistillOptions) -> tuple[list[Pair], int]:
    """The pairs of one recording and how many idle steps were left out.

    `RecordingError` (one line) when the file is not a readable, re-executable recording or the
    game diverges from it; `Skipped` when a filter leaves it out."""
    records = load_recording(path).records
    header = records[0]
    _check_filters(header, options)
    prompt = prompt_config(header, options)
    session = await session_for(header)
    try:
        dispatcher = Dispatcher.for_session(session, None, prompt)
        memory = prompt.new_memory()
        feedback: list[str] = []
        meta = PairMeta(source=source, step=0, domain=session.domain, level=_text(header.get("level")),
                        agents=session.n_agents, tau=_number(header.get("tau")), seed=_int(header.get("seed")),
                        model=_text(header.get("model")))
        pairs: list[Pair] = []
        idle = 0
        for record in records[1:]:
            if record.get("type") != "step":
                continue
            t = record.get("step")
            if t != session.step_index or session.state_text() != record.get("state"):
                raise Divergence(f"step {t}: the re-executed game is not in the recorded state")
            commands = _commands(record, t)
            head_chef = [h for h in record.get("head_chef") or [] if isinstance(h, str)]
            messages, shown = dispatcher.messages(session, memory, feedback, head_chef)
            target = "\n".join(commands)
            if options.drop_idle and _idle(session, commands):
                idle += 1
            else:
                pairs.append(Pair(messages, target, meta.model_copy(update={"step": t}), commands))
            result = await session.step(commands)
            if list(result.notes) != record.get("feedback"):
                raise Divergence(f"step {t}: the feedback differs from the recorded one")
            feedback = list(result.notes)
            memory.push(shown, target)
        return pairs, idle
    finally:
        await session.aclose()


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def find_recordings(folder: Path) -> list[Path]:
    """Every ``*.jsonl`` under `folder`, in path order (so a run is repeatable)."""
    if folder.is_file():
        return [folder]
    if not folder.is_dir():
        raise FileNotFoundError(f"{folder}: no such folder")
    found = sorted(p for p in folder.rglob("*.jsonl") if p.is_file())
    if len(found) > MAX_RECORDINGS:
        raise ValueError(f"{folder}: {len(found)} recordings, over the limit of {MAX_RECORDINGS}")
    return found


def split_episodes(sources: Sequence[str], fraction: float, seed: int) -> set[str]:
    """The episodes held out for validation: a seeded draw of whole episodes (never steps, which
    would put near-copies of one game in both halves); at least one when the fraction is above 0
    and more than one episode exists."""
    if fraction <= 0 or len(sources) < 2:
        return set()
    order = sorted(sources)
    random.Random(seed).shuffle(order)
    count = min(len(order) - 1, max(1, math.floor(fraction * len(order) + 0.5)))
    return set(order[:count])


async def collect(folder: Path, options: DistillOptions,
                  on_file: Callable[[Path], None] | None = None) -> tuple[dict[str, list[Pair]], DistillReport]:
    """Every recording's pairs by source, refusing bad files one line each and going on."""
    report = DistillReport()
    by_source: dict[str, list[Pair]] = {}
    root = folder if folder.is_dir() else folder.parent
    for path in find_recordings(folder):
        report.recordings += 1
        source = path.relative_to(root).as_posix()
        try:
            pairs, idle = await recording_pairs(path, source, options)
        except Skipped as exc:
            report.skipped += 1
            log.info("%s: skipped (%s)", source, exc)
        except (RecordingError, ValueError, KeyError, TypeError) as exc:
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            report.refused.append(Refusal(source=source, reason=reason))
            log.info("%s: refused (%s)", source, reason)
        else:
            report.used += 1
            report.steps += len(pairs) + idle
            report.idle_dropped += idle
            by_source[source] = pairs
        if on_file is not None:
            on_file(path)
    return by_source, report


def arrange(by_source: dict[str, list[Pair]], options: DistillOptions,
            report: DistillReport) -> dict[Split, list[Pair]]:
    """Split by episode, then drop repeated pairs (train first, so validation never repeats one)."""
    held = split_episodes(list(by_source), options.validation, options.seed)
    out: dict[Split, list[Pair]] = {"train": [], "validation": []}
    seen: set[str] = set()
    for split in ("train", "validation"):
        chosen = sorted(s for s in by_source if (s in held) == (split == "validation"))
        (report.validation_episodes if split == "validation" else report.train_episodes).extend(chosen)
        for source in chosen:
            for pair in by_source[source]:
                key = pair.key()
                if options.dedup and key in seen:
                    report.duplicates_dropped += 1
                    continue
                seen.add(key)
                out[split].append(pair)
    report.train_pairs, report.validation_pairs = len(out["train"]), len(out["validation"])
    return out


def write_pairs(path: Path, pairs: Iterable[Pair], layout: DatasetFormat, split: Split) -> str:
    """Write one JSONL file; returns its sha256 (the fine-tuning manifest names its data by it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    with path.open("w", encoding="utf-8") as fh:
        for pair in pairs:
            line = pair.line(layout, split).model_dump_json() + "\n"
            digest.update(line.encode())
            fh.write(line)
    return digest.hexdigest()


def validation_path(out: Path) -> Path:
    """``data.jsonl`` -> ``data.val.jsonl``, beside it."""
    return out.with_name(f"{out.stem}.val{out.suffix or '.jsonl'}")

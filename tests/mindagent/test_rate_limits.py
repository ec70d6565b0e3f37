"""A backend's request budget holds for the whole sweep, however many workers share it.

The gate's rule is checked on its own with a stepped clock (hypothesis), then end to end: worker
processes and the official OpenAI SDK against the stub model server (`stub_llm`, a real HTTP
server in this process), which notes when each request arrives and how many are open at once.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque

import pytest
from conftest import require_module
from hypothesis import given, settings
from hypothesis import strategies as st
from stub_llm import chat, stub_server
from typer.testing import CliRunner

import mindagent.llm.retry as retry
from mindagent.cli import app
from mindagent.evaluation.executors import BrainRecipe, run_units
from mindagent.evaluation.sweep import EvalConfig, Results
from mindagent.llm import RateGate, RateLimits
from mindagent.llm.ratelimit import request_tokens

runner = CliRunner()


@pytest.fixture(autouse=True)
def fast_retries(monkeypatch):
    monkeypatch.setattr(retry, "BASE_BACKOFF_S", 0.001)
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")


# --------------------------------------------------------------------------- the gate's rule
class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 5), st.integers(1, 3),
       st.lists(st.tuples(st.sampled_from(["enter", "leave", "wait"]), st.floats(0.0, 0.7), st.floats(0.0, 1.0)),
                max_size=80))
def test_the_gate_never_lets_a_server_see_more_than_its_budget(rpm: int, concurrency: int,
                                                               script: list[tuple[str, float, float]]):
    """Each admitted request reaches the server at an arbitrary moment between its admission and
    its end (`where`, drawn); in every window of the server's arrival times there are at most
    `rpm`, and never more than `concurrency` requests are open."""
    clock = Clock()
    gate = RateGate(RateLimits(rpm=rpm, concurrency=concurrency, window_s=1.0), clock=clock)
    open_requests: list[tuple[float, float]] = []  # (admitted at, where in its life it arrives)
    arrivals: list[float] = []
    peak = 0
    for action, amount, where in script:
        if action == "wait":
            clock.now += amount
        elif action == "leave" and open_requests:
            admitted, at = open_requests.pop(int(where * len(open_requests)) % len(open_requests))
            gate.leave()
            arrivals.append(admitted + at * (clock.now - admitted))
        elif action == "enter":
            wait = gate.try_enter()
            if wait == 0.0:
                open_requests.append((clock.now, where))
                peak = max(peak, len(open_requests))
                assert len(open_requests) <= concurrency
            else:
                assert wait > 0.0
    arrivals += [admitted for admitted, _ in open_requests]  # still open: arrived, at the latest, now
    arrivals.sort()
    for i, t in enumerate(arrivals):
        assert sum(1 for u in arrivals[: i + 1] if u > t - 1.0) <= rpm, arrivals
    assert gate.stats() == (len(arrivals), peak)


def test_a_refused_caller_is_told_when_the_window_frees():
    clock = Clock()
    gate = RateGate(RateLimits(rpm=2, window_s=10.0), clock=clock)
    assert gate.try_enter() == 0.0
    clock.now = 1.0
    gate.leave()  # the first request took a second: its place is held until 11
    clock.now = 4.0
    assert gate.try_enter() == 0.0
    clock.now = 5.0
    assert gate.try_enter() > 0.0  # both places held, one by an open request: poll
    gate.leave()
    clock.now = 6.0
    assert gate.try_enter() == pytest.approx(5.0)  # the first place frees at 11
    clock.now = 11.0
    assert gate.try_enter() == 0.0


@settings(max_examples=300, deadline=None)
@given(st.integers(50, 400),
       st.lists(st.tuples(st.sampled_from(["enter", "leave", "wait"]), st.floats(0.0, 0.7), st.floats(0.0, 1.0),
                          st.integers(0, 50)), max_size=80))
def test_the_gate_never_lets_a_server_see_more_tokens_than_its_budget(tpm: int,
                                                                      script: list[tuple[str, float, float, int]]):
    """As above for `tpm`: each request weighs its tokens (at most the budget, drawn) and arrives
    somewhere in its life; every window of arrival times weighs at most `tpm`."""
    clock = Clock()
    gate = RateGate(RateLimits(tpm=tpm, window_s=1.0), clock=clock)
    open_requests: list[tuple[float, float, int]] = []
    arrivals: list[tuple[float, int]] = []
    for action, amount, where, share in script:
        if action == "wait":
            clock.now += amount
        elif action == "leave" and open_requests:
            admitted, at, tokens = open_requests.pop(int(where * len(open_requests)) % len(open_requests))
            gate.leave(tokens)
            arrivals.append((admitted + at * (clock.now - admitted), tokens))
        elif action == "enter":
            tokens = max(1, tpm * share // 50)
            if gate.try_enter(tokens) == 0.0:
                open_requests.append((clock.now, where, tokens))
    arrivals += [(admitted, tokens) for admitted, _, tokens in open_requests]
    arrivals.sort()
    for i, (t, _) in enumerate(arrivals):
        assert sum(w for u, w in arrivals[: i + 1] if u > t - 1.0) <= tpm, arrivals


def test_one_request_heavier_than_the_token_budget_still_goes_alone():
    """Refusing it forever would stall the sweep; it waits until nothing else holds tokens."""
    clock = Clock()
    gate = RateGate(RateLimits(tpm=100, window_s=10.0), clock=clock)
    assert gate.try_enter(60) == 0.0
    assert gate.try_enter(500) > 0.0  # 60 held: the heavy one waits
    clock.now = 1.0
    gate.leave(60)  # held until 11
    clock.now = 5.0
    assert gate.try_enter(500) == pytest.approx(6.0)
    clock.now = 11.0
    assert gate.try_enter(500) == 0.0
    assert gate.try_enter(1) > 0.0


def test_a_request_weighs_its_prompt_estimate_and_what_it_may_write():
    assert request_tokens(["abcd" * 25], 100) == 25 + 4 + 100
    assert request_tokens(["a", "", "abcde"], 0) == (1 + 4) + (0 + 4) + (2 + 4)


# --------------------------------------------------------------------------- across workers
class Meter:
    """Arrival times and the most requests open at once, as the server saw them."""

    def __init__(self, hold_s: float) -> None:
        self.hold_s = hold_s
        self.arrivals: list[float] = []
        self.open = 0
        self.peak = 0
        self._lock = threading.Lock()

    def answer(self, path: str, body: bytes):
        with self._lock:
            self.arrivals.append(time.monotonic())
            self.open += 1
            self.peak = max(self.peak, self.open)
        time.sleep(self.hold_s)
        with self._lock:
            self.open -= 1
        return chat("goto_agent0_storage0")

    def most_in_window(self, window_s: float) -> int:
        recent: deque[float] = deque()
        most = 0
        for t in sorted(self.arrivals):
            recent.append(t)
            while recent[0] <= t - window_s:
                recent.popleft()
            most = max(most, len(recent))
        return most


def sweep(url: str, limits: RateLimits | None, workers: int, tmp_path, name: str, executor: str = "local") -> Results:
    config = EvalConfig(levels=["level_0"], agents=[2], model="openai:stub", taus=[1.0, 1.5, 2.0, 2.5], episodes=1,
                        steps=4)
    results = Results(tmp_path / f"{name}.json", config)
    recipe = BrainRecipe("openai:stub", config.domain, 0, base_url=url, limits=limits)
    run_units([(results, "level_0", 2, t) for t in config.taus], lambda _: recipe, workers=workers, executor=executor)
    assert not results.failures
    return results


def test_two_workers_together_keep_to_the_requests_per_window(tmp_path):
    """16 requests from two processes, 4 per second allowed; the server's own arrival times are
    checked, over full one-second windows."""
    limits = RateLimits(rpm=4, window_s=1.0)
    meter = Meter(hold_s=0.0)
    with stub_server(meter.answer) as stub:
        sweep(stub.url, None, 2, tmp_path, "free")
        assert len(meter.arrivals) == 16
        assert meter.most_in_window(1.0) > 4  # without the budget the workers do exceed it
        meter.arrivals.clear()
        started = time.monotonic()
        sweep(stub.url, limits, 2, tmp_path, "limited")
        took = time.monotonic() - started
    assert len(meter.arrivals) == 16
    assert meter.most_in_window(1.0) <= 4
    assert took >= 3.0  # 16 requests at 4 per second: the last window opens after 3 s


@pytest.mark.slow  # starts a local Ray (tens of seconds)
def test_ray_tasks_together_keep_to_the_requests_per_window(tmp_path):
    require_module("ray", "pip install -e '.[ray]' (setup.sh --dev installs it)")
    meter = Meter(hold_s=0.0)
    with stub_server(meter.answer) as stub:
        sweep(stub.url, RateLimits(rpm=4, window_s=1.0), 1, tmp_path, "ray", executor="ray")
    assert len(meter.arrivals) == 16
    assert meter.most_in_window(1.0) <= 4


def test_concurrency_holds_across_workers_from_the_command_line(tmp_path):
    meter = Meter(hold_s=0.15)
    args = ["eval", "--levels", "level_0", "--agents", "2", "--episodes", "1", "--steps", "3", "--taus",
            "1.0,2.0,3.0", "--model", "openai:stub", "--workers", "3"]
    with stub_server(meter.answer) as stub:
        free = runner.invoke(app, [*args, "--base-url", stub.url, "--out", str(tmp_path / "free.json")])
        assert free.exit_code == 0, free.output
        assert meter.peak > 1  # three workers, each with a request open
        meter.peak = 0
        limited = runner.invoke(app, [*args, "--base-url", stub.url, "--out", str(tmp_path / "one.json"),
                                      "--concurrency", "1", "--rpm", "600"])
        assert limited.exit_code == 0, limited.output
    assert meter.peak == 1
    assert (tmp_path / "free.json").read_bytes() == (tmp_path / "one.json").read_bytes()


def test_ablate_keeps_to_its_concurrency_and_budget(tmp_path):
    """`ablate --concurrency N` runs N cells at once and never has more than N requests open;
    `--rpm` is one budget for every configuration (a stub server counting what it sees)."""
    meter = Meter(hold_s=0.05)
    args = ["ablate", "--model", "openai:stub", "--levels", "level_0", "--agents", "2", "--taus", "1.0,2.0,3.0",
            "--episodes", "1", "--steps", "2", "--only", "full,no-feedback"]
    with stub_server(meter.answer) as stub:
        sequential = runner.invoke(app, [*args, "--base-url", stub.url, "--out", str(tmp_path / "one")])
        assert sequential.exit_code == 0, sequential.output
        assert meter.peak == 1 and len(meter.arrivals) == 12  # 2 configurations x 3 cells x 2 steps
        meter.peak = 0
        meter.arrivals.clear()
        parallel = runner.invoke(app, [*args, "--base-url", stub.url, "--out", str(tmp_path / "three"),
                                       "--concurrency", "3"])
        assert parallel.exit_code == 0, parallel.output
        assert meter.peak == 3
        meter.peak = 0
        meter.arrivals.clear()
        capped = runner.invoke(app, [*args, "--base-url", stub.url, "--out", str(tmp_path / "two"),
                                     "--concurrency", "2", "--rpm", "600"])
        assert capped.exit_code == 0, capped.output
        assert meter.peak == 2 and meter.most_in_window(60.0) <= 600
    for name in ("full", "no-feedback"):  # the same cells whatever ran at once
        assert [(c["cos"], c["metrics"]["steps"]) for c in json_cells(tmp_path / "one" / f"{name}.json")] == \
            [(c["cos"], c["metrics"]["steps"]) for c in json_cells(tmp_path / "three" / f"{name}.json")]


def json_cells(path):
    import json
    data = json.loads(path.read_text())
    return sorted(data["cells"], key=lambda c: (c["level"], c["agents"]))


class TokenMeter(Meter):
    """Also weighs each request as the gate does, from the body the server received."""

    def __init__(self) -> None:
        super().__init__(hold_s=0.0)
        self.weights: list[tuple[float, int]] = []

    def answer(self, path: str, body: bytes):
        request = json.loads(body)
        limit = request.get("max_completion_tokens", request.get("max_tokens", 0))
        weight = request_tokens((m["content"] for m in request["messages"]), int(limit))
        with self._lock:
            self.weights.append((time.monotonic(), weight))
        return super().answer(path, body)

    def heaviest_window(self, window_s: float) -> int:
        recent: deque[tuple[float, int]] = deque()
        most = 0
        for t, w in sorted(self.weights):
            recent.append((t, w))
            while recent[0][0] <= t - window_s:
                recent.popleft()
            most = max(most, sum(x for _, x in recent))
        return most


def test_two_workers_together_keep_to_the_tokens_per_window(tmp_path):
    """A budget of about two requests' weight a second, shared by two worker processes, measured
    where it counts: the weights of what reached the server, in every one-second window."""
    meter = TokenMeter()
    with stub_server(meter.answer) as stub:
        sweep(stub.url, None, 2, tmp_path, "free")
        heaviest = max(w for _, w in meter.weights)
        budget = 2 * heaviest + 1
        assert meter.heaviest_window(1.0) > budget  # without the budget the workers do exceed it
        meter.weights.clear()
        meter.arrivals.clear()
        sweep(stub.url, RateLimits(tpm=budget, window_s=1.0), 2, tmp_path, "limited")
    assert len(meter.weights) == 16
    assert meter.heaviest_window(1.0) <= budget


def test_tpm_from_the_command_line_changes_no_result(tmp_path):
    meter = Meter(hold_s=0.0)
    args = ["eval", "--levels", "level_0", "--agents", "2", "--episodes", "1", "--steps", "2", "--taus", "1.0",
            "--model", "openai:stub"]
    with stub_server(meter.answer) as stub:
        free = runner.invoke(app, [*args, "--base-url", stub.url, "--out", str(tmp_path / "free.json")])
        limited = runner.invoke(app, [*args, "--base-url", stub.url, "--out", str(tmp_path / "tpm.json"),
                                      "--tpm", "1000000"])
        refused = runner.invoke(app, [*args, "--base-url", stub.url, "--tpm", "0"])
    assert free.exit_code == 0 and limited.exit_code == 0, limited.output
    assert (tmp_path / "free.json").read_bytes() == (tmp_path / "tpm.json").read_bytes()
    assert refused.exit_code != 0

"""The frame reader: every frame is either a message or a documented error, never an exception."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mindagent.server.protocol import ERROR_CODES, MAX_FRAME_BYTES, CreateRoom, Join, parse_client
from mindagent.server.ratelimit import TokenBucket


@pytest.mark.parametrize("frame, code", [
    (b"\x00\x01", "binary_frame"),
    ("x" * (MAX_FRAME_BYTES + 1), "too_large"),
    ("é" * (MAX_FRAME_BYTES // 2 + 1), "too_large"),
    ("{not json", "bad_json"),
    ("[" * 5000, "bad_json"),
    ("[1, 2]", "bad_message"),
    ('"ping"', "bad_message"),
    ('{"type": "ping"}', "bad_message"),
    ('{"v": 2, "type": "ping"}', "bad_version"),
    ('{"v": true, "type": "ping"}', "bad_version"),
    ('{"v": 1, "type": "dance"}', "unknown_type"),
    ('{"v": 1, "type": 7}', "unknown_type"),
    ('{"v": 1, "type": "join"}', "invalid"),
    ('{"v": 1, "type": "join", "room": "r", "role": "king"}', "invalid"),
    ('{"v": 1, "type": "join", "room": "r", "agent": "0"}', "invalid"),
    ('{"v": 1, "type": "join", "room": "../../etc", "agent": 0}', "invalid"),
    ('{"v": 1, "type": "create_room", "admin_token": "t", "agents": 99}', "invalid"),
    ('{"v": 1, "type": "create_room", "admin_token": "t", "tau": NaN}', "invalid"),
    ('{"v": 1, "type": "command", "command": 5}', "invalid"),
    ('{"v": 1, "type": "command", "command": "' + "a" * 101 + '"}', "invalid"),
    ('{"v": 1, "type": "ping", "extra": 1}', "invalid"),
    ('{"v": 1, "type": "questionnaire", "answers": {"enjoyment": 9}}', "invalid"),
])
def test_bad_frames_get_a_documented_error(frame: str | bytes, code: str) -> None:
    message, error, _ = parse_client(frame)
    assert message is None and error is not None
    assert error.code == code and error.code in ERROR_CODES
    assert error.message


def test_good_frames_parse_with_defaults_and_echo_the_id() -> None:
    frame = '{"v": 1, "type": "join", "room": "ab12", "role": "player", "agent": 1, "id": "j1"}'
    message, error, re = parse_client(frame)
    assert error is None and isinstance(message, Join)
    assert (message.room, message.role, message.agent, re) == ("ab12", "player", 1, "j1")
    message, error, _ = parse_client('{"v": 1, "type": "create_room", "admin_token": "t"}')
    assert isinstance(message, CreateRoom) and message.agents == 2 and message.mode == "realtime"


def test_the_id_of_an_invalid_message_is_still_echoed() -> None:
    _, error, re = parse_client('{"v": 1, "type": "command", "command": 5, "id": 42}')
    assert error is not None and re == 42


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=300), st.binary(max_size=100),
                 st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
                              lambda children: st.lists(children, max_size=4)
                              | st.dictionaries(st.sampled_from(["v", "type", "id", "room", "agent", "command", "x"]),
                                                children, max_size=5),
                              max_leaves=12).map(json.dumps)))
def test_fuzz_any_frame_parses_or_is_a_documented_error(frame: str | bytes) -> None:
    message, error, _ = parse_client(frame)
    assert (message is None) != (error is None)
    if error is not None:
        assert error.code in ERROR_CODES


def test_token_bucket_allows_a_burst_then_the_rate() -> None:
    now = [0.0]
    bucket = TokenBucket(rate=2.0, capacity=3, clock=lambda: now[0])
    assert [bucket.take() for _ in range(4)] == [True, True, True, False]
    assert bucket.dropped == 1
    now[0] += 0.5  # one token back
    assert bucket.take() and not bucket.take()
    now[0] += 100  # refills only up to the capacity
    assert sum(bucket.take() for _ in range(10)) == 3

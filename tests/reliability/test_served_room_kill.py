"""kill -9 of a served room: `mindagent serve` in its own process, a person playing over a real
websocket, then SIGKILL. The room's recording replays identically up to its last full line and
says its end line is missing; a server restarted on the same folder serves a new episode in a new
file and leaves the old one as it was."""

from __future__ import annotations

import asyncio
import json
import signal
import urllib.request
from pathlib import Path

from reliability.served import Player, Served, mindagent, serve


async def play_steps(served: Served, until: int, kill: bool = False) -> int:
    """Play until step `until`; with `kill`, SIGKILL the server while the player is still seated
    (a room everyone has left ends its episode properly)."""
    player = await Player.join(served, 0)
    try:
        reached = await player.play(until)
        if kill:
            served.proc.send_signal(signal.SIGKILL)
            served.proc.wait(10)
        return reached
    finally:
        await player.close()


def test_a_room_killed_mid_episode_replays_to_its_last_full_line_and_a_restart_works(tmp_path: Path) -> None:
    rooms = tmp_path / "rooms"
    with serve(rooms) as served:
        reached = asyncio.run(play_steps(served, 12, kill=True))
        assert reached >= 12 and served.proc.returncode == -signal.SIGKILL
        first_room = served.room
    (recording,) = sorted(rooms.glob(f"{first_room}_e1*.jsonl"))
    before = recording.read_bytes()
    lines = before.decode().splitlines()
    assert json.loads(lines[0])["type"] == "header"
    assert not any(json.loads(line)["type"] == "end" for line in lines[:-1])

    replayed = mindagent("replay", str(recording))
    output = replayed.stdout + replayed.stderr
    assert replayed.returncode == 0, output
    assert "Traceback" not in output and "the end line is missing" in output
    steps = int(output.split("replayed ", 1)[1].split(" steps", 1)[0])
    assert steps >= 12

    with serve(rooms) as again:
        with urllib.request.urlopen(f"http://127.0.0.1:{again.port}/health", timeout=10) as resp:
            assert json.loads(resp.read())["ok"] is True
        assert asyncio.run(play_steps(again, 3)) >= 3
    assert recording.read_bytes() == before  # the killed episode's file is not appended to
    assert len(list(rooms.glob("*.jsonl"))) == 2

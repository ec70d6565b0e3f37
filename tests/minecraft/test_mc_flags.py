"""`--mc-bind` and `--mc-clock` on run, eval and serve: refused with one line where they cannot
apply, and what a run says before it starts (fast: nothing here starts a server)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from mindagent.cli import app
from mindagent.core.spec import GameSpec
from minecraft.domain import DOMAIN


@pytest.mark.parametrize("command", ["run", "eval", "serve"])
def test_every_command_has_both_flags(command: str) -> None:
    result = CliRunner().invoke(app, [command, "--help"], terminal_width=200)
    assert result.exit_code == 0
    assert "--mc-bind" in result.output and "--mc-clock" in result.output


@pytest.mark.parametrize(("args", "line"), [
    (["--mc-clock", "fast"], "minecraft: --mc-clock is lockstep or realtime, not fast"),
    (["--mc-host", "127.0.0.1", "--mc-bind", "0.0.0.0"],
     "minecraft: --mc-bind sets the embedded server; it cannot change a server at --mc-host"),
    (["--mc-host", "127.0.0.1", "--mc-clock", "lockstep"],
     "minecraft: --mc-clock sets the embedded server; it cannot change a server at --mc-host"),
])
@pytest.mark.parametrize("command", ["run", "eval"])
def test_flags_that_cannot_apply_are_refused_in_one_line(command: str, args: list[str], line: str) -> None:
    result = CliRunner().invoke(app, [command, "--domain", "minecraft", "--model", "planner", *args])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [f"error: {line}"]


def test_the_kitchen_has_no_minecraft_clock() -> None:
    result = CliRunner().invoke(app, ["run", "--domain", "cuisineworld", "--mc-clock", "realtime"])
    assert result.exit_code == 2 and "cuisineworld takes no mc_clock" in result.output


def notes(**options: object) -> list[str]:
    return DOMAIN.run_notes(DOMAIN.validate(GameSpec("minecraft", agents=2, options=dict(options))))


def test_a_run_says_which_clock_its_results_depend_on() -> None:
    assert notes() == ["Minecraft clock: lockstep (40 game ticks per step, frozen in between; reproducible)"]
    assert notes(mc_clock="lockstep", step_ticks=20)[0].startswith("Minecraft clock: lockstep (20 game ticks")
    assert notes(mc_clock="realtime") == ["Minecraft clock: realtime (20 game ticks per wall-clock second; results "
                                          "depend on machine speed and model latency)"]
    assert notes(mc_host="10.0.0.5", mc_port=25570) == [
        "Minecraft: the server at 10.0.0.5:25570 has no kitchen clock of ours: real time; orders arrive and expire by "
        "its own world ticks (from its time updates) and a step lasts at least 40 of them (recorded as clock "
        "realtime, orders in world ticks)"]


def test_a_world_open_to_the_network_is_warned_about_before_the_run() -> None:
    assert len(notes(mc_bind="127.0.0.1")) == 1 and len(notes(mc_bind="localhost")) == 1
    warning = notes(mc_bind="0.0.0.0")[1]
    assert warning.startswith("warning: the Minecraft world listens on 0.0.0.0: offline mode")


def test_accounts_for_an_online_mode_server_name_the_bots() -> None:
    from mindagent.core.domain import SpecError
    from mindagent.core.spec import GameSpec
    from minecraft.domain import DOMAIN

    spec = DOMAIN.validate(GameSpec("minecraft", agents=2, options={
        "mc_host": "203.0.113.7", "mc_accounts": "Ann=ann@example.org, Bo=bo@example.org"}))
    session = DOMAIN.make_session(spec)
    assert session.agents == ["Ann", "Bo"] and session.address is not None
    assert dict(session.address.accounts) == {"Ann": "ann@example.org", "Bo": "bo@example.org"}
    assert "example.org" not in repr(session.address), "e-mail addresses stay out of logs"
    for options, why in (({"mc_accounts": "Ann=ann@example.org,Bo=bo@example.org"}, "embedded server is offline"),
                         ({"mc_host": "h", "mc_accounts": "Ann=ann@example.org"}, "1 accounts for 2 bots"),
                         ({"mc_host": "h", "mc_accounts": "Ann:ann,Bo=bo@x.org"}, "NAME=EMAIL pairs")):
        with pytest.raises(SpecError, match=why):
            DOMAIN.validate(GameSpec("minecraft", agents=2, options=options))

"""Every flag means the same in every domain, or is refused with one line naming the domain.

These run through typer's runner and stop before any game starts (no Minecraft server needed):
a refused flag must never be silently ignored.
"""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from mindagent.cli import app

runner = CliRunner()


def refused(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    return " ".join(result.output.split())


@pytest.mark.parametrize("command", ["run", "eval", "prompt"])
def test_minecraft_refuses_kitchen_flags(command: str) -> None:
    assert "minecraft has one rule set" in refused(command, "--domain", "minecraft", "--rules", "fixed")
    assert "minecraft has no one-shot demonstration" in refused(command, "--domain", "minecraft", "--demo", "full")
    assert "minecraft has no one-shot demonstration" in refused(command, "--domain", "minecraft", "--demo-agents", "2")


def test_minecraft_refuses_a_kitchen_level_and_recipes(tmp_path) -> None:
    assert "minecraft has one kitchen" in refused("run", "--domain", "minecraft", "--level", "level_3")
    assert "minecraft has one kitchen" in refused("eval", "--domain", "minecraft", "--levels", "level_3")
    recipes = tmp_path / "r.json"
    recipes.write_text("{}")
    assert "minecraft has fixed smelting recipes" in refused("run", "--domain", "minecraft", "--recipes", str(recipes))


@pytest.mark.parametrize("flag", [["--mc-host", "127.0.0.1"], ["--mc-port", "25565"], ["--mc-version", "1.19.2"],
                                  ["--cook-ticks", "20"]])
def test_kitchen_refuses_minecraft_flags(flag: list[str]) -> None:
    for command in ("run", "eval"):
        assert "cuisineworld takes no" in refused(command, "--domain", "cuisineworld", *flag)


def test_unknown_domain_lists_the_known_ones() -> None:
    text = refused("run", "--domain", "chess")
    assert "unknown domain" in text and "cuisineworld" in text and "minecraft" in text


def test_minecraft_has_no_cook_ticks_for_a_server_of_your_own() -> None:
    assert "--cook-ticks sets the embedded server" in refused(
        "run", "--domain", "minecraft", "--mc-host", "127.0.0.1", "--cook-ticks", "20")


def test_a_built_in_dispatcher_a_domain_lacks_is_refused_by_name() -> None:
    from mindagent.core import registry as domains
    from mindagent.core.domain import SpecError
    from mindagent.dispatch.brains import make_brain

    class NoPolicies:
        name, policies = "toy", ()

    with pytest.raises(SpecError, match="toy has no built-in 'planner'"):
        make_brain("planner", NoPolicies())  # type: ignore[arg-type]
    assert make_brain("random", domains.get("minecraft")).name == "random"


def test_serve_refuses_episodes_without_autoplay() -> None:
    assert "--episodes counts autoplay episodes" in refused("serve", "--domain", "cuisineworld", "--episodes", "2",
                                                             "--model", "planner")

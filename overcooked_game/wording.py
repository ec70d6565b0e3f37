"""Every English line a refusal becomes: one table, keyed by the refusal's code."""

from __future__ import annotations

from overcooked_game.kitchen import Refusal

_TEXT: dict[str, str] = {
    "unreadable": "not a command of this game ({why}); commands look like pickup_onion(chef0)",
    "no_such_chef": "{why}",
    "unexpected_target": "{why}",
    "missing_target": "{why}",
    "wrong_target": "{why}",
    "second_command": "{chef} already has a command this step ({first})",
    "episode_over": "the episode is over",
    "hands_full": "{chef} cannot {verb}: its hands are full (holding {held})",
    "hands_empty": "{chef} cannot {verb}: it holds nothing",
    "wrong_item": "{chef} cannot {verb}: that needs {need} in hand, but it holds {held}",
    "no_such_station": "{chef}: there is no {kind} called {target} on this map",
    "pot_full": "{chef} cannot put an onion in {target}: it is {state}",
    "pot_not_cooking": "{chef} cannot fill a dish at {target}: no soup is cooking there ({onions} of 3 onions)",
    "counter_taken": "{chef} cannot place on {target}: it already holds a {item}",
    "unreachable": "{chef} cannot reach {target} from where it stands",
    "nothing_reachable": "{chef} cannot {verb}: nothing it can reach has one",
    "too_long": "{chef} spent {limit} timesteps on it without finishing",
    "blocked": "{chef} was blocked by the other chef with no way around",
}


def describe(refusal: Refusal) -> str:
    """The plain-English line for a refusal (prompt feedback, page messages)."""
    chef = f"chef{refusal.chef}" if refusal.chef is not None else "the command"
    fields = {**dict(refusal.detail), "chef": chef}
    template = _TEXT.get(refusal.code, "refused ({code})")
    try:
        return template.format(code=refusal.code, **fields)
    except (KeyError, IndexError):
        return f"refused ({refusal.code})"

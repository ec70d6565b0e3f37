"""The end-of-episode team summary carries each agent's share of the served dishes when the game
follows who worked on them (`DishShares`), so a person's hand-offs show as their part."""

from __future__ import annotations

from mindagent.server.scorecard import Scorecard


def test_the_summary_carries_the_games_shares() -> None:
    card = Scorecard(2, credit=lambda command: "served" if command.startswith("put") else None,
                     shares=lambda: [0.5, 1.5])
    card.add(0, [{"agent": 1, "command": "put_agent1_servingtable0", "ok": True, "by": "dispatcher", "idle": False}])
    summary = card.summary(["agent0", "agent1"])
    assert [s["share"] for s in summary] == [0.5, 1.5]
    assert [s["served"] for s in summary] == [0, 1]  # the serving put alone, kept beside the share


def test_no_share_where_the_game_does_not_follow_contributions() -> None:
    card = Scorecard(1, credit=lambda command: None, shares=lambda: None)
    assert "share" not in card.summary(["agent0"])[0]
    assert "share" not in Scorecard(1, credit=lambda command: None).summary(["agent0"])[0]

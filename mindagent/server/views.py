"""What the server asks a game about its page beyond the contract's `view` and `static_view`.

The shared page never parses or builds a command string: for the person's agent a game lists the
actions available now, each with its exact command, words for people, its group (a button with a
key the static view declares) and the tile it acts on. That is the declared capability
`mindagent.core.capabilities.PageActions`, read here and nowhere else.

An action, as sent in a state's ``you.actions``::

    {"command": "get_agent0_tuna_storage0", "label": "take tuna from storage", "short": "Take tuna",
     "group": "take", "tile": "storage0", "item": "tuna"}

``group`` names one of the static view's ``page.groups`` (``{"id", "label", "key", "many"}``; a
group with ``many`` gets one button per choice in a row, the others one fixed button that acts on
the chosen tile); ``tile`` is a tile's ``id`` or None (an action that targets no tile, like
waiting); ``item`` tells a row's buttons apart; ``short`` is an optional shorter button text.
A legal command a game does not describe is in group ``other``: listed as text only. A group's
``key`` is a letter or digit, or a named key (``ArrowUp``, ``" "`` for space) with a ``key_label``
to show (``↑``, ``Space``): a real-time game binds its moves to the arrows that way.

A game may also declare a sprite grid, drawn on a canvas instead of the tiles (grid.js): the
static view's ``page.grid`` gives ``cell`` (source pixels per cell), ``cols``, ``rows``,
``sheets`` (id -> ``{"image": a file name the game serves through `PageAssets`, "frames": {name:
[x, y, w, h]}}``) and ``terrain`` (``{"sheet": id, "rows": [[frame, ...], ...]}``); each state's
``grid`` gives ``sprites`` (``{"x", "y", "sheet", "frame"}`` drawn in order, ``"agent": k`` on
an agent's own sprites so the page can outline the person's), ``labels`` (``{"x", "y", "text"}``)
and ``hud`` (``{"label", "value"}``, with ``steps`` when the figure is a number of steps, which
the page also shows in seconds at the room's pace). `checked_static` drops a grid that does not
fit this shape (the page then shows tiles) rather than let a game's mistake break the page.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from mindagent.core.capabilities import PageActions
from mindagent.core.domain import DomainSession

log = logging.getLogger(__name__)

#: The group of a command a game does not describe (the page lists it only as text).
OTHER = "other"


class PageAction(BaseModel):
    """One action as the page receives it; what a game returns is checked against this."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    command: str
    label: str
    group: str
    tile: str | None = None
    item: str | None = None
    #: A shorter text for a button in a row of items (``Take tuna``); the page falls back to `label`.
    short: str | None = None


def page_actions(session: DomainSession, agent: int, legal: Sequence[str]) -> list[dict[str, Any]]:
    """The actions the page offers `agent` now, one per legal command, in the order of `legal`.

    A session without `PageActions`, or one whose answer does not fit `PageAction` or leaves out a
    legal command, still gets every command, as text in the `OTHER` group: the page stays usable."""
    described: dict[str, dict[str, Any]] = {}
    if isinstance(session, PageActions) and legal:
        try:
            for raw in session.page_actions(agent, legal):
                action = PageAction.model_validate(raw)
                described.setdefault(action.command, action.model_dump())
        except (ValidationError, TypeError, ValueError) as exc:
            log.warning("%s: page_actions gave an unusable answer; the page lists commands as text: %s",
                        session.domain, str(exc)[:300])
            described = {}
    return [described.get(c) or {"command": c, "label": c, "group": OTHER, "tile": None, "item": None,
                                 "short": None} for c in legal]


Count = Annotated[int, Field(ge=0, le=4096)]
AssetName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,79}$")]


class GridSheet(BaseModel):
    """One sprite sheet: the image's name among the game's page assets and its frames."""

    image: AssetName
    frames: dict[str, tuple[Count, Count, Count, Count]]


class GridTerrain(BaseModel):
    sheet: str
    rows: list[list[str]]


class PageGrid(BaseModel):
    """A game's declared sprite grid (``page.grid``), checked before it reaches the page."""

    cell: Annotated[int, Field(ge=1, le=256)]
    cols: Annotated[int, Field(ge=1, le=128)]
    rows: Annotated[int, Field(ge=1, le=128)]
    sheets: dict[str, GridSheet]
    terrain: GridTerrain


def checked_static(static: dict[str, Any]) -> dict[str, Any]:
    """`static` as the page gets it: a ``page.grid`` that does not fit `PageGrid`, or names a sheet
    it does not define, is left out (with a log line) and the page draws tiles instead."""
    page = static.get("page")
    if not isinstance(page, dict) or "grid" not in page:
        return static
    try:
        grid = PageGrid.model_validate(page["grid"])
        if grid.terrain.sheet not in grid.sheets:
            raise ValueError(f"the terrain's sheet {grid.terrain.sheet!r} is not among the sheets")
    except (ValidationError, ValueError) as exc:
        log.warning("%s: page.grid is unusable; the page draws tiles: %s", static.get("domain"), str(exc)[:300])
        return {**static, "page": {k: v for k, v in page.items() if k != "grid"}}
    return static


#: What the server itself says to people when a game gives no words of its own.
DEFAULT_WORDS = {"director": "director"}


def page_words(static: dict[str, Any]) -> dict[str, str]:
    """The words a game's static view gives the page (``page.words``), over the neutral defaults.

    Example: ``page_words({"page": {"words": {"director": "head chef"}}})["director"]`` → ``"head chef"``."""
    page = static.get("page")
    given = page.get("words") if isinstance(page, dict) else None
    words = dict(DEFAULT_WORDS)
    if isinstance(given, dict):
        words.update({k: v for k, v in given.items() if isinstance(k, str) and isinstance(v, str)})
    return words


__all__ = ["DEFAULT_WORDS", "OTHER", "PageAction", "PageActions", "PageGrid", "checked_static", "page_actions",
           "page_words"]

"""The files a game's page draws with, served at ``/assets/<game>/<name>`` (`PageAssets`).

A game lists its files by name (`mindagent.core.capabilities.PageAssets`); the page asks for them
by that name and nothing else is reachable: the URL's parts are checked against a strict pattern,
the game must be registered and declare the capability, and the name must be in its list. The
bytes come from where the game says (an installed package's data), are read once and kept, and go
out with a content type chosen by suffix from a short list (no SVG or HTML: nothing that can run
script on this origin). A game whose files cannot be read gets a log line and a 404, never a 500.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from mindagent.core import registry
from mindagent.core.capabilities import ASSET_MAX_BYTES, ASSET_NAME, ASSET_SUFFIXES, PageAssets
from mindagent.core.domain import Domain

log = logging.getLogger(__name__)

#: Where a game's files live on the server.
PREFIX = "/assets/"
#: Suffixes served (`ASSET_SUFFIXES`), and their content types.
CONTENT_TYPES = {".png": "image/png", ".json": "application/json", ".webp": "image/webp", ".jpg": "image/jpeg",
                 ".gif": "image/gif"}
assert set(CONTENT_TYPES) == set(ASSET_SUFFIXES), "every suffix a game may declare has a content type"
#: A file larger than this is not served (sprite sheets are kilobytes); see `ASSET_MAX_BYTES`.
MAX_ASSET_BYTES = ASSET_MAX_BYTES
_GAME = re.compile(r"[a-z][a-z0-9_-]{0,39}")
_NAME = re.compile(ASSET_NAME)


def asset_path(game: str, name: str) -> str:
    """The URL path of one of `game`'s files (what the page builds from the static view)."""
    return f"{PREFIX}{game}/{name}"


def _domain_of(game: str) -> Domain | None:
    """The registered game `game`, or None (an unknown name never imports anything)."""
    if game not in registry.names():
        return None
    try:
        return registry.get(game)
    except Exception:  # a game that fails to load simply has no files here
        log.warning("assets: game %r did not load", game, exc_info=True)
        return None


@dataclass
class AssetShelf:
    """Answers `/assets/<game>/<name>` requests. `find` looks a game up (the registry by default)."""

    find: Callable[[str], Domain | None] = _domain_of
    _kept: dict[tuple[str, str], tuple[bytes, str]] = field(default_factory=dict)

    def get(self, path: str) -> tuple[bytes, str] | None:
        """The body and content type for a request path under `PREFIX`, or None (not found)."""
        parts = path.removeprefix(PREFIX).split("/")
        if not path.startswith(PREFIX) or len(parts) != 2:
            return None
        game, name = parts
        if not (_GAME.fullmatch(game) and _NAME.fullmatch(name)) or ".." in name:
            return None
        key = (game, name)
        found = self._kept.get(key)
        if found is None:  # only files found are kept: made-up names cannot grow the cache
            found = self._load(game, name)
            if found is not None:
                self._kept[key] = found
        return found

    def _load(self, game: str, name: str) -> tuple[bytes, str] | None:
        content_type = next((t for suffix, t in CONTENT_TYPES.items() if name.lower().endswith(suffix)), None)
        domain = self.find(game)
        if content_type is None or domain is None or not isinstance(domain, PageAssets):
            return None
        try:
            source = domain.page_assets().get(name)
            if source is None or not source.is_file():
                return None
            body = source.read_bytes()
        except (OSError, ValueError, TypeError):
            log.warning("assets: %s could not read %s", game, name, exc_info=True)
            return None
        if len(body) > MAX_ASSET_BYTES:
            log.warning("assets: %s/%s is %d bytes, over %d: not served", game, name, len(body), MAX_ASSET_BYTES)
            return None
        return body, content_type


__all__ = ["CONTENT_TYPES", "MAX_ASSET_BYTES", "PREFIX", "AssetShelf", "asset_path"]

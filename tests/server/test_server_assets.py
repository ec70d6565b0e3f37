"""A game's page assets (`PageAssets`): exactly the names a game lists, nothing else, never a crash."""

from __future__ import annotations

import asyncio
import urllib.error
import urllib.request
from collections.abc import Mapping
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mindagent.core.capabilities import PageAssets
from mindagent.core.conformance_capabilities import page_asset_problems
from mindagent.core.spec import GameSpec
from mindagent.server import GameServer, ServerConfig
from mindagent.server.assets import MAX_ASSET_BYTES, PREFIX, AssetShelf, asset_path

PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 24


class Sprites:
    """A stand-in game with a few files of its own; `reads` counts how often a file was read."""

    def __init__(self, folder: Path) -> None:
        (folder / "sheet.png").write_bytes(PNG)
        (folder / "frames.json").write_text('{"frames": {}}')
        (folder / "page.html").write_text("<script>alert(1)</script>")
        (folder / "secret.png").write_bytes(PNG)  # beside the listed files, but not listed
        (folder / "huge.png").write_bytes(b"\0" * (MAX_ASSET_BYTES + 1))
        self.files: dict[str, Traversable] = {n: folder / n for n in ("sheet.png", "frames.json", "page.html", "huge.png")}
        self.files["gone.png"] = folder / "missing.png"
        self.reads = 0

    def page_assets(self) -> Mapping[str, Traversable]:
        self.reads += 1
        return self.files


def shelf_for(game: Any) -> AssetShelf:
    return AssetShelf(find=lambda name: game if name == "sprites" else None)


def test_listed_files_are_served_with_their_content_type(tmp_path: Path) -> None:
    game = Sprites(tmp_path)
    assert isinstance(game, PageAssets)
    shelf = shelf_for(game)
    assert shelf.get(asset_path("sprites", "sheet.png")) == (PNG, "image/png")
    assert shelf.get("/assets/sprites/frames.json") == (b'{"frames": {}}', "application/json")
    shelf.get("/assets/sprites/sheet.png")
    assert game.reads == 2  # each file read once, then kept


@pytest.mark.parametrize("path", [
    "/assets/sprites/secret.png",          # in the folder, not in the list
    "/assets/sprites/page.html",           # listed, but not a type the page may load
    "/assets/sprites/huge.png",            # over the size limit
    "/assets/sprites/gone.png",            # listed, but not there
    "/assets/sprites/../sprites/sheet.png",
    "/assets/sprites/..%2Fsheet.png",
    "/assets/sprites//sheet.png",
    "/assets/sprites/sub/sheet.png",
    "/assets/sprites/.png",
    "/assets/other/sheet.png",             # no such game
    "/assets/Sprites/sheet.png",
    "/assets/sheet.png",
    "/sprites/sheet.png",
])
def test_anything_else_is_not_found(tmp_path: Path, path: str) -> None:
    assert shelf_for(Sprites(tmp_path)).get(path) is None


def test_a_game_without_the_capability_or_that_fails_serves_nothing(tmp_path: Path) -> None:
    class Broken:
        def page_assets(self) -> Mapping[str, Traversable]:
            raise OSError("package data missing")

    assert shelf_for(object()).get("/assets/sprites/sheet.png") is None
    assert shelf_for(Broken()).get("/assets/sprites/sheet.png") is None


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_any_path_is_answered_or_refused(tail: str) -> None:
    """Fuzz: a made-up path is either one of the listed files or not found, never an exception."""
    folder = Path(__file__).parent  # read-only use: nothing listed here
    game = type("Nothing", (), {"page_assets": lambda self: {"x.png": folder / "no-such-file.png"}})()
    assert AssetShelf(find=lambda name: game).get(PREFIX + tail) is None


def test_the_registry_knows_overcookeds_sheets(require: Any) -> None:
    require("overcooked", "pip install -e '.[overcooked]'")
    shelf = AssetShelf()
    for name in ("chefs.png", "objects.png", "soups.png", "terrain.png"):
        found = shelf.get(asset_path("overcooked", name))
        assert found is not None and found[0].startswith(b"\x89PNG") and found[1] == "image/png", name
    assert shelf.get("/assets/overcooked/chefs.json") is None  # the frames travel in the static view
    assert shelf.get("/assets/nosuchgame/chefs.png") is None


def _fetch(url: str) -> tuple[int, dict[str, str], bytes]:
    try:
        with urllib.request.urlopen(url, timeout=10) as resp:
            return resp.status, dict(resp.headers), resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read()


@pytest.mark.slow
@pytest.mark.asyncio
async def test_the_server_serves_a_games_files(tmp_path: Path, require: Any) -> None:
    require("overcooked", "pip install -e '.[overcooked]'")
    config = ServerConfig(port=0, recordings=tmp_path / "rooms", startup=GameSpec("overcooked", "cramped_room", 2))
    async with GameServer(config) as server:
        status, headers, body = await asyncio.to_thread(_fetch, server.url + "assets/overcooked/terrain.png")
        assert status == 200 and headers["Content-Type"] == "image/png" and body.startswith(b"\x89PNG")
        assert headers["X-Content-Type-Options"] == "nosniff"
        for bad in ("assets/overcooked/../../../etc/passwd", "assets/overcooked/__init__.py", "assets/x/terrain.png"):
            status, _, _ = await asyncio.to_thread(_fetch, server.url + bad)
            assert status == 404, bad


def test_the_conformance_check_names_each_bad_file(tmp_path: Path) -> None:
    game = Sprites(tmp_path)
    game.files["../up.png"] = tmp_path / "sheet.png"
    problems = page_asset_problems(game)
    assert [p.split(":")[0] for p in problems] == ["'../up.png'", "gone.png", "huge.png", "'page.html'"], problems
    assert page_asset_problems(object()) == []  # no capability, nothing to check

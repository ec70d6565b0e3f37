"""The trials cache and the row parser: checked files, mapped layouts, one clear error for bad input."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from conftest import require_module
from hypothesis import given, settings
from hypothesis import strategies as st

from overcooked_game.bc.data import TRIAL_FILES, ensure_trials, is_cached, load_transitions
from overcooked_game.bc.errors import CorruptTrials, TrialsUnavailable, UnknownLayout
from overcooked_game.bc.layouts import CLASSIC_NAMES, check_terrain, resolve


def test_old_and_new_layout_names_resolve_to_the_grids_people_played() -> None:
    assert resolve("random0").name == "forced_coordination"
    assert resolve("random3").package_layout == "counter_circuit_o_1order"
    assert resolve("simple").name == "cramped_room"
    assert resolve(" counter_circuit ").trials_name == "random3"


@pytest.mark.parametrize("name", ["large_room", "", "counter_circuit_tomato", "../etc/passwd"])
def test_a_layout_without_trials_is_one_clear_error(name: str) -> None:
    with pytest.raises(UnknownLayout) as caught:
        resolve(name)
    assert "\n" not in str(caught.value) and "cramped_room" in str(caught.value)


def test_a_trial_grid_that_differs_from_the_package_layout_is_refused() -> None:
    layout = resolve("cramped_room")
    shipped = [list("XXPXX"), list("O   O"), list("X   X"), list("XDXSX")]
    check_terrain(layout, ["XXPXX", "O  2O", "X1  X", "XDXSX"], shipped)  # start digits are floor
    with pytest.raises(UnknownLayout, match="differs"):
        check_terrain(layout, ["XXPXX", "O  2O", "X1 XX", "XDXSX"], shipped)


def test_an_empty_cache_without_fetching_says_how_to_fill_it(tmp_path: Path) -> None:
    assert not is_cached(tmp_path)
    with pytest.raises(TrialsUnavailable, match="setup.sh --dev"):
        ensure_trials(tmp_path, fetch=False)


def test_a_corrupt_cache_file_is_one_clear_error(tmp_path: Path, trials: dict[str, Path]) -> None:
    shutil.copy(trials["test"], tmp_path / TRIAL_FILES["test"][0])
    (tmp_path / TRIAL_FILES["train"][0]).write_bytes(b"not the trials")
    with pytest.raises(CorruptTrials) as caught:
        ensure_trials(tmp_path, fetch=False)
    message = str(caught.value)
    assert "\n" not in message and "sha256" in message and "delete it" in message


def test_the_cache_folder_follows_mindagent_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from overcooked_game.bc.data import cache_dir

    monkeypatch.setenv("MINDAGENT_CACHE", str(tmp_path))
    assert cache_dir() == tmp_path / "overcooked-ai"
    monkeypatch.delenv("MINDAGENT_CACHE")
    assert cache_dir() == Path.home() / ".cache" / "mindagent" / "overcooked-ai"


@pytest.mark.parametrize("layout", CLASSIC_NAMES)
def test_every_classic_layout_parses_into_package_states(layout: str, trials: dict[str, Path]) -> None:
    import overcooked

    transitions = load_transitions(layout, "train", limit=400)
    assert len(transitions) == 400
    mdp = overcooked.OvercookedGridworld.from_layout_name(resolve(layout).package_layout)
    floor = set(mdp.get_valid_player_positions())
    for transition in transitions:
        assert isinstance(transition.state, overcooked.OvercookedState)
        assert {p.position for p in transition.state.players} <= floor
        assert all(0 <= a < len(overcooked.Action.ALL_ACTIONS) for a in transition.actions)
        assert [(player, action) for _, player, action in transition.examples()] == list(enumerate(transition.actions))
    # the trials' timesteps run on within a trial, and the joint actions include moves, not only stays
    assert [t.timestep for t in transitions[:5]] == [0, 1, 2, 3, 4]
    assert any(a != overcooked.Action.ACTION_TO_INDEX[overcooked.Action.STAY] for t in transitions for a in t.actions)


def test_a_soup_in_the_old_format_is_read_with_its_ingredients_and_ticks(trials: dict[str, Path]) -> None:
    transitions = load_transitions("cramped_room", "train", limit=1200)
    soups = [obj for t in transitions for obj in t.state.objects.values() if obj.name == "soup"]
    assert soups, "a whole trial of cramped_room cooks at least one soup"
    assert all(set(soup.ingredients) == {"onion"} and 1 <= len(soup.ingredients) <= 3 for soup in soups)
    assert any(soup.is_cooking for soup in soups) and any(soup.is_ready for soup in soups)


@settings(max_examples=150, deadline=None)
@given(st.one_of(st.text(max_size=120), st.from_regex(r"\[\[-?\d, ?-?\d\], ?(\[-?\d, ?-?\d\]|'INTERACT')\]", fullmatch=True)))
def test_the_action_parser_either_parses_or_says_which_row(text: str) -> None:
    require_module("overcooked", "pip install overcooked==0.2.1")
    from overcooked_game.bc.parse import parse_joint_action

    try:
        first, second = parse_joint_action(text, "row 7")
    except CorruptTrials as exc:
        assert str(exc).startswith("row 7:")
    else:
        assert 0 <= first < 6 and 0 <= second < 6


@settings(max_examples=150, deadline=None)
@given(st.one_of(
    st.text(max_size=200),
    st.recursive(st.none() | st.booleans() | st.integers(-3, 9) | st.text(max_size=6),
                 lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
                     st.sampled_from(["players", "objects", "position", "orientation", "held_object", "name", "state"]),
                     inner, max_size=4), max_leaves=12).map(repr)))
def test_the_state_parser_either_parses_or_says_which_row(text: str) -> None:
    require_module("overcooked", "pip install overcooked==0.2.1")
    from overcooked_game.bc.parse import parse_state

    try:
        state = parse_state(text, 3, "row 9")
    except CorruptTrials as exc:
        assert str(exc).startswith("row 9:")
    else:
        assert len(state.players) == 2


def test_a_failed_download_is_one_line_and_leaves_nothing_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    empty = tmp_path / "no-wheels"
    empty.mkdir()
    for name, value in (("PIP_NO_INDEX", "1"), ("PIP_FIND_LINKS", str(empty)), ("PIP_EXTRA_INDEX_URL", ""),
                        ("PIP_CONFIG_FILE", "/dev/null")):
        monkeypatch.setenv(name, value)
    cache = tmp_path / "cache"
    with pytest.raises(TrialsUnavailable) as caught:
        ensure_trials(cache)
    assert "\n" not in str(caught.value) and "could not download overcooked-ai==1.1.0" in str(caught.value)
    assert list(cache.iterdir()) == []  # no half-written pickle, no leftover download folder


@pytest.mark.slow
def test_fetching_into_an_empty_cache_gets_the_official_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import hashlib

    monkeypatch.setenv("MINDAGENT_CACHE", str(tmp_path))
    try:
        paths = ensure_trials()
    except TrialsUnavailable as exc:
        if os.environ.get("CI", "").lower() == "true":
            raise
        pytest.skip(f"no network to reach PyPI: {exc}")
    assert sorted(p.name for p in (tmp_path / "overcooked-ai").iterdir()) == sorted(n for n, _ in TRIAL_FILES.values())
    for split, path in paths.items():
        assert hashlib.sha256(path.read_bytes()).hexdigest() == TRIAL_FILES[split][1]
    assert ensure_trials() == paths  # cached now: nothing is downloaded again

"""The construction family's pure part: blueprint files, the generator, C and VHR, solvability."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from minecraft.families.blueprint import MAX_BYTES, Block, Blueprint, BlueprintError, ChestStack, load_blueprint, parse_blueprint
from minecraft.families.generate import BANDS, generate
from minecraft.families.metrics import VIEWS, Placed, blueprint_as_built, completion_rate, view_hit_rate
from minecraft.families.support import build_order, depth, held_up, problems

bands = st.sampled_from(sorted(BANDS))
seeds = st.integers(min_value=0, max_value=10**9)


@given(bands, seeds)
@settings(max_examples=60, deadline=None)
def test_generated_blueprints_are_buildable_deterministic_and_round_trip(band: str, seed: int) -> None:
    bp = generate(band, seed)
    assert problems(bp) == []
    assert generate(band, seed) == bp
    assert parse_blueprint(bp.to_json()) == bp
    assert bp.chest_contents() == bp.needs()
    low, high = BANDS[band].layers
    assert low <= depth(bp) <= high


def test_bands_grow_in_size_and_depth() -> None:
    mean = {b: sum(len(generate(b, s).blocks) for s in range(40)) / 40 for b in BANDS}
    assert mean["easy"] < mean["medium"] < mean["hard"]
    assert all(b.facing is None for s in range(40) for b in generate("easy", s).blocks)
    assert any(b.facing for s in range(40) for b in generate("medium", s).blocks)


@given(bands, seeds)
@settings(max_examples=40, deadline=None)
def test_build_order_only_ever_places_supported_blocks(band: str, seed: int) -> None:
    bp = generate(band, seed)
    placed: dict[tuple[int, int, int], str] = {}
    for block in build_order(bp):
        assert held_up(block.material, block.pos, placed) is None
        placed[block.pos] = block.material
    assert len(placed) == len(bp.blocks)


@given(bands, seeds, st.data())
@settings(max_examples=60, deadline=None)
def test_metrics_follow_their_definitions(band: str, seed: int, data: st.DataObject) -> None:
    bp = generate(band, seed)
    exact = blueprint_as_built(bp)
    assert completion_rate(bp, exact) == 1.0 and view_hit_rate(bp, exact) == 1.0
    assert completion_rate(bp, {}) == 0.0 and view_hit_rate(bp, {}) == 0.0
    kept = data.draw(st.lists(st.sampled_from(sorted(exact)), unique=True))
    partial = {p: exact[p] for p in kept}
    assert completion_rate(bp, partial) == len(kept) / len(bp.blocks)
    assert 0.0 <= view_hit_rate(bp, partial) <= 1.0


def test_completion_needs_material_and_facing() -> None:
    bp = Blueprint(name="t", blocks=(Block(material="stone", x=0, y=0, z=0),
                                     Block(material="oak_stairs", x=1, y=0, z=0, facing="N")))
    assert completion_rate(bp, {(0, 0, 0): Placed("stone"), (1, 0, 0): Placed("oak_stairs", "S")}) == 0.5
    assert completion_rate(bp, {(0, 0, 0): Placed("dirt"), (1, 0, 0): Placed("oak_stairs", "N")}) == 0.5


def test_view_hit_rate_by_hand() -> None:
    # a dirt block with a poppy on it, built without the poppy: the four side views see half,
    # the top sees dirt where a poppy should be (0), the bottom sees dirt (1): (4 * 0.5 + 0 + 1) / 6
    bp = Blueprint(name="t", blocks=(Block(material="dirt", x=0, y=0, z=0), Block(material="poppy", x=0, y=1, z=0)))
    assert len(VIEWS) == 6
    assert view_hit_rate(bp, {(0, 0, 0): Placed("dirt")}) == pytest.approx(0.5)
    # an extra block beside it lowers every view but the one looking along its row
    extra = {**blueprint_as_built(bp), (1, 0, 0): Placed("stone")}
    assert view_hit_rate(bp, extra) < 1.0


def test_unbuildable_blueprints_are_named() -> None:
    floating = Blueprint(name="t", blocks=(Block(material="stone", x=0, y=1, z=0),))
    assert problems(floating) == ["nothing under (0, 1, 0) to rest on"]
    on_flower = Blueprint(name="t", blocks=(Block(material="poppy", x=0, y=0, z=0), Block(material="stone", x=0, y=1, z=0)))
    assert "holds nothing up" in problems(on_flower)[0]
    short = Blueprint(name="t", blocks=(Block(material="stone", x=0, y=0, z=0),), chest=(ChestStack(material="dirt", count=1),))
    assert problems(short) == ["the chest holds 0 stone, the blueprint uses 1"]
    with pytest.raises(ValueError, match="cannot be built"):
        build_order(floating)


@pytest.mark.parametrize(("text", "says"), [
    ("[]", "a blueprint is a JSON object"),
    ("{", "not JSON"),
    ('{"name": "a", "blocks": []}', "blocks"),
    ('{"name": "a", "blocks": [{"material": "tnt", "x": 0, "y": 0, "z": 0}]}', "material"),
    ('{"name": "a", "blocks": [{"material": "stone", "x": 99, "y": 0, "z": 0}]}', "blocks.0.x"),
    ('{"name": "a", "blocks": [{"material": "oak_stairs", "x": 0, "y": 0, "z": 0}]}', "needs a facing"),
    ('{"name": "a", "blocks": [{"material": "stone", "x": 0, "y": 0, "z": 0, "facing": "N"}]}', "has no facing"),
    ('{"name": "a", "blocks": [{"material": "stone", "x": 0, "y": 0, "z": 0},'
     ' {"material": "dirt", "x": 0, "y": 0, "z": 0}]}', "two blocks at (0, 0, 0)"),
    ('{"name": "a", "blocks": [{"material": "stone", "x": 0, "y": 0, "z": 0}], "extra": 1}', "extra"),
])
def test_bad_blueprints_get_one_line(text: str, says: str) -> None:
    with pytest.raises(BlueprintError, match=None) as caught:
        parse_blueprint(text, source="f.json")
    message = str(caught.value)
    assert message.startswith("f.json: ") and says in message and "\n" not in message


@given(st.one_of(st.text(max_size=300), st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20).map(json.dumps)))
@settings(max_examples=200, deadline=None)
def test_parser_never_crashes(text: str) -> None:
    try:
        parse_blueprint(text)
    except BlueprintError as exc:
        assert "\n" not in str(exc)


def test_files_are_bounded_and_read(tmp_path: Path) -> None:
    good = tmp_path / "hut.json"
    good.write_text(generate("easy", 1).to_json())
    assert load_blueprint(good) == generate("easy", 1)
    big = tmp_path / "big.json"
    big.write_bytes(b" " * (MAX_BYTES + 1))
    with pytest.raises(BlueprintError, match="over the limit"):
        load_blueprint(big)
    with pytest.raises(BlueprintError, match="cannot read"):
        load_blueprint(tmp_path / "missing.json")

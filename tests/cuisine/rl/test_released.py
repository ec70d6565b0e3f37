"""The policies released with the package: present, unaltered, and scoring what their metadata says.

The released CoS is greedy play under `mindagent eval`'s protocol (seeded orders, three 60-step
episodes per tau), so it is deterministic: the test asks for the recorded figure to the last digit
the JSON holds (within 1e-9, float summation order aside).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cuisineworld.adapter.rl import released
from cuisineworld.adapter.rl.released import ReleaseMismatch, is_released, released_names, sha256_of
from cuisineworld.adapter.rl.trained import PolicyLoadError, load_policy

EXPECTED = ("level_1", "level_4")
MAX_BYTES = 400_000  # a few hundred KB each: weights only, no optimizer state


def test_the_paper_levels_are_released_small_and_hashed():
    assert set(EXPECTED) <= set(released_names())
    for name in released_names():
        meta = released.release_meta(name)
        model = released.RELEASE_DIR / f"{name}.zip"
        assert model.stat().st_size == meta["bytes"] <= MAX_BYTES
        assert sha256_of(model) == meta["sha256"]
        assert meta["level"] == name and meta["agents"] == 2 and meta["backend"] == "sb3"
        for key in ("algo", "reward", "steps", "seed", "command", "versions"):
            assert meta.get(key) not in (None, "", {}), key
        assert meta["command"].startswith("mindagent train ") and isinstance(meta["seed"], int) and meta["steps"] > 0
        evaluation = meta["evaluation"]
        assert len(evaluation["rates"]) == len(evaluation["taus"]) == 5
        assert evaluation["cos"] == pytest.approx(sum(evaluation["rates"]) / 5, abs=1e-12)


def test_a_tampered_release_is_refused_before_loading(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """One line naming both hashes; nothing is unpickled (this runs without the rl extra)."""
    shutil.copy(released.RELEASE_DIR / "level_1.json", tmp_path / "level_1.json")
    body = bytearray((released.RELEASE_DIR / "level_1.zip").read_bytes())
    body[len(body) // 2] ^= 0xFF
    (tmp_path / "level_1.zip").write_bytes(bytes(body))
    monkeypatch.setattr(released, "RELEASE_DIR", tmp_path)
    with pytest.raises(ReleaseMismatch) as caught:
        load_policy("policy:level_1")
    message = str(caught.value)
    assert "\n" not in message and "refusing to load" in message
    assert json.loads((tmp_path / "level_1.json").read_text())["sha256"][:16] in message


def test_only_bare_names_mean_a_release(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    assert is_released("level_4") and not is_released("./level_4") and not is_released("runs/level_4")
    assert not is_released("level_99")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(PolicyLoadError, match="released policies: .*level_1"):
        load_policy("policy:level_99")
    with pytest.raises(PolicyLoadError, match="no model file"):
        load_policy("policy:./level_4")  # a folder path, and there is no such folder here


@pytest.mark.parametrize("name", EXPECTED)
def test_each_released_policy_scores_its_metadata(name: str):
    pytest.importorskip("sb3_contrib")
    from cuisineworld.adapter.rl.seeds import evaluate_cos

    meta = released.release_meta(name)
    score, rates = evaluate_cos(f"policy:{name}", meta["level"], meta["agents"], rules=meta["rules"])
    assert list(rates) == pytest.approx(meta["evaluation"]["rates"], abs=1e-9)
    assert score == pytest.approx(meta["evaluation"]["cos"], abs=1e-9)

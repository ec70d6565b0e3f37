"""SB3's own constructor, ``make_vec_env("CuisineWorld-v0", ...)``, builds envs MaskablePPO trains on.

`make_vec_env` asks every env for ``render_mode="rgb_array"`` and wraps it in `Monitor`, and
MaskablePPO finds the masks through those wrappers; the level goes in ``env_kwargs``.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")


@pytest.mark.slow
def test_maskable_ppo_trains_on_make_vec_env_with_the_registered_id():
    import torch
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    from stable_baselines3.common.env_util import make_vec_env

    from cuisineworld.adapter.rl import ENV_ID

    torch.set_num_threads(1)
    venv = make_vec_env(ENV_ID, n_envs=2, seed=0, env_kwargs={"level": "level_4", "n_agents": 2, "reward": "dense"})
    assert venv.get_attr("render_mode") == ["rgb_array", "rgb_array"]
    assert is_masking_supported(venv)
    model = MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=32, n_epochs=1, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [16]})
    model.learn(total_timesteps=128)
    assert model.num_timesteps == 128
    obs = venv.reset()
    for _ in range(20):  # the trained policy keeps to the masks it is given
        masks = get_action_masks(venv)
        assert masks.shape == (2, 2 * venv.get_attr("table")[0].size)
        action, _ = model.predict(obs, action_masks=masks)
        rows = masks.reshape(2, 2, -1)
        assert all(rows[e, a, action[e, a]] for e in range(2) for a in range(2))
        obs, _, _, _ = venv.step(action)
    frames = venv.get_images()
    assert len(frames) == 2 and all(f.dtype == np.uint8 and f.ndim == 3 for f in frames)

"""sb3-contrib's MaskablePPO trains on the batched kitchens through the SB3 VecEnv adapter."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")


@pytest.mark.slow
def test_maskable_ppo_trains_on_the_batched_vec_env():
    import torch
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    from cuisineworld.adapter.rl.batched_sb3 import make_batched_vec_env

    torch.set_num_threads(1)
    venv = make_batched_vec_env("level_1", n_agents=2, num_envs=16, tau=(1.0, 2.0), reward="potential", seed=0)
    assert is_masking_supported(venv)
    model = MaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=256, n_epochs=1, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [32]})
    model.learn(total_timesteps=2048)
    assert model.num_timesteps == 2048
    # the policy picks legal actions only: agent0's command (run first) is always carried out
    obs = venv.reset()
    endings = 0
    for _ in range(80):
        action, _ = model.predict(obs, action_masks=get_action_masks(venv))
        obs, _, dones, infos = venv.step(action)
        assert venv.venv.last_accepted[:, 0].all()
        for info in (info for info, done in zip(infos, dones, strict=True) if done):
            assert info["TimeLimit.truncated"] and info["terminal_observation"].shape == obs.shape[1:]
            assert set(info["episode_counts"]) == {"completed", "failed", "active"} and "episode" in info
            endings += 1
    assert endings == 16  # one 60-step episode end per kitchen in 80 steps


@pytest.mark.slow
def test_batched_vec_env_masks_are_respected_by_the_engine_order():
    from cuisineworld.adapter.rl.batched_sb3 import BatchedVecEnv

    venv = BatchedVecEnv("level_3", n_agents=2, num_envs=32)
    venv.seed(5)
    venv.reset()
    rng = np.random.default_rng(5)
    for _ in range(120):
        masks = np.stack(venv.env_method("action_masks")).reshape(32, 2, -1)
        actions = np.argmax(masks * (1.0 + rng.random(masks.shape)), axis=2)
        venv.step_async(actions)
        venv.step_wait()
        assert venv.last_accepted[:, 0].all()

"""Construction on a server of someone else's (slow tier): a second embedded server started the way
such a server runs (its own real-time clock, stock rights, no admin token: the bots are visitors)
whose owner prepared the site and the materials chest. The bots read the chest by opening it and
the site by looking at it, and the planner builds an easy task there to C = 1, as at home.
"""

from __future__ import annotations

import os
import shutil

import pytest

from mindagent.core.spec import GameSpec
from minecraft.domain import DOMAIN
from minecraft.families.construction import ConstructionSession
from minecraft.families.construction_site import SiteError
from minecraft.server_process import EmbeddedServer, KitchenConfig
from minecraft.transport import NODE_DIR

pytestmark = [pytest.mark.slow, pytest.mark.asyncio]
LEVEL = "construction:easy:3"


@pytest.fixture(autouse=True)
def _node() -> None:
    if shutil.which("node") is None or not (NODE_DIR / "node_modules" / "mineflayer").is_dir():
        message = "needs Node 18+ and `npm ci` in minecraft/node"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)


async def test_an_easy_task_is_built_on_a_foreign_server_its_owner_prepared() -> None:
    theirs = EmbeddedServer(KitchenConfig(seed=0, clock="realtime", guard=False))
    address = await theirs.start()
    session: ConstructionSession | None = None
    try:
        spec = DOMAIN.validate(GameSpec("minecraft", level=LEVEL, agents=2, options={"mc_host": address.host,
                                        "mc_port": address.port, "mc_site": "0,0,0"}))
        blueprint = DOMAIN.make_session(spec)
        assert isinstance(blueprint, ConstructionSession)
        materials = ",".join(f"{m}:{n}" for m, n in blueprint.blueprint.chest_contents().items())
        prepared = await theirs.admin(f"site setup {materials}")  # the owner's part, on their console
        chest = ",".join(str(c) for c in prepared["chestPos"])
        spec = spec.with_(options={**spec.options, "mc_site": chest})
        session = DOMAIN.make_session(spec)
        assert isinstance(session, ConstructionSession) and session.site.foreign
        planner = DOMAIN.make_policy("planner", 0)
        await session.reset(seed=0)
        assert session.world.chest == blueprint.blueprint.chest_contents() and session.world.site == {}
        assert list(session.origin) == prepared["origin"]
        while not session.done:
            await session.step(planner.act(session))
        assert session.score == 1.0 and session.vhr == 1.0, session.state_text()
        site = await theirs.admin("site state")  # what their server holds, not what the bots think
        assert len(site["blocks"]) == len(session.blueprint.blocks) and not site["chest"]
        assert session.episode_header()["site"]["server"] == "foreign"
        with pytest.raises(SiteError, match="not clear"):  # a visitor cannot clear the site for another episode
            await session.reset()
    finally:
        if session is not None:
            await session.aclose()
        await theirs.stop()

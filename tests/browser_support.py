"""What every browser test needs: Debian's Chromium, the flags it runs with here, and axe-core's
scan (installed by `scripts/setup.sh --dev` through npm into tests/browser)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
AXE = Path(__file__).resolve().parent / "browser" / "node_modules" / "axe-core" / "axe.min.js"


def need_browser(require: Any) -> None:
    """Playwright and Chromium, or the test cannot run: skipped on a laptop, failed in CI."""
    require("playwright", "pip install playwright (the browser itself is Debian's chromium)")
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"no chromium at {CHROMIUM}")
        pytest.skip(f"no chromium at {CHROMIUM} (apt-get install chromium)")


async def serious_violations(page: Any) -> list[dict[str, Any]]:
    """axe-core's serious and critical findings on the page as it is now (the scan is injected once)."""
    if not await page.evaluate("() => !!window.axe"):
        await page.add_script_tag(path=str(AXE))
    result = await page.evaluate("async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
                                 ".map(v => ({id: v.id, impact: v.impact, nodes: v.nodes.map(n => n.target.join(' '))}))")
    return [v for v in result if v["impact"] in ("serious", "critical")]

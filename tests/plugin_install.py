"""Helpers for the tests of the example plugin (`examples/parcels`), shared by their conftest."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "parcels"


def mindagent(env: dict[str, str], *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """The `mindagent` command line in a fresh process with `env` (whose PYTHONPATH has the plugin)."""
    return subprocess.run([sys.executable, "-c", "from mindagent.cli import main; main()", *args], env=env,
                          capture_output=True, text=True, timeout=timeout)

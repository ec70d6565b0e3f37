"""The example game `examples/parcels` installed the way a user installs a plugin: a real pip
install of its own folder (into a temporary target, so the machine's environment is untouched),
found by the registry through its ``mindagent.domains`` entry point."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from plugin_install import EXAMPLE


@pytest.fixture(scope="session")
def parcels_path(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    target = tmp_path_factory.mktemp("parcels-install")
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
                    "--disable-pip-version-check", "--target", str(target), str(EXAMPLE)],
                   check=True, capture_output=True, timeout=300)
    # the build leaves its own folders in the example; keep the checkout clean
    for leftover in (EXAMPLE / "build", *EXAMPLE.glob("*.egg-info")):
        subprocess.run(["rm", "-rf", str(leftover)], check=False)
    yield target


@pytest.fixture
def parcels_env(parcels_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(parcels_path), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env



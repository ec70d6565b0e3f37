"""The reliability suite replays the attacks of issue 17 (slow tier): every test here is bounded in
time and count and targets only 127.0.0.1."""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "reliability" in str(item.path):
            item.add_marker(pytest.mark.slow)

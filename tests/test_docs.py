"""The README stays a front door, and its doors open.

The README is what a newcomer reads first and what packaging shows, so it stays short and keeps its
two commands exactly; everything else lives in the docs site, and a README link to a page that
moved would send people nowhere. The site itself is built with `mkdocs build --strict` in CI, which
checks the links between pages; these fast checks cover what that build does not see, including
that the generated command-line reference leaves out no command and no option.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import typer

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"

#: The README's first lines: the title and the two commands (the game, the tests). They are the
#: project's promise to a new machine; CI runs the second one.
README_HEAD = """\
# MindAgent

```bash
bash scripts/setup.sh && mindagent serve --domain cuisineworld --agents 4     # the game, at http://127.0.0.1:8765/
bash scripts/setup.sh --dev && python3 -m pytest                              # the tests (what CI runs)
```
"""

_LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.M)
_FENCE = re.compile(r"^```.*?^```", re.M | re.S)


def _internal_links(markdown: str) -> list[str]:
    """Link targets that point into the repository (not a web address, not a mail address)."""
    found = _LINK.findall(_FENCE.sub("", markdown))
    return [target for target in found if not re.match(r"^[a-z][a-z0-9+.-]*:", target)]


def _slug(heading: str) -> str:
    """The anchor mkdocs' table of contents gives a heading (Markdown's own slugify)."""
    text = re.sub(r"[`*_]", "", heading)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def _anchors(page: Path) -> set[str]:
    return {_slug(h) for h in _HEADING.findall(_FENCE.sub("", page.read_text(encoding="utf-8")))}


def test_readme_is_short_and_starts_with_the_two_commands() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) < 200
    assert text.startswith(README_HEAD)


def test_every_internal_readme_link_reaches_an_existing_page() -> None:
    links = _internal_links(README.read_text(encoding="utf-8"))
    assert any(link.startswith("docs/") and ".md" in link for link in links), "the README links into the site"
    broken = []
    for link in links:
        path, _, anchor = link.partition("#")
        target = (ROOT / path).resolve()
        if not target.is_file():
            broken.append(f"{link}: no such file")
        elif path.startswith("docs/") and target.suffix not in {".md", ".png"}:
            broken.append(f"{link}: not a docs page")
        elif anchor and anchor not in _anchors(target):
            broken.append(f"{link}: {path} has no heading #{anchor}")
    assert not broken, "\n".join(broken)


def test_every_page_in_the_site_navigation_exists() -> None:
    nav = re.findall(r":\s*(\S+\.md)\s*$", (ROOT / "mkdocs.yml").read_text(encoding="utf-8"), re.M)
    assert "index.md" in nav
    generated = {"reference/cli.md"}  # written at build time by docs/hooks/cli_reference.py
    missing = [page for page in nav if page not in generated and not (ROOT / "docs" / page).is_file()]
    assert not missing, missing


def test_python_dash_m_mindagent_prints_the_command_list() -> None:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    done = subprocess.run([sys.executable, "-m", "mindagent", "--help"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Usage" in done.stdout
    for command in ("run", "eval", "serve", "replay"):
        assert re.search(rf"\b{command}\b", done.stdout), command


def _hook() -> ModuleType:
    spec = importlib.util.spec_from_file_location("cli_reference", ROOT / "docs" / "hooks" / "cli_reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _commands(command: Any, path: str) -> Iterator[tuple[str, Any]]:
    yield path, command
    if hasattr(command, "list_commands"):
        ctx = command.context_class(command, info_name=path.split()[-1])
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is not None and not sub.hidden:
                yield from _commands(sub, f"{path} {name}")


def test_the_generated_cli_reference_has_every_command_and_option() -> None:
    from mindagent.cli import app

    page = _hook().render(app)
    seen = 0
    for path, command in _commands(typer.main.get_command(app), "mindagent"):
        if path != "mindagent":
            assert f"`{path}`" in page, f"no section for {path}"
        for param in command.params:
            for opt in getattr(param, "opts", []):
                if opt.startswith("-"):
                    assert re.search(rf"(?<![\w-]){re.escape(opt)}(?![\w-])", page), f"{path}: {opt} missing from the reference"
                    seen += 1
    assert seen > 100  # run, eval and serve alone have dozens of options

"""mkdocs hook: the command-line reference page, written from the command tree at build time.

A hand-copied flag list goes stale the day a flag changes. This hook walks the click command tree
that typer builds from `mindagent.cli.app` and puts every command's own `--help` text on one
generated page (`reference/cli.md`), so the page says exactly what the installed program says.

It uses click's plain formatter rather than typer's rich one: rich prints boxes to a terminal,
while the site wants plain text in a code block. Commands are listed in the order the program
lists them, so the page (and its anchors) change only when the commands do.
"""

from __future__ import annotations

import logging
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

if TYPE_CHECKING:  # mkdocs is needed to build the site, not to render the page (tests do that)
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import Files

log = logging.getLogger("mkdocs.hooks.cli_reference")

#: Where the generated page lands inside the site (mkdocs.yml's nav names it).
PAGE = "reference/cli.md"
#: The width the help text is wrapped at: wide enough for the option tables, narrow enough to read.
WIDTH = 100

INTRO = """\
# Command-line reference

Generated when the site is built, from the commands themselves: each section is what
`mindagent COMMAND --help` prints (`python -m mindagent` runs the same program). Every command
also accepts `--help`; `mindagent -v ...` logs debug details to stderr.
"""


def _context(command: Any, name: str, parent: Any = None) -> Any:
    """A context of the command's own click (typer may ship a vendored copy of click, so the
    classes come from the command, never from an `import click` here)."""
    return command.context_class(command, info_name=name, parent=parent, terminal_width=WIDTH, max_content_width=WIDTH)


def _walk(command: Any, ctx: Any) -> Iterator[tuple[Any, Any]]:
    """The command and, depth first, every visible sub-command with its own context."""
    yield command, ctx
    if hasattr(command, "list_commands"):
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is None or sub.hidden:
                continue
            yield from _walk(sub, _context(sub, name, ctx))


def _plain_help(command: Any, ctx: Any) -> str:
    """The help click itself would print: typer's own `format_help` switches to rich boxes when rich
    is installed, so the first `format_help` found past typer's classes is the one called."""
    formatter = ctx.make_formatter()
    for klass in type(command).__mro__:
        if klass.__module__ != "typer.core" and "format_help" in vars(klass):
            vars(klass)["format_help"](command, ctx, formatter)
            break
    else:
        raise RuntimeError(f"{ctx.command_path}: no click format_help found on {type(command).__name__}")
    text: str = formatter.getvalue()
    return text.rstrip()


def _summary(command: Any) -> str:
    """The first paragraph of a command's help, as prose under its heading (may be empty)."""
    text = (command.help or "").strip()
    first = text.split("\n\n", 1)[0].replace("\n", " ").strip()
    return first.replace("<", "&lt;").replace(">", "&gt;")


def render(app: typer.Typer) -> str:
    """The whole reference page for a typer app, as Markdown."""
    root = typer.main.get_command(app)
    root_ctx = _context(root, "mindagent")
    parts = [INTRO]
    for command, ctx in _walk(root, root_ctx):
        depth = len(ctx.command_path.split()) - 1
        heading = "#" * min(2 + max(depth - 1, 0), 4)
        title = "mindagent (all commands)" if depth == 0 else ctx.command_path
        parts.append(f"{heading} `{title}`\n")
        summary = _summary(command)
        if summary and depth > 0:
            parts.append(summary + "\n")
        parts.append("```text\n" + _plain_help(command, ctx) + "\n```\n")
    return "\n".join(parts)


def _without_checkout_path(text: str, root: str) -> str:
    """A default computed from the checkout (the shipped demos' folder) would put the build
    machine's path on the page, wrapped wherever click's formatter broke the line; the page should
    read the same wherever it is built, so the path becomes ``<checkout>``."""
    wrapped = r"(?:\n\s*)?".join(re.escape(char) for char in root)
    return re.sub(wrapped, "<checkout>", text)


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add the generated page; the repository root goes first on the path so the worktree's own
    code is documented, not some other installed copy."""
    from mkdocs.structure.files import File

    root = str(Path(config.config_file_path).resolve().parent)
    if sys.path[0] != root:
        sys.path.insert(0, root)
    from mindagent.cli import app

    content = _without_checkout_path(render(app), root)
    log.debug("cli reference: %d lines", content.count("\n"))
    files.append(File.generated(config, PAGE, content=content))
    return files

"""Shared CLI pieces: the error console and the one-line exit for bad input."""

from __future__ import annotations

from typing import NoReturn

import typer
from rich.console import Console
from rich.markup import escape

from mindagent.llm.redact import redact_text

err = Console(stderr=True, soft_wrap=True, highlight=False)


def fail(message: str, code: int = 2) -> NoReturn:
    """One red line on stderr and exit (no traceback for someone else's bad input).

    The message is plain text: brackets from a file's content or a path are shown, not parsed as
    markup (a ``[/x]`` in them would otherwise raise inside Rich). Secrets the process knows are
    masked: the message may quote an exception's text."""
    err.print(f"[red]error:[/red] {escape(redact_text(message))}", highlight=False)
    raise typer.Exit(code)

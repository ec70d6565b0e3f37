"""Turn a repetition-free GBNF grammar into one regular expression, to test its whole language.

Our command grammars have no ``*``, ``+``, ``?`` and no recursion, so their language is a finite
set of strings and equals a regex built by substituting rules into the root. A grammar that uses
a repetition operator is refused here: that is what lets a model run on past one line per agent.
"""

from __future__ import annotations

import re

_TOKEN = re.compile(r'\s*(?:(?P<lit>"(?:\\.|[^"\\])*")|(?P<name>[A-Za-z0-9-]+)|(?P<op>[|()*+?]))')


class RepetitionError(ValueError):
    """The grammar repeats (``*``, ``+``, ``?`` or a recursive rule): its language is unbounded."""


def _unescape(lit: str) -> str:
    body = lit[1:-1]
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "r": "\r", "t": "\t"}.get(m[1], m[1]), body)


def gbnf_to_regex(gbnf: str, root: str = "root") -> str:
    rules = {}
    for line in gbnf.strip().splitlines():
        name, _, body = line.partition("::=")
        rules[name.strip()] = body.strip()

    def expand(name: str, stack: tuple[str, ...]) -> str:
        if name in stack:
            raise RepetitionError(f"rule {name} is recursive")
        out = []
        for m in _TOKEN.finditer(rules[name]):
            if m["lit"]:
                out.append(re.escape(_unescape(m["lit"])))
            elif m["name"]:
                out.append("(?:" + expand(m["name"], (*stack, name)) + ")")
            elif m["op"] in "*+?":
                raise RepetitionError(f"rule {name} uses {m['op']}")
            else:
                out.append("(?:" if m["op"] == "(" else m["op"])
        return "".join(out)

    return expand(root, ())

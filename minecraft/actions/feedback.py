"""One line of feedback for the model about a performed action, from the bridge's answer.

The Node side answers with small JSON results (`{"placed": "oak_planks", "position": [3, 5, -2]}`)
or a failure code and reason; a family that offers library actions can show the model either as
one line without writing its own wording for each action.
"""

from __future__ import annotations

from typing import Any

from minecraft.actions.parse import ActionCall

# longest rendering of one value (a container's contents can be long)
MAX_VALUE_CHARS = 160


def _value(value: Any) -> str:
    if isinstance(value, dict):
        text = ", ".join(f"{k} {_value(v)}" for k, v in sorted(value.items(), key=lambda kv: str(kv[0])))
        text = text or "nothing"
    elif isinstance(value, list | tuple):
        text = " ".join(_value(v) for v in value) if all(not isinstance(v, dict | list) for v in value) \
            else "; ".join(_value(v) for v in value)
        text = text or "none"
    elif isinstance(value, float):
        text = f"{value:g}"
    else:
        text = str(value)
    return text if len(text) <= MAX_VALUE_CHARS else text[:MAX_VALUE_CHARS - 3] + "..."


def success_line(call: ActionCall, result: Any) -> str:
    """``placeBlock(Alex, oak_planks, 3, 5, -2) done: placed oak_planks; position 3 5 -2``."""
    if isinstance(result, dict) and result:
        facts = "; ".join(f"{k.replace('_', ' ')} {_value(v)}" for k, v in result.items() if v is not None)
        return f"{call.text} done: {facts}" if facts else f"{call.text} done"
    return f"{call.text} done"


def failure_line(call: ActionCall, code: str, message: str) -> str:
    """``digBlock(Steve, 1, 5, 2) failed (not_found): there is no block at (1, 5, 2)``."""
    reason = " ".join(message.split())
    return f"{call.text} failed ({code}): {reason[:MAX_VALUE_CHARS]}"

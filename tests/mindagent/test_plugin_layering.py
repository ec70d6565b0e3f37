"""The house's layering, checked on the source: the layers above the domain contract import no
game, the CLI loads no game on import, and optional hooks are declared capabilities (never looked
up by name with `getattr`)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from mindagent.core import capabilities, registry
from mindagent.core.domain import Domain, DomainSession

ROOT = Path(__file__).resolve().parents[2]
LAYERS = ("core", "dispatch", "evaluation", "recordings", "llm", "server", "cli")
#: The kitchen's rules and data packages, beside what each plugin names as its domain's module.
KITCHEN_PACKAGES = ("cuisineworld", "levels", "demos", "feedback")


def game_packages() -> set[str]:
    names = set(KITCHEN_PACKAGES)
    for plugin in registry.plugins():
        module = plugin.domain.partition(":")[0]
        names.add(module.rsplit(".", 1)[0] if module.count(".") else module)
    return names


def layer_files() -> list[Path]:
    files = sorted((ROOT / "mindagent").glob("*.py"))
    for layer in LAYERS:
        files += sorted((ROOT / "mindagent" / layer).rglob("*.py"))
    return files


def imported_modules(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
    return found


def test_the_game_packages_are_known() -> None:
    games = game_packages()
    assert {"cuisineworld.adapter", "minecraft", "cuisineworld"} <= games


def test_no_layer_above_the_contract_imports_a_game() -> None:
    games = game_packages()
    offenders = []
    for path in layer_files():
        for line, module in imported_modules(path):
            if any(module == g or module.startswith(g + ".") for g in games):
                offenders.append(f"{path.relative_to(ROOT)}:{line}: imports {module}")
    assert not offenders, "\n".join(offenders)


def test_importing_the_cli_loads_no_game() -> None:
    games = sorted(game_packages())
    code = ("import sys, mindagent.cli, mindagent.core.registry as r; r.names(); "
            f"games = {games!r}; "
            "print(sorted(m for m in sys.modules if any(m == g or m.startswith(g + '.') for g in games)))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert done.stdout.strip() == "[]"


def hook_names() -> set[str]:
    """Every member name of the contract and its capability protocols."""
    names: set[str] = set()
    for kind in (*capabilities.SESSION_CAPABILITIES, capabilities.ActsFor, capabilities.TakesReplies, Domain,
                 DomainSession):
        names |= {n for n in vars(kind) if not n.startswith("__")}
        names |= set(getattr(kind, "__annotations__", {}))
    names |= {"run_notes", "serve_live_view", "act_for", "take_replies"}
    return names


def test_hooks_are_never_looked_up_by_name() -> None:
    hooks = hook_names()
    offenders = []
    for path in [*layer_files(), *sorted((ROOT / "mindagent" / "cuisine").rglob("*.py")),
                 *sorted((ROOT / "minecraft").glob("*.py"))]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr")
                    and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) and node.args[1].value in hooks):
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.func.id}(..., {node.args[1].value!r})")
    assert not offenders, "\n".join(offenders)


def test_hooks_found_by_the_old_getattr_are_declared_capabilities() -> None:
    assert callable(capabilities.LiveView.serve_live_view) and callable(capabilities.ActsFor.act_for)
    assert callable(capabilities.TakesReplies.take_replies) and "run_notes" in vars(Domain)


def test_the_room_reads_in_one_sitting() -> None:
    """`server/room.py` was 874 lines mixing seating, clock, decisions, state and questionnaire;
    it and the modules it was split into stay under 400 lines each."""
    server = ROOT / "mindagent" / "server"
    for name in ("room", "seating", "clock", "decisions", "encoding", "questionnaire", "settings"):
        lines = len((server / f"{name}.py").read_text(encoding="utf-8").splitlines())
        assert lines < 400, f"server/{name}.py has {lines} lines"

"""A third game added with no line changed in `mindagent/`: the example plugin runs through
`domains`, `run`, `replay`, `eval` and its own option, and keeps the contract."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from plugin_install import ROOT, mindagent


def test_the_registry_finds_the_plugin_through_its_entry_point(parcels_env: dict[str, str]) -> None:
    listed = mindagent(parcels_env, "domains")
    assert listed.returncode == 0, listed.stderr
    assert "parcels" in listed.stdout and "--houses" in listed.stdout
    help_text = mindagent(parcels_env, "run", "--help").stdout
    assert "--houses" in help_text and "Parcels options" in help_text


def test_run_replay_and_its_own_option(parcels_env: dict[str, str], tmp_path: Path) -> None:
    ran = mindagent(parcels_env, "run", "--domain", "parcels", "--houses", "4", "--agents", "3", "--model", "planner",
                    "--json", "--out-dir", str(tmp_path))
    assert ran.returncode == 0, ran.stderr
    summary = json.loads(ran.stdout.strip().splitlines()[-1])
    assert summary["domain"] == "parcels" and summary["agents"] == 3 and summary["steps"] == 40
    assert summary["completed"] > 0 and summary["model_errors"] == 0
    header = json.loads(Path(summary["recording"]).read_text().splitlines()[0])
    assert header["options"] == {"houses": 4} or header.get("spec", {}).get("options") == {"houses": 4} \
        or '"houses": 4' in json.dumps(header)
    replayed = mindagent(parcels_env, "replay", summary["recording"])
    assert replayed.returncode == 0 and "identically" in replayed.stdout, replayed.stdout + replayed.stderr


def test_eval_sweeps_the_plugin(parcels_env: dict[str, str], tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    swept = mindagent(parcels_env, "eval", "--domain", "parcels", "--agents", "2,3", "--model", "planner",
                      "--episodes", "1", "--taus", "1.0,2.0", "--out", str(out), timeout=300)
    assert swept.returncode == 0, swept.stderr
    results = json.loads(out.read_text())
    assert results["config"]["domain"] == "parcels" and results["config"]["levels"] == ["street"]
    assert "street" in swept.stdout and "CoS" in swept.stdout


def test_options_belong_to_their_game(parcels_env: dict[str, str]) -> None:
    refused = mindagent(parcels_env, "run", "--domain", "cuisineworld", "--houses", "3")
    assert refused.returncode == 2 and "cuisineworld takes no houses" in refused.stderr + refused.stdout
    bad = mindagent(parcels_env, "run", "--domain", "parcels", "--houses", "12")
    assert bad.returncode == 2 and "--houses" in bad.stderr + bad.stdout


def test_the_plugin_keeps_the_contract(parcels_path: Path) -> None:
    code = (f"import sys; sys.path.insert(0, {str(parcels_path)!r})\n"
            "from mindagent import domains\n"
            "from mindagent.conformance import domain_api_test_sync\n"
            "from mindagent.core.spec import GameSpec\n"
            "domain = domains.get('parcels')\n"
            "report = domain_api_test_sync(lambda: domains.make_session(GameSpec('parcels', agents=2, steps=30, "
            "options={'houses': 3})), policy=domain.make_policy('planner', 0))\n"
            "print(' '.join(report.checks))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "capabilities" in done.stdout and "reset_determinism" in done.stdout


def test_the_core_never_names_the_plugin() -> None:
    for path in (ROOT / "mindagent").rglob("*"):
        if path.is_file() and path.suffix in (".py", ".js", ".html", ".css"):
            assert "parcels" not in path.read_text(encoding="utf-8", errors="replace").lower(), path

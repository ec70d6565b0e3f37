"""The order stream: per-tau timing, determinism per (tau, seed), crediting and expiry."""

from minecraft.orders import TAUS, OrderBook, interval_for, lifetime_for


def test_tau_table_keeps_the_reference_setting_at_tau_2() -> None:
    assert [interval_for(t) for t in TAUS] == [5, 8, 10, 13, 15]
    assert [lifetime_for(t) for t in TAUS] == [8, 12, 15, 20, 23]
    assert (interval_for(2.0), lifetime_for(2.0)) == (10, 15)


def stream(tau: float, seed: int, steps: int = 60) -> list[tuple[int, str]]:
    book = OrderBook(tau=tau, seed=seed)
    book.reset(0, {})
    for step in range(1, steps + 1):
        book.advance(step, {})
    return [(o.created, o.dish) for o in book.failed + book.active]


def test_same_tau_and_seed_give_the_same_stream() -> None:
    assert stream(1.0, 7) == stream(1.0, 7)
    assert stream(1.0, 7) != stream(1.0, 8)
    created = [c for c, _ in stream(2.0, 0)]
    assert created == [0, 10, 20, 30, 40, 50, 60]


def test_order_completes_when_chest_exceeds_credit() -> None:
    book = OrderBook(tau=2.0, seed=0)
    book.reset(0, {"cooked_beef": 3})
    dish = book.active[0].dish
    chest = {"cooked_beef": 3}
    done, failed = book.advance(1, chest)
    assert (done, failed) == ([], [])
    chest[dish] = chest.get(dish, 0) + 1
    done, _ = book.advance(2, chest)
    assert [o.dish for o in done] == [dish]
    assert book.credited[dish] == chest[dish]
    # The same item is not credited twice.
    book.active.append(type(done[0])(dish, 2, 15))
    done, _ = book.advance(3, chest)
    assert done == []


def test_order_fails_when_its_lifetime_runs_out() -> None:
    book = OrderBook(tau=1.0, seed=0)
    book.reset(0, {})
    failed = []
    for step in range(1, 9):
        failed += book.advance(step, {})[1]
    assert [o.created for o in failed] == [0]
    assert len(book.failed) == 1

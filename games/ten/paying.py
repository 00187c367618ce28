"""TEN's payments (RULES.md "Paying"): black tokens, fiasco tokens and number cards, and no change given."""

from __future__ import annotations

from functools import lru_cache

from games.ten.cards import FIASCO_WORTH


def payment_options(price: int, coins: int, fiasco: int, cards: int) -> list[tuple[int, int, int]]:
    """Every legal payment as (black tokens, fiasco tokens, number of collection cards), fewest cards first.

    A payment is legal when it reaches the price and dropping any single unit would leave it short: it is exact,
    or it is fiasco tokens alone, as few as reach the price (no change is given)."""
    return list(payments(price, coins, fiasco, cards))


@lru_cache(maxsize=1 << 14)
def payments(price: int, coins: int, fiasco: int, cards: int) -> tuple[tuple[int, int, int], ...]:
    """``payment_options`` as a tuple, worked out once for each purse (legal actions list them at every buy)."""
    out: list[tuple[int, int, int]] = []
    most_fiasco = -(-price // FIASCO_WORTH)
    for k in range(0, min(cards, price) + 1):
        for f in range(0, min(fiasco, most_fiasco) + 1):
            rest = price - FIASCO_WORTH * f - k
            if k == 0 and rest <= 0:
                if f == most_fiasco:
                    out.append((0, f, 0))
            elif 0 <= rest <= coins:
                out.append((rest, f, k))
    return tuple(out)


def payment_is_minimal(price: int, coins: int, fiasco: int, cards: int) -> bool:
    paid = coins + FIASCO_WORTH * fiasco + cards
    if coins + cards > 0:
        return paid == price
    return paid >= price and paid - FIASCO_WORTH < price

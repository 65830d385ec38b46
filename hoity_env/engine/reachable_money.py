"""Which money a restored game could have reached (invariant 4 of :mod:`hoity_env.engine.state_io`).

*Standard* (S-4, S-5): with ``spent[p] = starting_money - money[p]``: ``0 <= spent[p] <=
bid_total[p]``; ``sales`` (cards in hands beyond the deal) is at most ``round``; and
``#{p : spent[p] > 0} <= sales <= sum_p min(auction[p], spent[p])`` (a sale costs at least 1,
one per Auction House visit).

*Original* (O-5): ``sales <= round``; the register holds at most ``sales`` checks, totalling
at most the check totals the tallies counted.
"""

from __future__ import annotations

from collections.abc import Sequence

from hoity_env.engine.config import RulesConfig
from hoity_env.engine.errors import StateError

__all__ = ["check_original_money", "check_standard_money", "sales_so_far"]


def sales_so_far(rules: RulesConfig, hands: Sequence[Sequence[int]], round_: int) -> int:
    """Lots sold so far (cards in hands beyond the deal); at most one a round."""
    sales = sum(len(h) for h in hands) - len(hands) * rules.starting_antiques
    if not 0 <= sales <= round_:
        raise StateError(
            f"state fields 'hands' hold {sales} bought cards after {round_} rounds: "
            "the Auction House sells at most one lot a round (S-5)"
        )
    return sales


def check_standard_money(
    rules: RulesConfig,
    money: Sequence[int],
    hands: Sequence[Sequence[int]],
    tallies: Sequence[Sequence[int]],
    round_: int,
) -> None:
    """The standard ruleset's money invariants (module docstring); the first failure raises."""
    sales = sales_so_far(rules, hands, round_)
    spent = [rules.starting_money - m for m in money]
    for p, (paid, tally) in enumerate(zip(spent, tallies, strict=True)):
        if paid > tally[5]:
            raise StateError(
                f"state field 'money[{p}]' ({money[p]}): player {p} spent {paid} but bid only {tally[5]} "
                "in all (a buyer pays its own bid, S-5)"
            )
    buyers = sum(1 for paid in spent if paid > 0)
    most = sum(min(tally[0], paid) for tally, paid in zip(tallies, spent, strict=True))
    if not buyers <= sales <= most:
        raise StateError(
            f"state fields 'money'/'hands': {sales} lots were sold, but the money spent {spent} allows "
            f"between {buyers} and {most} sales (each costs at least 1, one per Auction House visit)"
        )


def check_original_money(
    rules: RulesConfig,
    hands: Sequence[Sequence[int]],
    register: Sequence[int],
    check_totals: Sequence[int],
    round_: int,
) -> None:
    """The original ruleset's register invariants (module docstring)."""
    sales = sales_so_far(rules, hands, round_)
    if len(register) > sales:
        raise StateError(
            f"state field 'register' holds {len(register)} checks but only {sales} lots were sold (O-5)"
        )
    if sum(register) > sum(check_totals):
        raise StateError(
            f"state field 'register' totals {sum(register)}, more than the checks played "
            f"({sum(check_totals)} by the tallies)"
        )

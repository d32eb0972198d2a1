"""Kuhn poker: the game declared as data (engines.core.GameSpec); rules in docs/rules/kuhn.md."""
from engines.core import GameSpec, Option, SeatRange

SPEC = GameSpec(
    game_id="kuhn",
    title="Kuhn poker (the template game)",
    seat_ranges=(SeatRange({}, 2, 2),),
    seats_rule="KP-1",
    private_moves=(),  # KP-8: every action is public; only the cards are secret
    data_files=("cards.json",),
    options=(
        Option("ante", int, 1, (1, 2), "KP-3", "Chips each seat puts in the pot before the deal; a bet is one chip."),
        Option("reveal_log_after_end", bool, False, (False, True), "KP-9",
               "After the end, GetKuhnLog gives the seats the seed, which shows a folded hand."),
    ),
)

"""Citadels: the game declared as data (engines.core.GameSpec); rules in docs/rules/citadels.md."""
from engines.core import GameSpec, Option, SeatRange

SPEC = GameSpec(
    game_id="citadels",
    title="Citadels (classic)",
    seat_ranges=(SeatRange({}, 2, 7),),
    seats_rule="CIT-15",
    private_moves=("PickCharacter", "DiscardCharacter", "KeepCards", "MagicRedraw", "Laboratory"),  # CIT-10/11: secret picks, kept and discarded cards
    data_files=("cards.json",),
    options=(
    Option('city_complete_size', int, 8, 'an integer from 1 to 28 (the district names)', 'CIT-8',
           'Districts that complete a city (8). CIT-8, CIT-55, CIT-69, CIT-74.'),
    Option('murdered_king_gets_crown', bool, False, (False, True), 'CIT-33',
           "A murdered King's holder takes the crown at round end (false). CIT-33, CIT-49."),
    Option('warlord_timing', str, 'end_of_turn', ('end_of_turn', 'any_time'), 'CIT-53',
           '"end_of_turn" (default) or "any_time": when the Warlord may destroy. CIT-32, CIT-53.'),
    Option('gold_supply', str, 'unlimited', '"unlimited" or an integer from the starting gold of every seat to 1000000', 'CIT-5',
           '"unlimited" (default) or a decimal integer such as "30": the bank\'s gold. CIT-5.'),
    Option('tiebreak', str, 'district_points_then_gold', ('district_points_then_gold', 'gold', 'none'), 'CIT-76',
           '"district_points_then_gold" (default), "gold" or "none". CIT-76.'),
    Option('destroyed_district_to', str, 'deck_bottom', ('deck_bottom', 'discard'), 'CIT-56',
           '"deck_bottom" (default) or "discard": where a destroyed district goes. CIT-56.'),
    Option('action_order', str, 'any', ('any', 'action_first'), 'CIT-37',
           '"any" (default) or "action_first": may a player build before his resource action. CIT-37.'),
    Option('king_may_be_face_up', bool, False, (False, True), 'CIT-21',
           'May the King be a face-up discard (false). CIT-21.'),
    Option('initial_crown', str, 'random', '"random" or a seat number', 'CIT-17',
           '"random" (default) or a seat number as a decimal string: first crown holder. CIT-17.'),
    Option('allow_void_targets', bool, False, (False, True), 'CIT-46',
           "Face-up discards and the namer's own rank may be named, with no effect (false). CIT-46, CIT-47."),
    Option('reveal_log_after_end', bool, False, (False, True), 'CIT-11',
           'After the end, GetCitadelsLog shows the seats (not spectators) every move and the seed (false). By default the private moves (picks, face-down discards, kept and returned cards, redraws, Laboratory) stay withheld from the other seats and spectators, and the seed (which reproduces all of them) is 0, because CIT-11 never publishes the face-down discards. CIT-10, CIT-11.'),

    ),
)

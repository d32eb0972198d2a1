"""The Downfall of Pompeii: the game declared as data (engines.core.GameSpec); rules in docs/rules/pompeii.md."""
from engines.core import GameSpec, Option, SeatRange

SPEC = GameSpec(
    game_id="pompeii",
    title="The Downfall of Pompeii",
    seat_ranges=(SeatRange({}, 2, 4),),
    seats_rule="POM-10",
    private_moves=(),  # POM-91: every accepted action is public
    data_files=("board.json",),
    options=(
    Option('edition', str, '2006', ('2006', '2013'), 'POM-11',
           '"2006" or "2013": pieces per seat 36/30/25 or 30/30/25 (POM-11).'),
    Option('dual_vent_tiles', bool, False, (False, True), 'POM-66',
           '3 extra two-symbol tiles, 48 in the bag; needs edition "2013" (POM-66).'),
    Option('building_10_split', bool, False, (False, True), 'POM-6',
           'Building 10 becomes twins B10a [5,5] (3 slots) and B10b [6,5] (2 slots) (POM-6).'),
    Option('relatives_one_per_building', bool, True, (False, True), 'POM-34',
           'At most one relative per building per turn (POM-34).'),
    Option('wild_card_moves_existing', bool, False, (False, True), 'POM-37',
           "A wild card moves one of one's own people instead of placing a new one (POM-37)."),
    Option('omen_targets', str, 'opponents', ('opponents', 'any'), 'POM-31',
           'Whose people an Omen may take: "opponents" or "any" (POM-31).'),
    Option('lava_on_foreign_vent', bool, False, (False, True), 'POM-62',
           "Lava tiles may cover another symbol's uncovered vent (POM-62)."),
    Option('vents_block_movement', bool, False, (False, True), 'POM-4',
           'Uncovered vents block movement and the cut-off search (POM-4, POM-65, POM-72).'),
    Option('wild_card_neutral_buildings', bool, False, (False, True), 'POM-33',
           'A wild card may also fill a neutral building (POM-33). The seeds fill neutral buildings only by relatives (seed 000: 「中立建筑无法通过打出手牌来放置人物标志物」).'),
    Option('wild_placement_compulsory', bool, False, (False, True), 'POM-37',
           'A wild placement is compulsory while a slot is free (POM-37). Both seeds say it *may* be made, so by default a wild card may also be played with no square.'),
    Option('pass_anytime', bool, False, (False, True), 'POM-75',
           '`pass` is listed and accepted at every phase-2 move (POM-75). The seeds make both moves compulsory (seed 001: 「必須移動2個不同的村民」), so by default a pass is legal only when no move is possible.'),
    Option('reveal_log_after_end', bool, False, (False, True), 'POM-90',
           'After the end, GetPompeiiLog gives the seats (not spectators) the seed. By default it stays 0: the seed reproduces the unused piles and the undrawn deck, which POM-90 hides from everyone for ever (POM-93 only promises to keep it hidden until the end).'),

    ),
)

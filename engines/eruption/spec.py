"""Eruption: the game declared as data (engines.core.GameSpec); rules in docs/rules/eruption.md."""
from engines.core import GameSpec, Option, SeatRange

SPEC = GameSpec(
    game_id="eruption",
    title="Eruption",
    seat_ranges=(SeatRange({}, 2, 6),),
    seats_rule="ERU-1",
    private_moves=(),  # every Eruption move is public
    data_files=("board.json",),
    options=(
    Option('dice_tie_goes_to', str, 'wall', ('wall', 'lava'), 'ERU-95',
           'Who wins a tied dice check: "wall" or "lava" (ERU-95).'),
    Option('zone_thresholds', str, 'seed', ('seed', 'board'), 'ERU-140',
           'Zone thresholds: "seed" (50/120/210) or "board" (50/120/200) (ERU-140).'),
    Option('unlimited_walls', bool, False, (True, False), 'ERU-4',
           'The wall supply never runs out (ERU-4, ERU-97).'),
    Option('exclude_rain_cards', bool, False, (True, False), 'ERU-5',
           'Leave the 4 Rain cards out: 32-card deck (ERU-5).'),
    Option('eruption_award_timing', str, 'immediate', ('immediate', 'own_damage_step'), 'ERU-61',
           'When eruption awards are checked: "immediate" or "own_damage_step" (ERU-61).'),
    Option('eruption_tiles_per_turn', str, 'all', ('all', 'one'), 'ERU-62',
           'Held eruption tiles placed per placement step: "all" or "one" (ERU-62).'),
    Option('cards_for_unoccupied_villages', bool, True, (True, False), 'ERU-76',
           'Flows into unoccupied villages earn cards (ERU-76, ERU-124).'),
    Option('cards_act_on_eruption_tiles', bool, False, (True, False), 'ERU-66',
           "Quake, Aftershock and Sinkhole may also act on eruption tiles (ERU-66). Seed 002's card table names lava tiles (「替換圖板上任一岩漿板塊」), so by default they act on lava tiles only."),
    Option('eruption_tile_draws_cards', bool, False, (True, False), 'ERU-64',
           'Placing an eruption tile draws a card per flow into a village (ERU-64). Seed 002 grants cards for lava tiles only, so by default an eruption tile draws none.'),
    Option('new_flows_per_edge', bool, False, (True, False), 'ERU-124',
           'Quake and Aftershock draw a card per new lava edge on an entry position, so a flow that merely moves earns one (ERU-124). By default the card count is the number of flows added (「因為只有新增一條」).'),
    Option('reveal_log_after_end', bool, False, (True, False), 'ERU-33',
           'After the end, GetEruptionLog gives the seats (not spectators) the seed. By default it stays 0: the seed reproduces the tiles removed at a burnout and the hands, which ERU-33 never shows.'),
    Option('tiebreak', str, 'walls', ('walls', 'none'), 'ERU-155',
           'Temperature ties: "walls" breaks them by the walls held, less the flows in (ERU-155); "none" lets the tied coolest share the win (ERU-156), as seed 002 names no tie-break (「村莊溫度最低者獲勝」).'),

    ),
)

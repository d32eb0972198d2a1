"""Conquest geometry and cost (SW-60 - SW-68, SW-140, SW-154, SW-172)."""
from __future__ import annotations

from . import data as D
from .forces import active_force, is_active_race, opt, powers, race_ability, seat_of

GHOSTS, LOST, NONE = D.GHOSTS, D.LOST_TRIBE, D.NO_RACE


def conquest_cost(st, k, t):
    """SW-64 cost with SW-65 discounts (floor 1); SW-68 water counts as empty."""
    b = st.board
    d = st.occ[t]
    tokens = st.cnt[t] if d != NONE else 0
    if (0 <= d < D.N_RACES and not opt(st, "own_decline_token_adds_cost") and st.in_decline[d]
            and st.owner[d] == seat_of(st, k)):
        tokens = 0  # ED-9
    if b.water[t]:
        cost = 2 + tokens
    else:
        cost = 2 + b.mountain[t] + st.lair[t] + st.fort[t] + st.camps[t] + tokens
    disc = 0
    ps = powers(st, k)
    if ps:
        if D.COMMANDO in ps:  # SW-153
            disc += 1
        if D.MOUNTED in ps and b.terrain[t] in ("hill", "farmland"):  # SW-162
            disc += 1
        if D.UNDERWORLD in ps and t in b.caverns:  # SW-168
            disc += 1
    if race_ability(st, k, D.GIANTS):  # SW-134
        occ = st.occ
        if any(occ[m] == k and b.mountain[m] for m in b.adj[t]):
            disc += 1
    if race_ability(st, k, D.TRITONS) and (t in b.coastal or (b.water[t] and opt(st, "tritons_water_discount"))):
        disc += 1  # SW-141
    return max(1, cost - disc)


def immune(st, k, t):
    """SW-172: Hero, Dragon or Hole protects against every other race (ED-22)."""
    if not (st.hero[t] or st.dragon[t] or st.hole[t]):
        return False
    d = st.occ[t]
    if d == k:
        return False
    if not opt(st, "immunity_vs_own_races") and seat_of(st, d) == seat_of(st, k):
        return False
    return True


def peace_forbids(st, k, t):
    """SW-154: the Diplomat's ally's active race may not touch the Diplomat's active force."""
    d = st.occ[t]
    if d == NONE or d == LOST:
        return False
    dseat = seat_of(st, d)
    if dseat < 0:
        return False
    ally = st.peace[dseat]
    return ally >= 0 and d == active_force(st, dseat) and k == active_force(st, ally)


def reach_error(st, k, t, regs):
    b = st.board
    ps = powers(st, k)
    flying = D.FLYING in ps
    if not regs:
        if k == GHOSTS:  # NEC-22
            if t in b.lake_adjacent or (flying and opt(st, "flying_ignores_entry") and not b.water[t]):
                return None
            return ("NEC-22", f"the Ghosts hold no region, so region {t} must border the Lake")
        if race_ability(st, k, D.HALFLINGS):  # SW-135
            return None
        if flying and opt(st, "flying_ignores_entry") and not b.water[t]:  # SW-156
            return None
        if D.SEAFARING in ps and opt(st, "seafaring_enters_by_sea") and t in b.seas:  # SW-164
            return None
        if D.UNDERWORLD in ps and opt(st, "underworld_cavern_entry") and t in b.caverns:  # ED-8
            return None
        if t in b.entry:
            return None
        return ("SW-61", f"a first conquest must target an edge or seaside region; {t} is neither")
    adj = b.adj[t]
    occ = st.occ
    if any(occ[m] == k for m in adj):
        return None
    if flying and not b.water[t]:  # SW-156
        return None
    if D.UNDERWORLD in ps and t in b.caverns and any(occ[c] == k for c in b.caverns):  # SW-168
        return None
    return ("SW-63", f"region {t} is not adjacent to a region of the conquering race")


def target_error(st, k, t, regs):
    """SW-60 (b)-(f), (h): everything about a target except its cost."""
    b = st.board
    if not 0 <= t < b.n:
        return ("SW-60", f"there is no region {t}")
    if st.occ[t] == k:
        return ("SW-70", f"region {t} is already held by the conquering race")
    if b.water[t]:
        if st.necro >= 0 and t == b.lake and not opt(st, "necro_lake_conquerable"):
            return ("NEC-24", "the Lake under Necromancer Island cannot be conquered")
        if D.SEAFARING not in powers(st, k):
            return ("SW-68", f"only an active Seafaring race may conquer water region {t}")
    e = reach_error(st, k, t, regs)
    if e:
        return e
    if immune(st, k, t):
        return ("SW-172", f"region {t} is immune (Hero, Dragon or Hole-in-the-Ground)")
    if peace_forbids(st, k, t):
        return ("SW-154", f"a Diplomat's peace protects region {t}")
    return None


def conversion_error(st, t, regs):
    """SW-140 conditions for a Sorcerer conversion of region t."""
    b = st.board
    S = D.SORCERERS
    if not 0 <= t < b.n:
        return ("SW-140", f"there is no region {t}")
    d = st.occ[t]
    if not is_active_race(st, d) or st.owner[d] == st.cur or st.cnt[t] != 1 or st.camps[t]:
        return ("SW-140", "a conversion needs a lone token of an opponent's active race with no Encampment")
    if st.owner[d] in st.converted:
        return ("SW-140", "only one conversion per opponent per turn")
    if b.water[t] and D.SEAFARING not in powers(st, S):
        return ("SW-140", "Sorcerers may convert on water only when Seafaring")
    occ = st.occ
    near = any(occ[m] == S for m in b.adj[t])
    if (not near and opt(st, "sorcerer_range") == "borders_and_underworld" and D.UNDERWORLD in powers(st, S)
            and t in b.caverns and any(occ[c] == S for c in b.caverns)):
        near = True
    if not near:
        return ("SW-140", f"region {t} does not border a Sorcerer region")
    if immune(st, S, t):
        return ("SW-172", f"region {t} is immune")
    if peace_forbids(st, S, t):
        return ("SW-154", f"a Diplomat's peace protects region {t}")
    if st.supply[S] < 1:
        return ("SW-140", "no Sorcerer token left in the supply")
    if opt(st, "sorcerer_needs_hand_token") and st.hand[S] < 1:
        return ("ED-20", "a conversion needs a Sorcerer token in hand")
    return None


def can_abandon(st, k):
    return st.roll < 0 and (not opt(st, "abandon_before_conquest_only") or st.t_conquests[k] == 0)


def has_final_attempt(st, k):
    return not (D.BERSERK in powers(st, k) and opt(st, "berserk_roll_first"))


def dragon_markers_ok(st, t):
    if opt(st, "dragon_ignores_markers"):
        return True
    return not (st.board.mountain[t] or st.lair[t] or st.fort[t] or st.camps[t])  # ED-17 alternative

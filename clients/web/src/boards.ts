// Board drawings from a view (proto-JSON, camelCase). Each renderer returns SVG/HTML text; elements
// with data-moves="i,j" are click targets for those legal moves (indexes into the moves list).
// A game without a renderer here is shown as a readable structured dump of its view.
import { oneof, type Json } from "./api";

export const SEAT_COLOURS = ["#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#17becf", "#8c564b"];

export interface Ctx {
  view: Json;
  data: Record<string, Json>; // the game's data files (board.json, cards.json, maps.json)
  moves: Json[];              // the viewer's legal moves (empty for a spectator)
}

type Renderer = (c: Ctx) => string;
const esc = (s: unknown) => String(s ?? "").replace(/[&<>"]/g, (ch) => `&#${ch.charCodeAt(0)};`);
const seatName = (s: number) => (s < 0 ? "—" : `seat ${s}`);

/** Indexes of the moves whose `pick(move)` key equals k, grouped by key. */
function targets(moves: Json[], pick: (kind: string, body: Json) => string | undefined): Map<string, number[]> {
  const m = new Map<string, number[]>();
  moves.forEach((mv, i) => {
    const [kind, body] = oneof(mv);
    const k = pick(kind, body);
    if (k !== undefined) m.set(k, [...(m.get(k) ?? []), i]);
  });
  return m;
}

// ------------------------------------------------------------------ Pompeii (POM-3..POM-6)
const POMPEII_COLOURS: Record<string, string> = {
  grey: "#b8b8b8", purple: "#b39ddb", turquoise: "#80cbc4", brown: "#bcaaa4", neutral: "#efe3c8",
};

function pompeii({ view, data, moves }: Ctx): string {
  const b = data["board.json"] ?? {};
  const rows = b.coordinates?.rows ?? 7, cols = b.coordinates?.cols ?? 11, S = 58;
  const key = (r: number, c: number) => `${r},${c}`;
  const kind = new Map<string, { fill: string; label?: string; slots?: number }>();
  for (const [r, c] of b.street_squares ?? []) kind.set(key(r, c), { fill: "#f7f3ea" });
  for (const bl of b.buildings ?? []) {
    bl.squares.forEach((sq: Json, i: number) => kind.set(key(sq.square[0], sq.square[1]), {
      fill: POMPEII_COLOURS[bl.number ? bl.colour : "neutral"] ?? POMPEII_COLOURS.neutral,
      label: i === 0 ? (bl.number ? String(bl.number) : bl.id) : undefined, slots: sq.slots,
    }));
  }
  for (const [sym, [r, c]] of Object.entries<number[]>(b.vents ?? {})) kind.set(key(r, c), { fill: "#5d4037", label: `vent ${sym}` });
  for (const [r, c] of b.void_cells ?? []) kind.set(key(r, c), { fill: "none" });
  const gates = new Map<string, string>((b.gates ?? []).map((g: Json) => [key(g.square[0], g.square[1]), g.id]));
  const lava = new Map<string, string>((view.lava ?? []).map((t: Json) => [key(t.square?.row ?? 0, t.square?.col ?? 0), t.symbol]));
  const people = new Map<string, number[]>((view.people ?? []).map((p: Json) => [key(p.square?.row ?? 0, p.square?.col ?? 0), p.counts ?? []]));
  const tg = targets(moves, (k, body) => {
    const sq = body.target ?? body.square ?? body.origin;
    return sq ? key(sq.row ?? 0, sq.col ?? 0) : undefined;
  });
  let out = `<svg class="board" id="board-svg" viewBox="-8 -8 ${cols * S + 16} ${rows * S + 16}" width="${cols * S + 16}">`;
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) {
    const k = key(r, c), sq = kind.get(k);
    if (!sq || sq.fill === "none") continue;
    const x = c * S, y = r * S;
    out += `<g data-square="${k}"><rect x="${x}" y="${y}" width="${S}" height="${S}" fill="${sq.fill}" stroke="#8d6e63" stroke-width="1"/>`;
    if (sq.label) out += `<text x="${x + 4}" y="${y + 13}" class="lbl">${esc(sq.label)}</text>`;
    if (sq.slots) for (let i = 0; i < sq.slots; i++) out += `<circle cx="${x + S - 7 - i * 8}" cy="${y + 7}" r="2.5" fill="#6d4c41"/>`;
    if (gates.has(k)) out += `<rect x="${x + 1}" y="${y + 1}" width="${S - 2}" height="${S - 2}" fill="none" stroke="#2e7d32" stroke-width="4" stroke-dasharray="6 4"/><text x="${x + S - 20}" y="${y + S - 4}" class="lbl gate">${gates.get(k)}</text>`;
    if (lava.has(k)) out += `<rect class="lava" x="${x + 3}" y="${y + 3}" width="${S - 6}" height="${S - 6}" rx="6" fill="#e64a19" opacity="0.9"/><text x="${x + S / 2}" y="${y + S / 2 + 4}" text-anchor="middle" class="lbl lava-sym">${esc(lava.get(k))}</text>`;
    const counts = people.get(k) ?? [];
    let n = 0;
    counts.forEach((cnt, seat) => {
      for (let i = 0; i < cnt; i++, n++) {
        out += `<circle class="person" data-seat="${seat}" cx="${x + 10 + (n % 4) * 12}" cy="${y + 24 + Math.floor(n / 4) * 12}" r="5" fill="${SEAT_COLOURS[seat]}" stroke="#222"/>`;
      }
    });
    if (tg.has(k)) out += `<rect class="target" data-moves="${tg.get(k)!.join(",")}" x="${x + 2}" y="${y + 2}" width="${S - 4}" height="${S - 4}" rx="4"/>`;
    out += `</g>`;
  }
  out += `</svg>`;
  const perSeat = (name: string, arr: number[] | undefined) => `<tr><th>${name}</th>${(arr ?? []).map((v) => `<td>${v}</td>`).join("")}</tr>`;
  out += `<table class="info"><tr><th></th>${Array.from({ length: view.players ?? 0 }, (_, s) => `<th class="seat-${s}">${seatName(s)}</th>`).join("")}</tr>
    ${perSeat("hand", view.handSizes)}${perSeat("supply", view.supply)}${perSeat("saved", view.saved)}${perSeat("volcano", view.volcano)}</table>
    <p class="facts">phase <b>${esc(view.phase)}</b> · step <b>${esc(view.step)}</b> · turn ${seatName(view.turn ?? -1)} · deck ${view.deckSize ?? 0}
    ${view.pendingTile ? ` · tile to place <b>${esc(view.pendingTile)}</b>` : ""}
    ${view.relativesLeft ? ` · relatives left ${view.relativesLeft}` : ""}
    ${(view.hand ?? []).length ? ` · <span class="hand">your hand: ${view.hand.map((c: number) => c === 12 ? "Omen" : c === 13 ? "AD79" : c).join(", ")}</span>` : ""}</p>`;
  return out;
}

// ------------------------------------------------------------------ Eruption (ERU-10..ERU-24)
const WALL_COLOURS: Record<string, string> = { straw: "#e6c229", wood: "#8d5524", stone: "#757575" };

function eruption({ view, data, moves }: Ctx): string {
  const b = data["board.json"] ?? {};
  const R = 24, H = Math.sqrt(3) * R;
  const centre = (x: number, y: number) => [R * 1.5 * x + 40, H * (y + x / 2) - H * 2.2];
  const angle = (edge: number) => ((edge * 60 - 90) * Math.PI) / 180; // 0 N, clockwise
  const hex = (cx: number, cy: number) => Array.from({ length: 6 }, (_, i) => {
    const a = (i * 60 * Math.PI) / 180;
    return `${(cx + R * Math.cos(a)).toFixed(1)},${(cy + R * Math.sin(a)).toFixed(1)}`;
  }).join(" ");
  const key = (x: number, y: number) => `${x},${y}`;
  const fill = new Map<string, string>();
  for (const [x, y] of b.cells?.playable ?? []) fill.set(key(x, y), "#f3e5c0");
  for (const [x, y] of b.volcano?.cells ?? []) fill.set(key(x, y), "#4e342e");
  const villageOf = (view.villages ?? []) as number[];
  for (const v of b.villages ?? []) {
    const seat = villageOf.indexOf(v.id);
    for (const [x, y] of v.cells) fill.set(key(x, y), seat >= 0 ? SEAT_COLOURS[seat] : "#cfd8dc");
  }
  const tileTypes = new Map<string, number[]>((b.tile_types ?? []).map((t: Json) => [t.id, t.lava_edges ?? []]));
  const tg = targets(moves, (_k, body) => (body.cell ? key(body.cell.x ?? 0, body.cell.y ?? 0) : undefined));
  let out = `<svg class="board" id="board-svg" viewBox="0 0 ${R * 1.5 * 11 + 60} ${H * 11 + 10}" width="${R * 1.5 * 11 + 60}">`;
  for (const [k, f] of fill) {
    const [x, y] = k.split(",").map(Number), [cx, cy] = centre(x, y);
    out += `<polygon points="${hex(cx, cy)}" fill="${f}" stroke="#a1887f" stroke-width="1"/>`;
  }
  for (const [mat, cells] of Object.entries<number[][]>(b.wall_award_spaces ?? {})) for (const [x, y] of cells) {
    const [cx, cy] = centre(x, y);
    out += `<circle cx="${cx}" cy="${cy}" r="5" fill="${WALL_COLOURS[mat]}" opacity="0.6"/>`;
  }
  for (const t of view.tiles ?? []) {
    const [cx, cy] = centre(t.x ?? 0, t.y ?? 0);
    out += `<g class="tile" data-tile="${t.tile ?? 0}"><polygon points="${hex(cx, cy)}" fill="${t.tileType === "T7" ? "#b71c1c" : "#ff8a65"}" stroke="#bf360c"/>`;
    for (const e of tileTypes.get(t.tileType) ?? []) {
      const a = angle((e + (t.rotation ?? 0)) % 6);
      out += `<line x1="${cx}" y1="${cy}" x2="${(cx + (H / 2) * Math.cos(a)).toFixed(1)}" y2="${(cy + (H / 2) * Math.sin(a)).toFixed(1)}" stroke="#ffeb3b" stroke-width="6" stroke-linecap="round"/>`;
    }
    out += `</g>`;
  }
  for (const w of view.walls ?? []) {
    const [cx, cy] = centre(w.x ?? 0, w.y ?? 0), a = angle(w.edge ?? 0), d = 30 * Math.PI / 180;
    const p = (t: number) => [cx + R * Math.cos(t), cy + R * Math.sin(t)].map((n) => n.toFixed(1));
    const [x1, y1] = p(a - d), [x2, y2] = p(a + d);
    out += `<line class="wall" x1="${x1}" y1="${y1}" x2="${x2}" y2="${y2}" stroke="${WALL_COLOURS[w.material] ?? "#000"}" stroke-width="7" stroke-linecap="round"/>`;
  }
  for (const [k, idx] of tg) {
    const [x, y] = k.split(",").map(Number), [cx, cy] = centre(x, y);
    out += `<polygon class="target" data-moves="${idx.join(",")}" points="${hex(cx, cy)}"/>`;
  }
  out += `</svg>`;
  // temperature track 0..290 with the zone thresholds (ERU-140)
  const th: number[] = b.zone_thresholds?.[view.options?.zoneThresholds ?? "seed"] ?? [50, 120, 210];
  // the bar starts at x 70 (after "seat n"); its value label follows its end, so the track's right margin holds
  // the widest label, "290°" at the top of the track (10px text, about 25 units: 40 leaves room for any font)
  const W = 300, right = 40;
  out += `<svg class="track" viewBox="0 0 ${70 + W + right} ${20 * (view.seats ?? 0) + 10}" width="${70 + W + right}">`;
  for (const t of th) out += `<line x1="${70 + (t / 290) * W}" y1="0" x2="${70 + (t / 290) * W}" y2="${20 * (view.seats ?? 0) + 10}" stroke="#999" stroke-dasharray="3 3"/>`;
  (view.temperatures ?? []).forEach((t: number, s: number) => {
    out += `<text x="0" y="${20 * s + 16}" class="lbl">${seatName(s)}</text><rect x="70" y="${20 * s + 5}" width="${(t / 290) * W}" height="12" fill="${SEAT_COLOURS[s]}"/><text x="${74 + (t / 290) * W}" y="${20 * s + 16}" class="lbl">${t}°</text>`;
  });
  out += `</svg><p class="facts">phase <b>${esc(view.phase)}</b> · active ${seatName(view.active ?? -1)} · turn ${view.turn ?? 0} · stack ${view.stackCount ?? 0}
    ${view.drawnTile >= 0 && view.drawnTileType ? ` · tile to place <b>${esc(view.drawnTileType)}</b>` : ""}
    ${(view.hand ?? []).length ? ` · <span class="hand">your cards: ${view.hand.map(esc).join(", ")}</span>` : ""}</p>`;
  return out;
}

// ------------------------------------------------------------------ Citadels (CIT-9..CIT-14)
const DISTRICT_COLOURS: Record<string, string> = { yellow: "#fdd835", blue: "#42a5f5", green: "#66bb6a", red: "#ef5350", purple: "#ab47bc" };

function citadels({ view, data, moves }: Ctx): string {
  const cards = data["cards.json"] ?? {};
  const district = new Map<string, Json>((cards.districts ?? []).map((d: Json) => [d.id, d]));
  const character = new Map<number, string>((cards.characters ?? []).map((c: Json) => [c.rank, c.name]));
  const byCard = targets(moves, (_k, body) => (body.card !== undefined ? `card:${body.card}` : undefined));
  const card = (c: Json, x: number, y: number, cls = "") => {
    const d = district.get(c.district) ?? {};
    const t = byCard.get(`card:${c.card ?? 0}`);
    return `<g class="district ${cls}"><rect x="${x}" y="${y}" width="86" height="34" rx="4" fill="${DISTRICT_COLOURS[d.colour] ?? "#ddd"}" stroke="#333"/>
      <text x="${x + 4}" y="${y + 14}" class="lbl">${esc(d.name ?? c.district)}</text><text x="${x + 4}" y="${y + 28}" class="lbl">cost ${d.cost ?? "?"}</text>
      ${t ? `<rect class="target" data-moves="${t.join(",")}" x="${x}" y="${y}" width="86" height="34" rx="4"/>` : ""}</g>`;
  };
  const players: Json[] = view.players ?? [];
  const rowH = 60;
  const width = 120 + 90 * Math.max(8, ...players.map((p) => (p.city ?? []).length));
  let out = `<svg class="board" id="board-svg" viewBox="0 0 ${width} ${rowH * players.length + 120}" width="${width}">`;
  out += `<text x="4" y="16" class="lbl">characters: ${Array.from({ length: 8 }, (_, i) => i + 1).map((r) => {
    const rev = (view.revealed ?? []).find((x: Json) => x.rank === r);
    const mark = r === view.murderedRank ? " †" : r === view.robbedRank ? " $" : "";
    return `${esc(character.get(r) ?? r)}${rev ? `=${seatName(rev.seat ?? 0)}` : ""}${mark}`;
  }).join(" · ")}</text>`;
  players.forEach((p, i) => {
    const y = 30 + rowH * i, s = p.seat ?? i;
    out += `<g class="player" data-seat="${s}"><text x="4" y="${y + 16}" class="lbl" fill="${SEAT_COLOURS[s]}">${seatName(s)}${view.crown === s ? " ♛" : ""}</text>
      <text x="4" y="${y + 32}" class="lbl">gold ${p.gold ?? 0} · hand ${p.handSize ?? 0}</text>
      <text x="4" y="${y + 48}" class="lbl">${(p.revealedRanks ?? []).map((r: number) => esc(character.get(r))).join(", ")}</text>`;
    (p.city ?? []).forEach((c: Json, j: number) => { out += card(c, 120 + 90 * j, y, "built"); });
    out += `</g>`;
  });
  const hand: Json[] = view.hand ?? [];
  if (view.viewer >= 0) {
    const y = 30 + rowH * players.length;
    out += `<text x="4" y="${y + 20}" class="lbl">your hand</text>`;
    hand.forEach((c, j) => { out += card(c, 120 + 90 * j, y, "hand"); });
  }
  out += `</svg><p class="facts">round ${view.round ?? 0} · phase <b>${esc(view.phase)}</b> · ${view.phase === "selection" ? `picker ${seatName(view.picker ?? -1)}` : `active ${seatName(view.activeSeat ?? -1)} (${esc(character.get(view.activeRank) ?? "")})`} · deck ${view.deckSize ?? 0}
    ${(view.myCharacters ?? []).length ? ` · <span class="hand">your characters: ${view.myCharacters.map((r: number) => esc(character.get(r))).join(", ")}</span>` : ""}
    ${(view.offered ?? []).length ? ` · offered: ${view.offered.map((r: number) => esc(character.get(r))).join(", ")}` : ""}</p>`;
  return out;
}

// ------------------------------------------------------------------ Small World: the region graph
const TERRAIN: Record<string, string> = {
  farmland: "#dce775", forest: "#388e3c", hill: "#a1887f", mountain: "#757575", swamp: "#4db6ac", sea: "#64b5f6", lake: "#90caf9",
};

/** Deterministic force layout of a region graph, seeded on a grid in id order (ids run left to right,
 *  top to bottom across the printed board). */
function layout(regions: Json[], W: number, H: number): [number, number][] {
  // Fruchterman-Reingold, started from the printed order and cooled to a stop
  const n = regions.length, cols = Math.ceil(Math.sqrt(n * 1.6)), k = Math.sqrt((W * H) / n) * 0.75;
  const p: [number, number][] = regions.map((_, i) => [(i % cols + 0.5) * (W / cols), (Math.floor(i / cols) + 0.5) * (H / Math.ceil(n / cols))]);
  const iterations = 250;
  for (let it = 0; it < iterations; it++) {
    const t = (W / 12) * (1 - it / iterations);
    const d: [number, number][] = p.map(() => [0, 0]);
    for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) {
      const dx = p[i][0] - p[j][0], dy = p[i][1] - p[j][1], dist = Math.max(1, Math.hypot(dx, dy));
      const f = (k * k) / dist;
      d[i][0] += (dx / dist) * f; d[i][1] += (dy / dist) * f; d[j][0] -= (dx / dist) * f; d[j][1] -= (dy / dist) * f;
    }
    regions.forEach((r, i) => (r.adjacent ?? []).forEach((j: number) => {
      if (j <= i || j >= n) return;
      const dx = p[i][0] - p[j][0], dy = p[i][1] - p[j][1], dist = Math.max(1, Math.hypot(dx, dy));
      const f = (dist * dist) / k;
      d[i][0] -= (dx / dist) * f; d[i][1] -= (dy / dist) * f; d[j][0] += (dx / dist) * f; d[j][1] += (dy / dist) * f;
    }));
    p.forEach((q, i) => {
      const len = Math.max(1e-9, Math.hypot(d[i][0], d[i][1])), step = Math.min(len, t);
      q[0] = Math.min(W - 40, Math.max(40, q[0] + (d[i][0] / len) * step));
      q[1] = Math.min(H - 30, Math.max(30, q[1] + (d[i][1] / len) * step));
    });
  }
  return p;
}

const layouts = new Map<string, [number, number][]>();

function smallworld({ view, data, moves }: Ctx): string {
  const map = data["maps.json"]?.maps?.[view.map];
  if (!map) return generic({ view, data, moves });
  const regions: Json[] = map.regions, W = 820, H = 560;
  const pos = layouts.get(view.map) ?? layout(regions, W, H);
  layouts.set(view.map, pos);
  const owner = new Map<string, number>((view.races ?? []).map((r: Json) => [r.race, r.owner ?? -1]));
  // Ghosts belong to the Necromancer (NEC-9), but the view's races[] gives them owner -1: his seat is in
  // view.necromancer.seat (-1 in a base game)
  const necro = view.necromancer?.seat ?? -1;
  if (necro >= 0) owner.set("ghosts", necro);
  const tg = targets(moves, (_k, body) => (body.region !== undefined ? String(body.region) : undefined));
  let out = `<svg class="board" id="board-svg" viewBox="0 0 ${W} ${H}" width="${W}">`;
  regions.forEach((r, i) => (r.adjacent ?? []).forEach((j: number) => {
    if (j > i) out += `<line x1="${pos[i][0]}" y1="${pos[i][1]}" x2="${pos[j][0]}" y2="${pos[j][1]}" stroke="#bbb"/>`;
  }));
  regions.forEach((r, i) => {
    const st = (view.regions ?? [])[i] ?? {}, [x, y] = pos[i];
    const seat = st.race ? owner.get(st.race) ?? -1 : -1;
    out += `<g class="region" data-region="${i}" data-seat="${seat}"><circle cx="${x}" cy="${y}" r="22" fill="${TERRAIN[r.terrain] ?? "#eee"}" stroke="${seat >= 0 ? SEAT_COLOURS[seat] : "#555"}" stroke-width="${seat >= 0 ? 5 : 1}"/>
      <text x="${x}" y="${y - 8}" text-anchor="middle" class="lbl">${i}</text>
      ${st.race ? `<text x="${x}" y="${y + 6}" text-anchor="middle" class="lbl">${esc(st.race)} ×${st.tokens ?? 0}</text>` : ""}
      ${[st.trollLair && "lair", st.fortress && "fort", st.encampments && `camp${st.encampments}`, st.hero && "hero", st.dragon && "dragon", st.hole && "hole", r.lost_tribe && !st.race && "tribe"].filter(Boolean).map((t) => `<text x="${x}" y="${y + 18}" text-anchor="middle" class="lbl tiny">${t}</text>`).join("")}
      ${tg.has(String(i)) ? `<circle class="target" data-moves="${tg.get(String(i))!.join(",")}" cx="${x}" cy="${y}" r="22"/>` : ""}</g>`;
  });
  out += `</svg><p class="facts">round ${view.round ?? 0}/${view.rounds ?? 0} · phase <b>${esc(view.phase)}</b> · current ${seatName(view.currentSeat ?? -1)}</p>`;
  out += `<table class="info"><tr><th>seat</th><th>coins</th><th>active race</th><th>in decline</th></tr>${(view.players ?? []).map((p: Json) =>
    `<tr><td class="seat-${p.seat ?? 0}">${seatName(p.seat ?? 0)}${p.isNecromancer ? " (Necromancer)" : ""}</td><td>${(p.coins ?? 0) < 0 ? "?" : p.coins ?? 0}</td><td>${esc(p.activeRace)}</td><td>${(p.declinedRaces ?? []).map(esc).join(", ")}</td></tr>`).join("")}</table>`;
  return out;
}

// ------------------------------------------------------------------ any other game
export function generic({ view }: Ctx): string {
  const show = (v: Json, depth: number): string => {
    if (Array.isArray(v)) {
      if (v.every((x) => typeof x !== "object")) return esc(`[${v.join(", ")}]`);
      return `<ol start="0">${v.map((x) => `<li>${show(x, depth + 1)}</li>`).join("")}</ol>`;
    }
    if (v && typeof v === "object") {
      return `<dl>${Object.entries(v).map(([k, x]) => `<dt>${esc(k)}</dt><dd>${show(x, depth + 1)}</dd>`).join("")}</dl>`;
    }
    return esc(v);
  };
  return `<div class="generic" id="board-svg">${show(view, 0)}</div>`;
}

// A game without a renderer here (e.g. Kuhn poker) is drawn by `generic` from its view.
export const RENDERERS: Record<string, Renderer> = { pompeii, eruption, citadels, smallworld };

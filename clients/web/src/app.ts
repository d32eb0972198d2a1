// The reference spectator/player page: pick a game, watch it live from the event stream, and with a
// seat token make moves by clicking legal moves (on the board, or in the list).
// State lives in the URL hash: #game=pompeii&id=GAME_ID&token=SEAT_TOKEN (the token never leaves the page
// except in RPC bodies).
import { GameApi, label, listGames, Refusal, said, type GameType, type Json } from "./api";
import { generic, RENDERERS } from "./boards";
import { createFields, initLobby, refreshOpen } from "./lobby";

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

let types: GameType[] = [];
let session: Session | null = null;

class Session {
  api: GameApi;
  abort = new AbortController();
  data: Record<string, Json> = {};
  status: Json = {};
  view: Json = {};
  moves: Json[] = [];
  filter: number[] | null = null;
  refreshing = false;
  again = false;
  refused = false; // a refusal that asking again cannot change (Refusal.final): following stops

  constructor(readonly type: GameType, readonly gameId: string, readonly token: string) {
    this.api = new GameApi(type);
  }

  async start() {
    document.body.dataset.game = this.type.game;
    $("events").textContent = ""; // the pane is shared: no line of the previous game stays
    $("mode").textContent = `${this.type.game} · ${this.gameId} · ${this.token ? "player" : "spectator"}${this.api.generated ? "" : " · JSON fallback"}`;
    for (const f of this.type.data_files) { // the game's GameSpec.data_files (/api/games)
      try { this.data[f] = await (await fetch(`/data/${this.type.game}/${f}`)).json(); } catch { /* drawn without it */ }
    }
    await this.refresh();
    void this.follow();
  }

  stop() { this.abort.abort(); }

  /** Follow the event stream from the start (from_version is exclusive, so 0 brings the whole history,
   * also of a finished game); redraw on each event newer than the first view. Reconnects from the version
   * before the last event's, dropping what it has: a version may bring several events, and a stream may be
   * cut between two of them. */
  async follow() {
    const drawn = this.status.version ?? 0;
    let last = 0, got = 0; // the last event's version, and how many of that version's events came
    while (!this.abort.signal.aborted) {
      let again = got; // the events of `last` already shown come again on a resumed stream
      try {
        for await (const [version, event] of this.api.events(this.gameId, this.token, Math.max(0, last - 1), this.abort.signal)) {
          if (version < last || (version === last && again-- > 0)) continue;
          if (version > last) { last = version; got = 0; }
          got++;
          this.log(`v${version} ${label(event)}`);
          if (version > drawn) void this.refresh();
        }
        if (this.status.over || this.abort.signal.aborted) return;
      } catch (e) {
        this.log(`stream: ${(e as Error).message}`);
        if (e instanceof Refusal && e.final) { this.error(e); return; }
      }
      await new Promise((r) => setTimeout(r, 1000));
      await this.refresh();
      if (this.status.over || this.refused) return;
    }
  }

  async refresh() {
    if (this.refreshing) { this.again = true; return; }
    this.refreshing = true;
    try {
      do {
        this.again = false;
        const v = await this.api.view(this.gameId, this.token);
        const status: Json = v.status ?? {};
        let moves: Json[] = [];
        if (this.token && !status.over) {
          const m = await this.api.moves(this.gameId, this.token);
          if ((m.status?.version ?? 0) === (status.version ?? 0)) moves = m.moves ?? [];
          else this.again = true;
        }
        // status, view and moves change together: until then a click plays a move the page shows
        this.status = status;
        this.view = v.view ?? {};
        this.moves = moves;
        this.filter = null;
        this.draw();
      } while (this.again);
    } catch (e) {
      this.refused ||= e instanceof Refusal && e.final;
      this.error(e);
    } finally {
      this.refreshing = false;
    }
  }

  draw() {
    const s = this.status;
    const board = $("board");
    const render = RENDERERS[this.type.game] ?? generic;
    let html: string;
    try { html = render({ view: this.view, data: this.data, moves: this.moves }); } catch (e) {
      html = `<p class="error">drawing failed (${(e as Error).message}); the view:</p>` + generic({ view: this.view, data: {}, moves: [] });
    }
    board.innerHTML = html;
    board.dataset.version = String(s.version ?? 0);
    board.querySelectorAll<SVGElement>("[data-moves]").forEach((el) => el.addEventListener("click", () => {
      const idx = el.dataset.moves!.split(",").map(Number);
      if (idx.length === 1) void this.play(idx[0]);
      else { this.filter = idx; this.drawMoves(); }
    }));
    const outcome = s.over ? ` · over: winners ${(s.outcome?.winners ?? []).map((w: number) => `seat ${w}`).join(", ")}`
      : s.waiting ? ` · <b id="waiting">waiting for players</b>: ${(s.seatHolders ?? []).map((h: Json) => `seat ${h.seat ?? 0} ${h.state === "open" ? "open" : h.playerName}`).join(", ")}` : "";
    $("status").innerHTML = `version <b id="version">${s.version ?? 0}</b> · to move ${s.toMove >= 0 ? `<span class="seat-${s.toMove}">seat ${s.toMove}</span>` : "—"}`
      + ` · you are ${s.callerSeat >= 0 ? `<b class="seat-${s.callerSeat}">seat ${s.callerSeat}</b>` : "a spectator"}${outcome}`;
    this.drawMoves();
    $<HTMLDetailsElement>("raw").querySelector("pre")!.textContent = JSON.stringify(this.view, null, 1);
  }

  drawMoves() {
    const list = $("moves");
    list.innerHTML = "";
    const shown = this.filter ?? this.moves.map((_, i) => i);
    if (this.filter) {
      const all = document.createElement("button");
      all.textContent = "show all moves";
      all.className = "link";
      all.onclick = () => { this.filter = null; this.drawMoves(); };
      list.append(all);
    }
    for (const i of shown) {
      const b = document.createElement("button");
      b.className = "move";
      b.dataset.move = String(i);
      b.textContent = label(this.moves[i]);
      b.onclick = () => void this.play(i);
      list.append(b);
    }
    $("moves-title").textContent = this.token ? (this.moves.length ? `your legal moves (${this.moves.length})` : "no move for you now") : "spectating (add a seat token to play)";
  }

  async play(i: number) {
    const move = this.moves[i];
    if (!move) return;
    try {
      const res = await this.api.move(this.gameId, this.token, this.status.version ?? 0, move);
      this.log(`you: ${label(move)}${res.replayed ? " (replayed)" : ""}`);
      $("error").textContent = "";
    } catch (e) {
      this.error(e);
    }
    await this.refresh();
  }

  /** Newest first, the game's whole history: one text node per line, so a long game costs no rewrite of the
   *  pane per event (it scrolls, style.css #events). */
  log(line: string) {
    if (this.abort.signal.aborted) return; // a stopped session's late answer
    $("events").prepend(`${line}\n`);
  }

  error(e: unknown) {
    if (this.abort.signal.aborted) return; // a stopped session's late failure is not the shown game's
    showError(e);
  }
}

/** A failure in #error (cleared by the next open or create). */
function showError(e: unknown) {
  $("error").textContent = said(e);
}

function hash(): URLSearchParams { return new URLSearchParams(location.hash.slice(1)); }

async function open() {
  session?.stop();
  session = null;
  const h = hash();
  const type = types.find((t) => t.game === h.get("game"));
  ($("game") as HTMLSelectElement).value = h.get("game") ?? ($("game") as HTMLSelectElement).value;
  ($("game-id") as HTMLInputElement).value = h.get("id") ?? "";
  ($("token") as HTMLInputElement).value = h.get("token") ?? "";
  $("error").textContent = ""; // an error of the game shown before does not apply to the next
  if (!type || !h.get("id")) { $("board").innerHTML = ""; $("mode").textContent = "pick a game"; return; }
  session = new Session(type, h.get("id")!, h.get("token") ?? "");
  await session.start();
}

async function refreshList() {
  const { games } = await listGames();
  const list = $("live");
  list.innerHTML = games.length ? "" : "<li>no games yet</li>";
  for (const g of games) {
    const li = document.createElement("li");
    li.innerHTML = `<a href="#game=${g.game}&id=${g.game_id}">${g.game} ${g.game_id}</a> · ${g.seats} seats · v${g.version}${g.over ? " · over" : ""}`;
    list.append(li);
  }
}

async function createGame() {
  const type = types.find((t) => t.game === ($("game") as HTMLSelectElement).value)!;
  const seats = Number(($("seats") as HTMLInputElement).value);
  const demo = ($("demo") as HTMLInputElement).checked;
  // demo: every seat is on a short clock and the referee plays a random legal move when it runs out
  const referee = demo ? { timeBankMs: 1, incrementMs: 700, timeoutPolicy: "TIMEOUT_POLICY_RANDOM" } : undefined;
  // a new attempt: the last error and the previous game's "created" line no longer apply
  $("error").textContent = "";
  $("created").textContent = "";
  try {
    const res = await new GameApi(type).create(seats, referee, createFields());
    const tokens: Json[] = res.seatTokens ?? [];
    $("created").innerHTML = `created <b>${res.gameId}</b>: <a href="#game=${type.game}&id=${res.gameId}">watch</a> · `
      + tokens.map((t) => `<a href="#game=${type.game}&id=${res.gameId}&token=${encodeURIComponent(t.token)}">play seat ${t.seat ?? 0}</a>`).join(" · ");
    await refreshList();
    await refreshOpen();
  } catch (e) {
    showError(e);
  }
}

async function main() {
  initLobby(); // the Player and Open games panes need no game types: ready before the first fetch
  ({ types } = await listGames());
  const sel = $("game") as HTMLSelectElement;
  sel.innerHTML = types.map((t) => `<option value="${t.game}">${t.game}</option>`).join("");
  $("open").onclick = () => {
    const p = new URLSearchParams({ game: sel.value, id: ($("game-id") as HTMLInputElement).value.trim() });
    const token = ($("token") as HTMLInputElement).value.trim();
    if (token) p.set("token", token);
    location.hash = p.toString();
  };
  $("create").onclick = () => void createGame();
  window.addEventListener("hashchange", () => void open());
  await refreshList();
  setInterval(() => void refreshList(), 5000);
  await open();
}

void main();

// The page's player and lobby panes: register a name (the player token stays in this browser's
// localStorage), list open games (LobbyService.ListOpenGames) and join a seat, which opens the game
// with that seat's token. New games may leave seats open (Create…Game.open_seats + player_token).
import { createClient } from "@connectrpc/connect";
import { refusal, said, transport, type Json } from "./api";
import { LobbyService } from "./gen/gameengine/v1/lobby_pb";
import { PlayerService } from "./gen/gameengine/v1/player_pb";

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const players = createClient(PlayerService, transport);
const lobby = createClient(LobbyService, transport);
const STORE = "gameengine.player";

interface Me { name: string; playerId: string; token: string; }

function me(): Me | null {
  try { return JSON.parse(localStorage.getItem(STORE) ?? "null"); } catch { return null; }
}

function showError(e: unknown) {
  $("error").textContent = said(e);
}

function drawMe() {
  const who = me();
  $("player-me").textContent = who ? `you are ${who.name}` : "not registered";
  $("player-form").hidden = who !== null;
  $("player-forget").hidden = who === null;
}

async function register() {
  const name = ($("player-name") as HTMLInputElement).value.trim();
  try {
    const res = await players.registerPlayer({ name });
    localStorage.setItem(STORE, JSON.stringify({ name: res.player?.name, playerId: res.player?.playerId,
      token: res.playerToken } satisfies Partial<Me>));
    $("error").textContent = "";
    drawMe();
    await refreshOpen();
  } catch (e) { showError(e); }
}

async function join(gameId: string, game: string, seat: number) {
  const who = me();
  if (!who) { $("error").textContent = "register a name first (Player)"; return; }
  try {
    const res = await lobby.joinGame({ gameId, playerToken: who.token, seat });
    location.hash = new URLSearchParams({ game, id: res.gameId, token: res.seatToken }).toString();
  } catch (e) { showError(e); }
}

export async function refreshOpen() {
  const list = $("open-games");
  try {
    const res = await lobby.listOpenGames({ pageSize: 50 });
    list.innerHTML = res.games.length ? "" : "<li>no open games</li>";
    for (const g of res.games) {
      const li = document.createElement("li");
      li.dataset.gameId = g.gameId;
      li.append(`${g.game} ${g.gameId} · by ${g.creatorName} · `);
      for (const h of g.seatHolders) {
        if (h.state === "open") {
          const b = document.createElement("button");
          b.className = "join";
          b.dataset.seat = String(h.seat);
          b.textContent = `join seat ${h.seat}`;
          b.onclick = () => void join(g.gameId, g.game, h.seat);
          li.append(b, " ");
        } else {
          li.append(`seat ${h.seat}: ${h.playerName} `);
        }
      }
      list.append(li);
    }
  } catch (e) { list.textContent = refusal(e).message; }
}

/** Fields a new game's request gets from the lobby pane: open seats, with the player's token. */
export function createFields(): Json {
  const open = ($("open-seats") as HTMLInputElement).value.split(",").map((s) => s.trim()).filter(Boolean).map(Number);
  const who = me();
  return open.length || who ? { openSeats: open, playerToken: who?.token ?? "" } : {};
}

export function initLobby() {
  $("player-register").onclick = () => void register();
  $("player-forget").onclick = () => { localStorage.removeItem(STORE); drawMe(); };
  drawMe();
  void refreshOpen();
  setInterval(() => void refreshOpen(), 3000);
}

// A bot written against nothing but protos/gameengine/v1/*.proto (no generated code, no SDK):
// it registers a player, finds an open game in the lobby, joins it, and plays a random legal move
// whenever its player stream says "your turn", until "game over". Then it prints the outcome.
//
//   cd clients/examples/node && npm ci
//   node bot.mjs --server 127.0.0.1:50051 --game pompeii [--name node-bot] [--join GAME_ID]
//
//   node bot.mjs --server 127.0.0.1:50051 --player-token T --tournament ID
//
// Options take `--name value` or `--name=value`. Run from a copy elsewhere, point --protos (or
// GE_PROTOS) at a checkout's protos/ folder.
//
// Output: one JSON line per event of interest; the last is {"game_over": {...}}. Exit code 0 when
// the game was played to its end. With --tournament (and an existing player's token) it enters the
// tournament unless entered already, plays every game the tournament gives it (seat tokens arrive on
// its player stream) and ends with {"tournament_over": {...}} when the tournament finished.
import { randomBytes, randomInt } from "node:crypto";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

import grpc from "@grpc/grpc-js";
import protoLoader from "@grpc/proto-loader";

const here = path.dirname(fileURLToPath(import.meta.url));
function args(argv) {
  const out = { server: "127.0.0.1:50051", game: "pompeii", name: `node-bot-${randomBytes(3).toString("hex")}`,
    join: "open", timeout: 600, protos: process.env.GE_PROTOS ?? path.resolve(here, "../../../protos") };
  for (let i = 0; i < argv.length; i++) {
    const [name, value] = argv[i].includes("=") ? argv[i].split(/=(.*)/s) : [argv[i], argv[++i]];
    out[name.replace(/^--/, "")] = value;
  }
  return out;
}

const opts = args(process.argv.slice(2));
const PROTOS = path.resolve(opts.protos);
if (!existsSync(path.join(PROTOS, "gameengine/v1/common.proto"))) {
  console.error(`no protos at ${PROTOS}: pass --protos (or GE_PROTOS) with a checkout's protos/ folder`);
  process.exit(2);
}
if (opts.tournament && !opts["player-token"]) {
  console.error("--tournament needs --player-token (a registered player's token: RegisterPlayer)");
  process.exit(2);
}
const creds = grpc.credentials.createInsecure();
const once = (client, method, request) => new Promise((resolve, reject) =>
  client[method](request, { deadline: Date.now() + 30_000 }, (err, reply) => (err ? reject(err) : resolve(reply))));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// A quota refusal (RESOURCE_EXHAUSTED, code 8) is retried, the same request again, after a second
// (the longest a server holds a refusal; its RetryInfo is usually shorter); moves carry an
// idempotency key, so a retry never plays one twice.
async function call(client, method, request) {
  for (;;) {
    try {
      return await once(client, method, request);
    } catch (err) {
      if (err.code !== 8) throw err;
      await sleep(1000);
    }
  }
}
const say = (obj) => console.log(JSON.stringify(obj));
// A refusal the bot cannot get past (an unknown tournament, a wrong token): one line, exit code 1.
const fail = (err) => {
  console.error(`failed: ${err.code ?? ""} ${err.details ?? err.message}`);
  process.exit(1);
};
if (opts.tournament) {
  // the tournament names the game: learn it before loading that game's proto
  const t = grpc.loadPackageDefinition(protoLoader.loadSync(["gameengine/v1/tournament.proto"], { includeDirs: [PROTOS],
    keepCase: true, longs: String, enums: String, defaults: true, oneofs: true })).gameengine.v1;
  const tournaments = new t.TournamentService(opts.server, creds);
  opts.tournamentClient = tournaments;
  opts.game = (await call(tournaments, "GetTournament", { tournament_id: opts.tournament }).catch(fail)).tournament.game;
}
if (!/^[a-z0-9_]+$/.test(opts.game) || !existsSync(path.join(PROTOS, "gameengine/v1", `${opts.game}.proto`))) {
  console.error(`unknown game ${opts.game}: no protos/gameengine/v1/${opts.game}.proto`);
  process.exit(2);
}
const definition = protoLoader.loadSync(
  ["gameengine/v1/player.proto", "gameengine/v1/lobby.proto", `gameengine/v1/${opts.game}.proto`],
  { includeDirs: [PROTOS], keepCase: true, longs: String, enums: String, defaults: true, oneofs: true });
const v1 = grpc.loadPackageDefinition(definition).gameengine.v1;
// The game's service is the one with a Make<P>Move RPC; P (e.g. "Pompeii") names its RPCs.
const service = Object.keys(definition).find((k) => Object.keys(definition[k]).some((m) => /^Make\w+Move$/.test(m)));
const P = service.replace(/^gameengine\.v1\./, "").replace(/Service$/, "");
const players = new v1.PlayerService(opts.server, creds);
const lobby = new v1.LobbyService(opts.server, creds);
const game = new v1[`${P}Service`](opts.server, creds);


async function joinOpenGame(token, playerId) {
  for (;;) {
    const ids = [];
    if (opts.join !== "open") ids.push(opts.join);
    else {
      const page = await call(lobby, "ListOpenGames", { game: opts.game, page_size: 100 });
      for (const g of page.games) if (!g.seat_holders.some((h) => h.player_id === playerId)) ids.push(g.game_id);
    }
    for (const game_id of ids) {
      try {
        return await call(lobby, "JoinGame", { game_id, player_token: token });
      } catch (err) {
        say({ join_refused: game_id, code: err.code, details: err.details }); // taken meanwhile: try the next
      }
    }
    await sleep(300);
  }
}

// The stream tells each turn once: a turn met by a server restart (UNAVAILABLE) is looked at again
// until the server answers, or nothing would bring it back and the other seats would wait for ours.
async function playTurn(seat, turn) {
  for (let delay = 200; ; delay = Math.min(delay * 2, 2000)) {
    try {
      return await playTurnOnce(seat, turn);
    } catch (err) {
      if (err.code !== grpc.status.UNAVAILABLE) throw err;
      say({ server_unavailable: seat.game_id });
      await sleep(delay);
    }
  }
}

async function playTurnOnce(seat, turn) {
  // the stream said it is our turn at turn.status.version; take the moves as of now and play one
  // (after a restart, a move sent before it shows as a newer version: it is not played twice)
  const listed = await call(game, `List${P}Moves`, { game_id: seat.game_id, token: seat.seat_token });
  if (listed.moves.length === 0 || listed.status.version !== turn.status.version) return;
  const move = listed.moves[randomInt(listed.moves.length)];
  try {
    const reply = await call(game, `Make${P}Move`, { game_id: seat.game_id, token: seat.seat_token,
      expected_version: listed.status.version, idempotency_key: randomBytes(8).toString("hex"), move });
    seat.moves += 1;
    seat.version = reply.status.version;
  } catch (err) {
    // ABORTED: someone moved first (or the referee); a new turn event follows. REF-TIMEOUT (the
    // message starts with the rule id): our time ran out, and the referee takes this turn.
    if (err.code === grpc.status.FAILED_PRECONDITION && String(err.details).startsWith("REF-TIMEOUT")) {
      say({ out_of_time: seat.game_id, details: err.details });
      return;
    }
    if (err.code !== grpc.status.ABORTED) throw err;
  }
}

async function playTournament() {
  // every seat the tournament reserves for us arrives as seat_assigned (with its token, once)
  const tournaments = opts.tournamentClient;
  const token = opts["player-token"];
  const me = (await call(players, "GetPlayer", { player_token: token })).player;
  let t = (await call(tournaments, "GetTournament", { tournament_id: opts.tournament })).tournament;
  if (!t.entrants.some((e) => e.player_id === me.player_id)) {
    t = (await call(tournaments, "JoinTournament", { tournament_id: opts.tournament, player_token: token })).tournament;
  }
  say({ entered: t.tournament_id, game: t.game, player: me.name });
  const seats = new Map(); // game id -> seat
  const held = await call(players, "GetPlayer", { player_token: token }); // a restart: fresh tokens
  for (const s of held.seats) {
    const joined = await call(lobby, "JoinGame", { game_id: s.game_id, player_token: token, seat: s.seat });
    seats.set(s.game_id, { game_id: s.game_id, seat: s.seat, seat_token: joined.seat_token, moves: 0, version: -1 });
  }
  let cursor = "0";
  let played = 0;
  let queue = Promise.resolve();
  let stream;
  const over = new Promise((resolve, reject) => {
    let watched = "0";
    const follow = () => {
      const watch = tournaments.StreamTournamentEvents({ tournament_id: t.tournament_id, cursor: watched });
      watch.on("data", (msg) => {
        watched = msg.cursor;
        if (msg.event === "tournament_finished") resolve(msg.tournament_finished);
      });
      watch.on("error", (err) => {
        if (err.code === grpc.status.UNAVAILABLE) return void setTimeout(follow, 500); // a server restart
        if (err.code !== grpc.status.CANCELLED) reject(err);
      });
    };
    follow();
    const open = () => {
      stream = players.StreamPlayerEvents({ player_token: token, cursor });
      stream.on("data", (msg) => {
        cursor = msg.cursor;
        const body = msg[msg.event];
        if (!body || body.game !== opts.game) return;
        if (msg.event === "seat_assigned" && body.seat_token) {
          seats.set(body.game_id, { game_id: body.game_id, seat: body.seat, seat_token: body.seat_token, moves: 0,
            version: -1 });
        }
        const seat = seats.get(body.game_id);
        if (!seat) return;
        if (msg.event === "your_turn") {
          if (Number(body.status.version) >= seat.version) queue = queue.then(() => playTurn(seat, body)).catch(reject);
        } else if (msg.event === "game_over") {
          seats.delete(body.game_id);
          played += 1;
          say({ game_over: { game_id: body.game_id, seat: body.seat, moves: seat.moves, ranks: body.outcome.ranks } });
        }
      });
      stream.on("error", (err) => {
        if (err.code === grpc.status.CANCELLED) return;
        if (err.code === grpc.status.UNAVAILABLE) return void setTimeout(open, 500); // resume from the cursor
        reject(err);
      });
    };
    open();
  });
  const finished = await over;
  await sleep(300);
  stream.cancel();
  say({ tournament_over: { tournament_id: t.tournament_id, state: finished.state, played } });
  process.exit(0);
}

async function main() {
  if (opts.tournament) return playTournament();
  const registered = await call(players, "RegisterPlayer", { name: opts.name });
  const token = registered.player_token;
  say({ registered: registered.player.name, player_id: registered.player.player_id });
  const joined = await joinOpenGame(token, registered.player.player_id);
  const seat = { game_id: joined.game_id, seat: joined.seat, seat_token: joined.seat_token, moves: 0, version: -1 };
  say({ joined: seat.game_id, seat: seat.seat });

  let cursor = "0";
  let queue = Promise.resolve();
  const done = new Promise((resolve, reject) => {
    const open = () => {
      const stream = players.StreamPlayerEvents({ player_token: token, cursor });
      stream.on("data", (msg) => {
        cursor = msg.cursor;
        const body = msg[msg.event];
        if (!body || body.game_id !== seat.game_id) return;
        if (msg.event === "your_turn") {
          if (Number(body.status.version) >= seat.version) queue = queue.then(() => playTurn(seat, body)).catch(reject);
        } else if (msg.event === "game_over") {
          stream.cancel();
          queue.then(() => resolve(body.outcome));
        } else {
          say({ [msg.event]: seat.game_id });
        }
      });
      stream.on("error", (err) => {
        if (err.code === grpc.status.CANCELLED) return;
        if (err.code === grpc.status.UNAVAILABLE) return void setTimeout(open, 500); // resume from the cursor
        reject(err);
      });
    };
    open();
  });
  const timer = setTimeout(() => { console.error("timed out"); process.exit(1); }, Number(opts.timeout) * 1000);
  const outcome = await done;
  clearTimeout(timer);
  say({ game_over: { game_id: seat.game_id, seat: seat.seat, moves: seat.moves, ranks: outcome.ranks,
    scores: outcome.scores, winners: outcome.winners } });
  players.close(); lobby.close(); game.close();
}

main().catch(fail);

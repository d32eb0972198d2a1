// A small typed client over the generated protobuf-es descriptors and Connect (connect-web).
// Copy this file to start a frontend: every game's service has the same RPCs (TEMPLATE.md),
// so one class serves all games; a game whose descriptors are not in this bundle yet falls back
// to plain Connect-JSON calls with fetch (and polling instead of the event stream).
import { create, fromJson, toJson, type DescMessage, type DescService, type JsonValue } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, type Client } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import * as gen from "./gen/index";
import { ErrorInfoSchema } from "./gen/google/rpc/error_details_pb";

export type Json = any; // views, moves and events are handled as proto-JSON (camelCase) objects

export const transport = createConnectTransport({ baseUrl: location.origin });

/** Every service descriptor in the generated code, by full name. */
const SERVICES = new Map<string, DescService>();
for (const mod of Object.values(gen)) {
  for (const v of Object.values(mod as Record<string, unknown>)) {
    const d = v as DescService;
    if (d && typeof d === "object" && d.kind === "service") SERVICES.set(d.typeName, d);
  }
}

/** A served game (/api/games, from the server's registry); `rpcs` names its RPC per role, e.g.
 *  rpcs.make_move === "MakePompeiiMove" (gameengine.codecs.RPCS). */
export interface GameType {
  game: string; prefix: string; service: string; data_files: string[]; rpcs: Record<string, string>;
}
export interface LiveGame { game_id: string; game: string; seats: number; version: number; over: boolean; }

/** A refusal as the page shows it: the status code and the rule id from google.rpc.ErrorInfo. */
/** A refused call: `code` as gRPC names it (PERMISSION_DENIED), `rule` from its ErrorInfo. */
export class Refusal extends Error {
  constructor(public code: string, message: string, public rule: string) { super(message); }

  /** Asking again changes nothing (an unknown game, a wrong token, a bad request): stop, and say so. */
  get final(): boolean { return FINAL_CODES.has(this.code); }
}

const FINAL_CODES = new Set(["NOT_FOUND", "PERMISSION_DENIED", "INVALID_ARGUMENT", "UNAUTHENTICATED", "UNIMPLEMENTED"]);

/** connect-web's Code name (PermissionDenied) as gRPC's (PERMISSION_DENIED). */
const grpcName = (name: string) => name.replace(/([a-z])([A-Z])/g, "$1_$2").toUpperCase();

/** A failure as the page shows it: `CODE: RULE-n: message` (the server's message starts with its rule). */
export function said(e: unknown): string {
  const r = e instanceof Refusal ? e : refusal(e);
  return `${r.code}: ${r.rule && !r.message.startsWith(`${r.rule}:`) ? `${r.rule}: ` : ""}${r.message}`;
}

export function refusal(e: unknown): Refusal {
  if (e instanceof ConnectError) {
    let rule = "";
    for (const d of e.findDetails(ErrorInfoSchema)) rule = d.metadata["rule"] ?? rule;
    return new Refusal(grpcName(Code[e.code]), e.rawMessage, rule);
  }
  return new Refusal("UNKNOWN", String(e), "");
}

export async function listGames(): Promise<{ types: GameType[]; games: LiveGame[] }> {
  const r = await fetch("/api/games", { cache: "no-store" });
  return r.json();
}

const JSON_OPTS = { alwaysEmitImplicit: true } as const;

/** The router (k8s/) sends a call to the replica that owns its game by this header. */
function routing(req: Json): Record<string, string> {
  return req?.gameId ? { "x-game-id": String(req.gameId) } : {};
}

function key(): string {
  return globalThis.crypto?.randomUUID?.() ?? `${Date.now()}-${Math.random().toString(36).slice(2)}`;
}

/** One game type's API: its RPCs by role (create_game, get_view, ...), named by /api/games. */
export class GameApi {
  readonly svc?: DescService;
  private client?: Client<DescService>;

  constructor(readonly type: GameType) {
    this.svc = SERVICES.get(type.service);
    if (this.svc) this.client = createClient(this.svc, transport);
  }

  get generated(): boolean { return this.svc !== undefined; }

  private method(role: string) {
    return this.svc?.methods.find((m) => m.name === this.type.rpcs[role]);
  }

  /** Unary call with a JSON-shaped request; returns the JSON-shaped response. */
  async call(role: string, req: Json): Promise<Json> {
    const m = this.method(role);
    if (!m || !this.client) return this.fetchJson(role, req);
    try {
      // through JSON text, as the fallback sends it: a field left undefined is absent (fromJson rejects undefined)
      const input = fromJson(m.input, JSON.parse(JSON.stringify(req ?? {})) as JsonValue, { ignoreUnknownFields: true });
      const fn = (this.client as any)[m.localName] as (r: unknown, o: unknown) => Promise<any>;
      const res = await fn.call(this.client, input, { headers: routing(req) });
      return toJson(m.output as DescMessage, res, JSON_OPTS);
    } catch (e) {
      throw refusal(e);
    }
  }

  /** Fallback for a game this bundle does not know yet: Connect protocol, JSON codec, by hand. */
  private async fetchJson(role: string, req: Json): Promise<Json> {
    const r = await fetch(`/${this.type.service}/${this.type.rpcs[role]}`, {
      method: "POST", headers: { "content-type": "application/json", "connect-protocol-version": "1", ...routing(req) },
      body: JSON.stringify(req),
    });
    const body = await r.json();
    if (!r.ok) throw new Refusal(String(body.code ?? r.status).toUpperCase(), body.message ?? "", "");
    return body;
  }

  view(gameId: string, token: string) { return this.call("get_view", { gameId, token }); }
  moves(gameId: string, token: string) { return this.call("list_moves", { gameId, token }); }
  /** A new game; without `referee` the request has no referee field (the server's defaults), not `undefined`. */
  create(seats: number, referee?: Json, seating?: Json) {
    return this.call("create_game", { seats, ...(referee ? { referee } : {}), ...seating });
  }
  move(gameId: string, token: string, expectedVersion: number, move: Json) {
    return this.call("make_move", { gameId, token, expectedVersion, idempotencyKey: key(), move });
  }

  /** Server stream of (version, event JSON) for the caller; ends with the game. */
  async *events(gameId: string, token: string, fromVersion: number, signal: AbortSignal): AsyncGenerator<[number, Json]> {
    const m = this.method("stream_events");
    if (!m || !this.client) { // no descriptors: poll the view's version instead
      let v = fromVersion;
      while (!signal.aborted) {
        await new Promise((r) => setTimeout(r, 1000));
        const res = await this.view(gameId, token);
        const now = res.status?.version ?? 0;
        if (now > v) { v = now; yield [now, { poll: { version: now } }]; }
        if (res.status?.over) return;
      }
      return;
    }
    const fn = (this.client as any)[m.localName] as (r: unknown, o: unknown) => AsyncIterable<any>;
    try {
      for await (const item of fn.call(this.client, create(m.input, { gameId, token, fromVersion } as any),
                                           { signal, headers: routing({ gameId }) })) {
        yield [item.version, toJson(m.output.field.event.message as DescMessage, item.event, JSON_OPTS)];
      }
    } catch (e) {
      if (signal.aborted) return;
      throw refusal(e);
    }
  }
}

/** "playCard", {number: 3, square: {row: 1, col: 2}} from {playCard: {...}}. */
export function oneof(msg: Json): [string, Json] {
  const k = Object.keys(msg ?? {})[0] ?? "";
  return [k, msg?.[k] ?? {}];
}

/** A short readable label for a move or event. */
export function label(msg: Json): string {
  const [kind, body] = oneof(msg);
  const parts: string[] = [];
  const flat = (v: Json): string => {
    if (Array.isArray(v)) return `[${v.map(flat).join(",")}]`;
    if (v && typeof v === "object") {
      if ("row" in v || "col" in v) return `(${v.row ?? 0},${v.col ?? 0})`;
      if ("x" in v || "y" in v) return `(${v.x ?? 0},${v.y ?? 0})`;
      return `{${Object.entries(v).map(([k, x]) => `${k}:${flat(x)}`).join(" ")}}`;
    }
    return String(v);
  };
  for (const [k, v] of Object.entries(body ?? {})) {
    if (v === "" || v === false || (Array.isArray(v) && v.length === 0)) continue;
    parts.push(`${k} ${flat(v)}`);
  }
  return `${kind.replace(/([A-Z])/g, " $1").toLowerCase()}${parts.length ? ": " + parts.join(", ") : ""}`;
}


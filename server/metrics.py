"""Prometheus metrics, served over HTTP on GE_METRICS_PORT (default 9464)."""
from prometheus_client import Counter, Gauge, Histogram

RPC_LATENCY = Histogram("ge_rpc_latency_seconds", "RPC handling time", ["method", "code"],
                        buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5))
MOVE_LATENCY = Histogram("ge_move_apply_seconds", "Engine check + journal time per accepted move", ["game"],
                         buckets=(0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.05))
MOVES = Counter("ge_moves_total", "Moves by outcome", ["game", "result"])
GAMES_CREATED = Counter("ge_games_created_total", "Games created", ["game"])
LIVE_GAMES = Gauge("ge_live_games", "Games held in memory")
STREAMS = Gauge("ge_event_streams", "Open event streams", ["game"])
SNAPSHOT_SECONDS = Histogram("ge_snapshot_seconds", "Snapshot duration", buckets=(0.01, 0.1, 0.5, 1, 2, 5, 10, 30))
REFEREE_ACTIONS = Counter("ge_referee_actions_total", "Referee interventions", ["game", "action"])
HINTS = Counter("ge_hints_total", "Hint requests", ["game", "result"])

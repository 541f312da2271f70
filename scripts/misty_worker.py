#!/usr/bin/env python3
"""Misty (PyPI `misty-chess`, imports as `fow_chess`) as a Mistboard stdio engine worker.

One JSON object per line on stdin, one answer per line on stdout, in the envelope of
Mistboard's engine worker pool (the same envelope `murk serve --stdio` reads):

  in   {"requestId": "r1", "engineTurnRequest": {...EngineTurnRequest...},
        "computeBudgetMs": 1000, "workerDeadlineMs": 3000}
       (a bare EngineTurnRequest is read too; then --movetime is the budget)
  out  {"requestId": "r1", "ok": true,
        "response": {...EngineTurnResponse..., "engine": {"id": "misty"}, "roomId": <gameId>,
                     "decisionSource": "search"}}
       or {"requestId": "r1", "ok": false, "error": "<code>: <message>", "code": ..., "status": 400}

Dark Chess only (Misty plays nothing else). One belief per gameId: a request whose gameId
differs from the last, or whose transcript is shorter than what was fed, starts a new game.
Timing lines go to stderr. The set-up: docs/match.md, "Playing Mistboard engines".
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

if "FOW_STOCKFISH" not in os.environ and os.path.exists("/usr/games/stockfish"):
    os.environ["FOW_STOCKFISH"] = "/usr/games/stockfish"   # Debian's stockfish package

import chess  # noqa: E402
from fow_chess import engine_protocol as proto  # noqa: E402
from fow_chess import rust_health  # noqa: E402
from fow_chess.engine_profile import PROFILES  # noqa: E402
from fow_chess.protocol_adapter import (  # noqa: E402
    build_perspective_view, feed_transcript_tail, move_to_protocol)


class Misty:
    def __init__(self, profile: str, seed: int, p_max: int):
        if not rust_health.available():
            sys.exit("misty worker: the fow_rust extension is not installed (see docs/match.md); "
                     "pure-Python Misty cannot finish a game under a time limit")
        self.profile, self.seed, self.p_max = profile, seed, p_max
        self.strategy = None
        self.game_id = None
        self.fed = 0

    def turn(self, req_json: dict, budget_s: float) -> dict:
        if req_json.get("gameSpecId") not in (None, "dark-chess"):
            raise ValueError(f"unsupported_game: Misty plays dark-chess only, not {req_json['gameSpecId']}")
        req = proto.request_from_json(req_json)
        if self.strategy is None:
            self.strategy = PROFILES[self.profile].build_strategy(
                seed=self.seed, time_budget_seconds=budget_s, p_max_size=self.p_max)
        self.strategy.set_time_budget(budget_s)
        transcript = req.observation_transcript or ()
        if self.game_id != req.game_id or len(transcript) < self.fed:
            self.strategy.reset(chess.WHITE if req.color == "white" else chess.BLACK, game_id=req.game_id)
            self.game_id, self.fed = req.game_id, 0
        self.fed = feed_transcript_tail(self.strategy, req, self.fed)
        view = build_perspective_view(req)
        move = self.strategy.pick_move(view)
        legal = {(m.from_square, m.to_square, m.promotion): m for m in view.own_legal_moves}
        if (move.from_square, move.to_square, move.promotion) not in legal:
            # Misty writes castling as the king's two-square step (e1g1); the wire form is e1h1.
            f, t = move.from_square, move.to_square
            if move.promotion is None and chess.square_file(f) == 4 and abs(chess.square_file(t) - 4) == 2:
                rook = chess.square(7 if chess.square_file(t) > 4 else 0, chess.square_rank(f))
                move = legal.get((f, rook, None), move)
        resp = proto.response_to_json(proto.EngineTurnResponse(
            protocol_version="1", game_id=req.game_id, session_id=req.session_id,
            move=move_to_protocol(move)))
        resp.update({"engine": {"id": req_json.get("engineId", "misty")}, "roomId": req.game_id,
                     "decisionSource": "search"})
        return resp


def main() -> int:
    p = argparse.ArgumentParser(description="Misty as a Mistboard stdio engine worker (Dark Chess)")
    p.add_argument("--profile", default="v1.0", choices=sorted(PROFILES),
                   help="Misty's engine profile; v1.0 stays inside its budget, v1.6 (its live engine) "
                        "spends seconds outside it on a small machine")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--pmax", type=int, default=16_000_000, help="cap on the belief set (Misty's live value)")
    p.add_argument("--movetime", type=float, default=1.0, help="budget in seconds for a bare request")
    p.add_argument("--margin-ms", type=int, default=250,
                   help="kept back from computeBudgetMs for the belief update and the reply")
    a = p.parse_args()
    engine = Misty(a.profile, a.seed, a.pmax)
    for line in sys.stdin:
        if not line.strip():
            continue
        rid = None
        try:
            msg = json.loads(line)
            rid = msg.get("requestId")
            req = msg.get("engineTurnRequest", msg)
            budget_ms = msg.get("computeBudgetMs") or msg.get("watchdogTimeoutMs")
            budget_s = max(0.05, (budget_ms - a.margin_ms) / 1000.0) if budget_ms else a.movetime
            t0 = time.monotonic()
            resp = engine.turn(req, budget_s)
            print(f"misty: ply {req.get('ply')} {resp['move']} in {time.monotonic() - t0:.3f} s",
                  file=sys.stderr, flush=True)
            out = {"requestId": rid, "ok": True, "response": resp}
        except Exception as exc:  # one bad request must not end the worker
            engine.game_id = None
            code = "unsupported_game" if "unsupported_game" in str(exc) else "engine_error"
            out = {"requestId": rid, "ok": False, "error": f"{code}: {type(exc).__name__}: {exc}",
                   "code": code, "status": 400 if code == "unsupported_game" else 500}
        print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

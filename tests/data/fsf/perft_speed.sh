#!/usr/bin/env bash
# Single-thread perft speed of Fairy-Stockfish, as a yardstick for Murk's move generator.
# Prints one line per case:
#   fsf-perft <case> variant=<v> depth=<d> nodes=<n> seconds=<s> nps=<nodes per second>
# seconds = wall time of the whole fairy-stockfish run minus that of the same run at depth 1 (start-up,
# variant parsing), divided by the number of perft iterations in the run, best of $REPEAT runs.
# Note: Fairy-Stockfish's perft bulk-counts the last ply (it counts the generated move list at depth-1 nodes
# without making those moves), like Stockfish's; nps = counted leaf nodes per second.
# Env: FSF=path/to/fairy-stockfish (default: from PATH, see install.sh), REPEAT (default 1),
#      CASES="name ..." to run a subset (names: first field of ALL below).
# Crossroads start: depth 7 takes ~2 s and depth 8 ~37 s here, so the ~5-20 s case is the 'river' position
# of tests/data/perft/dark-crossroads.perft at depth 7 (1075800978 nodes).
set -euo pipefail
DIR=$(cd "$(dirname "$0")" && pwd)
INI="$DIR/variants.ini"
FSF=${FSF:-$(command -v fairy-stockfish || true)}
[ -n "$FSF" ] && [ -x "$FSF" ] || { echo "fairy-stockfish not found; run $DIR/install.sh" >&2; exit 1; }
REPEAT=${REPEAT:-1}

START="rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
ZHSTART="rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1"
KIWI="r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
XRSTART="bknhcv/pppooo/6/6/6/6/OOOPPP/VCHNKB w - - 0 1"
XRRIVER="bk1hcv/pp3o/2p3/O2oO1/1o1P2/4N1/1O2PP/VCH1KB w - - 0 1"
# case|variant|fen|depth|iterations (go perft repeated in one process; seconds and nps are per iteration)
ALL=(
  "darkchess-start-d6|fogofwar|$START|6|1"
  "darkchess-kiwipete-d5|fogofwar|$KIWI|5|1"
  "darkcrazyhouse-start-d5|darkcrazyhouse|$ZHSTART|5|20"
  "darkcrazyhouse-start-d6|darkcrazyhouse|$ZHSTART|6|1"
  "darkcrossroads-start-d7|darkcrossroads|$XRSTART|7|1"
  "darkcrossroads-river-d7|darkcrossroads|$XRRIVER|7|1"
)

run() { # variant fen depth iterations -> prints "nodes seconds" (nodes of one iteration, wall time of all)
  local t0 t1 out gos
  gos=$(for _ in $(seq "$4"); do printf 'go perft %s\n' "$3"; done)
  t0=$(date +%s.%N)
  out=$(printf 'setoption name Threads value 1\nsetoption name VariantPath value %s\nsetoption name UCI_Variant value %s\nposition fen %s\n%s\nquit\n' \
        "$INI" "$1" "$2" "$gos" | "$FSF" | sed -n 's/^Nodes searched: //p' | tail -1)
  t1=$(date +%s.%N)
  echo "$out $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }')"
}

for c in "${ALL[@]}"; do
  IFS='|' read -r name variant fen depth iters <<<"$c"
  if [ -n "${CASES:-}" ] && [[ " $CASES " != *" $name "* ]]; then continue; fi
  base=$(run "$variant" "$fen" 1 1 | cut -d' ' -f2)
  best=""
  for _ in $(seq "$REPEAT"); do
    read -r nodes secs < <(run "$variant" "$fen" "$depth" "$iters")
    if [ -z "$best" ] || awk -v a="$secs" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$secs; fi
  done
  net=$(awk -v a="$best" -v b="$base" -v k="$iters" 'BEGIN { printf "%.6f", (a - b) / k }')
  awk -v n="$name" -v v="$variant" -v d="$depth" -v nodes="$nodes" -v s="$net" \
    'BEGIN { if (s <= 0) s = 1e-9; printf "fsf-perft %s variant=%s depth=%s nodes=%s seconds=%.3f nps=%.0f\n", n, v, d, nodes, s, nodes / s }'
done

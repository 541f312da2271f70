#!/usr/bin/env bash
# Pseudo-legal perft speed of Murk against Fairy-Stockfish, single thread, same positions, same run.
# Needs fairy-stockfish (tests/data/fsf/install.sh builds it) and a release build of murk.
# Prints one line per case: murk nps, fsf nps and their ratio; node counts must agree.
# Usage: bash benches/perft_vs_fsf.sh   (REPEAT=3 for best-of-3 timings)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
MURK=target/release/murk
REPEAT=${REPEAT:-1}
START="rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
ZHSTART="rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1"
KIWI="r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
XRSTART="bknhcv/pppooo/6/6/6/6/OOOPPP/VCHNKB w - - 0 1"
XRRIVER="bk1hcv/pp3o/2p3/O2oO1/1o1P2/4N1/1O2PP/VCH1KB w - - 0 1"
# fsf case name | murk variant | fen | depth
CASES=(
  "darkchess-start-d6|dark-chess|$START|6"
  "darkchess-kiwipete-d5|dark-chess|$KIWI|5"
  "darkcrazyhouse-start-d6|dark-crazyhouse|$ZHSTART|6"
  "darkcrossroads-start-d7|dark-crossroads|$XRSTART|7"
  "darkcrossroads-river-d7|dark-crossroads|$XRRIVER|7"
)
for c in "${CASES[@]}"; do
  IFS='|' read -r name variant fen depth <<<"$c"
  best=""
  for _ in $(seq "$REPEAT"); do
    t0=$(date +%s.%N)
    nodes=$("$MURK" perft "$depth" --variant "$variant" --fen "$fen" | sed -n 's/^Nodes searched: //p')
    t1=$(date +%s.%N)
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }')
    if [ -z "$best" ] || awk -v a="$secs" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$secs; fi
  done
  fsf=$(CASES="$name" REPEAT="$REPEAT" bash tests/data/fsf/perft_speed.sh)
  fsf_nodes=$(sed -n 's/.* nodes=\([0-9]*\).*/\1/p' <<<"$fsf")
  fsf_nps=$(sed -n 's/.* nps=\([0-9]*\).*/\1/p' <<<"$fsf")
  [ "$nodes" = "$fsf_nodes" ] || { echo "$name: node counts differ: murk $nodes, fsf $fsf_nodes" >&2; exit 1; }
  awk -v n="$name" -v nodes="$nodes" -v s="$best" -v f="$fsf_nps" \
    'BEGIN { m = nodes / s; printf "%-26s nodes=%-11s murk_nps=%.0f fsf_nps=%.0f ratio=%.2f\n", n, nodes, m, f, m / f }'
done

#!/usr/bin/env bash
# Thread scaling of Murk's search: nodes per second of `murk bench` at 1, 2, 4, ... threads, up to
# the machine's cores, interleaved over several rounds so that a noisy machine hits each count
# alike; prints the median per count and its ratio to one thread.
#   bash benches/threads.sh [ROUNDS] [MOVETIME_MS]
# With MOVETIME_MS (default 200) each position is searched for that long, as in a game (the
# worlds drawn and the root split follow the thread count); with MOVETIME_MS=0 the fixed-node
# bench is used (the same work at every count).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
movetime=${2:-200}
cargo build --release --quiet
bin=target/release/murk
cores=$(nproc)
counts=()
for t in 1 2 4 8 16 32 64; do
  [ "$t" -le "$cores" ] && counts+=("$t")
done
declare -A runs
for ((r = 1; r <= rounds; r++)); do
  for t in "${counts[@]}"; do
    if [ "$movetime" -gt 0 ]; then
      nps=$($bin bench --threads "$t" --movetime "$movetime" | awk '/^Nodes\/second/ {print $2}')
    else
      nps=$($bin bench --threads "$t" | awk '/^Nodes\/second/ {print $2}')
    fi
    runs[$t]="${runs[$t]:-} $nps"
  done
done
median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : int((a[NR/2]+a[NR/2+1])/2)}'; }
base=$(echo "${runs[1]}" | median)
echo "threads  nodes/s (median of $rounds; min..max)  ratio to 1 thread   [$cores cores, movetime ${movetime} ms]"
for t in "${counts[@]}"; do
  m=$(echo "${runs[$t]}" | median)
  lo=$(echo "${runs[$t]}" | tr ' ' '\n' | grep -v '^$' | sort -n | head -1)
  hi=$(echo "${runs[$t]}" | tr ' ' '\n' | grep -v '^$' | sort -n | tail -1)
  awk -v t="$t" -v m="$m" -v lo="$lo" -v hi="$hi" -v b="$base" 'BEGIN {printf "%7s  %10s (%s..%s)  %.2f\n", t, m, lo, hi, m / b}'
done

#!/usr/bin/env bash
# How `warpkit examples` (the whole suite, as a user runs it) scales from 1 to 2 host
# threads. The 1- and 2-thread runs alternate, so a slow spell of a shared machine falls
# on both; every run must check out (exit 0). Prints each pair, the ratio of the fastest
# runs and of the medians, and how busy the two cores were in the 2-thread runs (CPU time
# over wall time, 2.00 = no core ever idle), which a slow spell of the machine does not
# change. Each round also runs two 1-thread suites at once, as separate processes: how
# much two independent jobs gain on this machine (memory, caches and clock shared) is the
# ceiling a 2-thread run can reach. Needs GNU time and python3. Usage: bench/scaling.sh [PAIRS] (default 6).
set -euo pipefail
cd "$(dirname "$0")/.."
pairs=${1:-6}
cargo build --release --locked -q -p warpkit
warpkit=${CARGO_TARGET_DIR:-target}/release/warpkit

times=$(mktemp)
trap 'rm -f "$times"' EXIT
for i in $(seq "$pairs"); do
  for threads in 1 2; do # one line per run: threads, wall, user, system seconds
    /usr/bin/time -a -o "$times" -f "$threads %e %U %S" "$warpkit" examples --threads "$threads" -q >/dev/null
  done
  start=$(date +%s.%N)
  "$warpkit" examples --threads 1 -q >/dev/null &
  "$warpkit" examples --threads 1 -q >/dev/null
  wait $!
  echo "1+1 $(echo "$(date +%s.%N) - $start" | bc)" >>"$times"
  tail -n 3 "$times" | paste -d ' ' - - - | awk -v i="$i" '{
    printf "round %d: 1 thread %.2f s, 2 threads %.2f s (%.2fx); two 1-thread suites at once %.2f s (%.2fx)\n",
      i, $2, $6, $2 / $6, $10, 2 * $2 / $10 }'
done
python3 - "$times" <<'EOF'
import statistics, sys
runs = [line.split() for line in open(sys.argv[1])]
one = [float(r[1]) for r in runs if r[0] == "1"]
two = [float(r[1]) for r in runs if r[0] == "2"]
both = [float(r[1]) for r in runs if r[0] == "1+1"]
busy = [(float(r[2]) + float(r[3])) / float(r[1]) for r in runs if r[0] == "2"]
print(f"fastest: 1 thread {min(one):.2f} s, 2 threads {min(two):.2f} s, {min(one) / min(two):.2f}x")
m1, m2 = statistics.median(one), statistics.median(two)
print(f"median:  1 thread {m1:.2f} s, 2 threads {m2:.2f} s, {m1 / m2:.2f}x")
print(f"ceiling: two 1-thread suites at once, median {statistics.median(both):.2f} s: {2 * m1 / statistics.median(both):.2f}x the work per second of one")
print(f"2-thread runs kept {statistics.median(busy):.2f} cores busy (median; {min(busy):.2f}-{max(busy):.2f})")
EOF

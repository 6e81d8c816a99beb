#!/usr/bin/env bash
# The compiled OpenCL kernels of examples/opencl/ side by side with native OpenCL on the
# same CPU, in one run: POCL (Debian's pocl-opencl-icd) compiles each `.cl` file to
# vectorised host code and runs it on every core; warpkit compiles the same file and
# simulates it on both engines (`jit`, `interp`), every core too.
#
#   - the launches and input buffers are the examples' own (`warpkit examples --save-cases`),
#     so both sides do exactly the same work at the examples' full sizes;
#   - POCL's time is the kernel time from OpenCL profiling events, summed over a case's
#     launches, warm (a first run compiles its work-group functions), best of RUNS;
#     bench/opencl_host.c creates and fills the buffers outside the timed span;
#   - warpkit's time is simulation time only (the `wall_seconds` of `warpkit examples
#     --json`: the launches, not compiling or checking), best of RUNS, one kernel at a time;
#   - every POCL result is compared with the model's (the buffers each example checks);
#     warpkit's own runs are checked against the host references as always.
# Installs POCL, the OpenCL headers and loader and clinfo from Debian's packages where it
# can (as root with apt-get), and says so and stops where it cannot.
# Usage: bench/opencl_peers.sh [RUNS] (default 5). Prints a Markdown table.
# For a quick check (the test suite runs it so): WARPKIT=path/to/warpkit uses that binary
# instead of building one, KERNELS="opencl/vadd ..." runs only those, SMALL=1 the small
# problem sizes, WORK=DIR keeps its files in DIR instead of bench/.opencl_peers.
set -euo pipefail
shopt -s inherit_errexit
cd "$(dirname "$0")/.."
runs=${1:-5}
work=${WORK:-bench/.opencl_peers}

# ---- POCL, from Debian's packages -----------------------------------------------------
have_pocl() {
  [ -f /usr/include/CL/cl.h ] || return 1
  # Read whole, then searched: `grep -q` ending a pipe early would fail it (pipefail).
  local libs platforms
  libs=$(ldconfig -p 2>/dev/null) || true
  platforms=$(clinfo -l 2>/dev/null) || true
  grep -q 'libOpenCL\.so\b' <<<"$libs" && grep -qi 'portable computing language' <<<"$platforms"
}
if ! have_pocl; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "opencl_peers.sh: installing pocl-opencl-icd, ocl-icd-opencl-dev, opencl-headers, clinfo" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      pocl-opencl-icd ocl-icd-opencl-dev opencl-headers clinfo >/dev/null
  fi
  if ! have_pocl; then
    echo "opencl_peers.sh: POCL is not installed and cannot be installed here (needs root and" >&2
    echo "  apt-get: pocl-opencl-icd ocl-icd-opencl-dev opencl-headers clinfo); nothing measured" >&2
    exit 2
  fi
fi

if [ -z "${WARPKIT:-}" ]; then
  cargo build -q --release -p warpkit
  WARPKIT=target/release/warpkit
fi
size=()
[ -z "${SMALL:-}" ] || size=(--small)
mkdir -p "$work"
gcc -O2 -Wall -Wextra -o "$work/opencl_host" bench/opencl_host.c -lOpenCL

if [ -n "${KERNELS:-}" ]; then
  read -r -a kernels <<<"$KERNELS"
else
  mapfile -t kernels < <("$WARPKIT" examples --list | awk '$1 ~ /^opencl\// {print $1}')
fi
rm -rf "$work/cases"
"$WARPKIT" examples -q "${size[@]}" "${kernels[@]}" --save-cases "$work/cases" >/dev/null

# best_wall ENGINE KERNEL: the least simulation time of RUNS runs, in seconds.
best_wall() {
  local best="" t
  for _ in $(seq "$runs"); do
    "$WARPKIT" examples -q "${size[@]}" "$2" --engine "$1" --json "$work/run.json" >/dev/null
    t=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))[0]; assert r["passed"], r; print(r["wall_seconds"])' "$work/run.json")
    if [ -z "$best" ] || python3 -c "import sys; sys.exit(not $t < $best)"; then best=$t; fi
  done
  echo "$best"
}

device=$(clinfo -l | awk -F'Device #0: ' 'NF > 1 && !seen {print $2; seen = 1}')
echo "POCL device: $device; warpkit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $(nproc) cores, best of $runs"
echo
echo "| kernel | POCL ms | warpkit jit ms | warpkit interp ms | jit / POCL | interp / POCL | POCL result vs model |"
echo "|---|---:|---:|---:|---:|---:|---|"
# Kernels whose POCL results may differ from the model's: softmax's native_exp2 has
# implementation-defined accuracy (the model's fexp2 is within 1 ulp, POCL's too: its
# exponentials pass the 1-ulp check, and the rows built from them differ in the last bits).
inexact=" opencl/softmax "
results=()
differs=()
for k in "${kernels[@]}"; do
  status=0
  line=$("$work/opencl_host" "$work/cases/$k" . "$runs") || status=$?
  if [ "$status" -ge 2 ]; then echo "opencl_peers.sh: $k failed on POCL" >&2; exit 1; fi
  if [ "$status" = 1 ] && [[ "$inexact" != *" $k "* ]]; then differs+=("$k"); fi
  pocl=$(awk '{print $2}' <<<"$line")
  check=$(sed 's/^kernel_seconds [^ ]* check //' <<<"$line")
  jit=$(best_wall jit "$k")
  interp=$(best_wall interp "$k")
  results+=("$k $pocl $jit $interp")
  python3 -c '
import sys
k, pocl, jit, interp, check = sys.argv[1], *map(float, sys.argv[2:5]), sys.argv[5]
print(f"| {k} | {pocl*1e3:.3f} | {jit*1e3:.3f} | {interp*1e3:.3f} | {jit/pocl:.1f} | {interp/pocl:.1f} | {check} |")
' "$k" "$pocl" "$jit" "$interp" "$check"
done
printf '%s\n' "${results[@]}" | python3 -c '
import math, sys
rows = [l.split() for l in sys.stdin if l.strip()]
for col, name in ((2, "jit"), (3, "interp")):
    ratios = [float(r[col]) / float(r[1]) for r in rows]
    geo = math.exp(sum(map(math.log, ratios)) / len(ratios))
    worst = max(zip(ratios, (r[0] for r in rows)))
    print(f"\nwarpkit {name} / POCL: geometric mean {geo:.2f} over {len(rows)} kernels, worst {worst[0]:.1f} ({worst[1]})")
'
if [ ${#differs[@]} -gt 0 ]; then
  echo "opencl_peers.sh: POCL's results differ from the model's on: ${differs[*]}" >&2
  exit 1
fi

#!/usr/bin/env bash
# Side-by-side measurements of warpkit and the tools a user would otherwise reach for, on
# this machine, in one run. Installs the peers from Debian's packages itself:
#   - riscv64-linux-gnu-as (binutils-riscv64-linux-gnu) assembling a RISC-V file as long
#     as the warpkit file `warpkit asm` assembles;
#   - qemu-riscv64 10 (bookworm-backports, package qemu-user) and the stock 7.2
#     (qemu-user-static) running an RVV loop a[i] = a[i]*b[i] + b[i], in its best
#     configuration (vlen, LMUL, vmadd.vv or vmul.vv + vadd.vv), against the same loop as a
#     warpkit kernel on `warpkit run`; both load both arrays every repetition, and every
#     timed run's result is checked.
# Each figure is the median of RUNS runs (the RVV grid: GRID_RUNS, default 3); rates are
# slopes between two sizes, so process start-up, assembly and checking cancel out.
# Needs python3 (bench/madd_data.py). Usage: [GRID_RUNS=N] bench/peers.sh [RUNS]
# (default 5).
set -euo pipefail
shopt -s inherit_errexit # a failed run inside $(...) stops the script too
cd "$(dirname "$0")/.."
runs=${1:-5}
work=bench/.peers
mkdir -p "$work"

# ---- peers, from Debian's packages ---------------------------------------------------
need_apt=()
command -v riscv64-linux-gnu-as >/dev/null || need_apt+=(binutils-riscv64-linux-gnu)
if [ ${#need_apt[@]} -gt 0 ]; then
  apt-get update -qq && apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
if [ ! -x "$work/qemu10/usr/bin/qemu-riscv64" ] || [ ! -x "$work/qemu72/usr/bin/qemu-riscv64-static" ]; then
  # bookworm-backports from the mirror the machine already uses.
  if ! apt-cache policy qemu-user | grep -q bookworm-backports; then
    uri=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
    [ -n "$uri" ] || uri=$(awk '/^deb /{print $2; exit}' /etc/apt/sources.list)
    printf 'Types: deb\nURIs: %s\nSuites: bookworm-backports\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' "$uri" \
      > /etc/apt/sources.list.d/warpkit-backports.sources
    apt-get update -qq
  fi
  (cd "$work" && rm -f ./*.deb && apt-get download -qq qemu-user/bookworm-backports qemu-user-static/bookworm 2>/dev/null)
  rm -rf "$work/qemu10" "$work/qemu72"
  dpkg-deb -x "$(ls "$work"/qemu-user_*bpo*.deb)" "$work/qemu10"
  dpkg-deb -x "$(ls "$work"/qemu-user-static_*7.2*.deb)" "$work/qemu72"
fi
QEMU10=$work/qemu10/usr/bin/qemu-riscv64
QEMU72=$work/qemu72/usr/bin/qemu-riscv64-static

cargo build -q --release -p warpkit
WARPKIT=target/release/warpkit

# ---- helpers -----------------------------------------------------------------------
# median_of N CMD...: median wall seconds of N runs of CMD; a run that fails (for the
# loops, one whose result is wrong) stops the script
median_of() {
  local n=$1 times=()
  shift
  for _ in $(seq "$n"); do
    local t0 t1
    t0=$(date +%s.%N)
    if ! "$@" >/dev/null 2>&1; then echo "peers.sh: failed or wrong result: $*" >&2; return 1; fi
    t1=$(date +%s.%N)
    times+=("$(echo "$t1 - $t0" | bc -l)")
  done
  printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'
}
median() { median_of "$runs" "$@"; } # of RUNS runs
ratio() { echo "scale=2; $1 / $2" | bc -l; }
rate() { echo "scale=0; $1 / $2" | bc -l; } # items / seconds

# ---- 1. assembling: lines per second ------------------------------------------------
lines_small=200000
lines_big=1000000
gen_rv() { awk -v n="$1" 'BEGIN{split("add a0, a1, a2|addi t0, t1, -17|lw a3, 12(sp)|sw a4, -8(s0)|slli a5, a5, 3|xor t2, t3, t4|mul a0, a0, a1|beq a0, a1, 1f|1: sub s1, s2, s3|lui a6, 0x12345", I, "|"); for(i=0;i<n;i++) print "\t" I[i%10+1]}' ; }
gen_wk() { awk -v n="$1" 'BEGIN{split("add v1, v2, v3|add.vi v4, v5, -17|mad.u32 v6, v7, v8, v9|cmp.lt.i32 u4, v1, v2|uaddi u5, u5, 3|mov.vl v10, 0x3fc00000|saveexec.and u6, u4|sll.vi v11, v11, 3|add64 v[12:13], v[12:13], v[14:15]|gload.b32 v16, v5, u[16:17], 16", I, "|"); for(i=0;i<n;i++) print "\t" I[i%10+1]}' ; }
gen_rv $lines_small > "$work/rv_small.s"; gen_rv $lines_big > "$work/rv_big.s"
gen_wk $lines_small > "$work/wk_small.s"; gen_wk $lines_big > "$work/wk_big.s"
as_s=$(median riscv64-linux-gnu-as "$work/rv_small.s" -o "$work/rv.o")
as_b=$(median riscv64-linux-gnu-as "$work/rv_big.s" -o "$work/rv.o")
wk_s=$(median "$WARPKIT" asm "$work/wk_small.s" -o "$work/wk.bin")
wk_b=$(median "$WARPKIT" asm "$work/wk_big.s" -o "$work/wk.bin")
as_rate=$(rate $((lines_big - lines_small)) "($as_b - $as_s)")
wk_rate=$(rate $((lines_big - lines_small)) "($wk_b - $wk_s)")
echo "assemble: riscv64-linux-gnu-as $as_rate lines/s, warpkit asm $wk_rate lines/s, ratio $(ratio "$wk_rate" "$as_rate")x"

# ---- 2. the a = a*b + b loop ---------------------------------------------------------
# The same work on both sides: every repetition loads a[i] and b[i], computes
# a[i]*b[i] + b[i] and stores a[i] (bench/madd.s, bench/rvv_madd.S.in), over the same
# inputs, and every timed run's result is compared with the one bench/madd_data.py
# computes without running the loop; a wrong result stops the script. The peer gets its
# best configuration: vlen 128..1024 x LMUL 1..8 x {vmadd.vv, vmul.vv + vadd.vv} is
# measured (median of GRID_RUNS, default 3), and the fastest is measured again with RUNS
# for the comparison.
elems=8192            # two 32 KiB arrays
grid_runs=${GRID_RUNS:-3}
# repetitions (small, big) per side: the slope spans a few tenths of a second
reps_q10="1000 10000"
reps_wk="10000 100000" # warpkit's translated loop is several times faster than qemu 10
reps_q72="200 2000"    # qemu 7.2 is about ten times slower
command -v python3 >/dev/null || { echo "peers.sh: needs python3 (bench/madd_data.py)" >&2; exit 1; }
# shellcheck disable=SC2086
python3 bench/madd_data.py "$work" $elems $reps_q10 $reps_wk $reps_q72
body_vmadd='vmadd.vv v0, v8, v8'
body_mul_add='vmul.vv v0, v0, v8; vadd.vv v0, v0, v8'
rvv() { # rvv REPS LMUL BODYNAME -> builds $work/rvv_REPS_LMUL_BODYNAME
  local body=$body_vmadd
  [ "$3" = mul_add ] && body=$body_mul_add
  sed "s/REPS/$1/; s/ELEMS/$elems/g; s/LMUL/$2/; s/BODY/$body/" bench/rvv_madd.S.in > "$work/rvv_$1_$2_$3.S"
  riscv64-linux-gnu-as -I "$work" -march=rv64gcv "$work/rvv_$1_$2_$3.S" -o "$work/rvv_$1_$2_$3.o"
  riscv64-linux-gnu-ld -static "$work/rvv_$1_$2_$3.o" -o "$work/rvv_$1_$2_$3"
}
for r in $reps_q10 $reps_q72; do
  for lmul in m1 m2 m4 m8; do for body in vmadd mul_add; do rvv "$r" $lmul $body; done; done
done
# slope N SMALL BIG CMD...: elements/s from the medians of N runs of `CMD SMALL` and `CMD BIG`
slope() {
  local n=$1 small=$2 big=$3 s b
  shift 3
  s=$(median_of "$n" "$@" "$small")
  b=$(median_of "$n" "$@" "$big")
  rate $(( (big - small) * elems )) "($b - $s)"
}
# qemu QEMU CPU LMUL BODYNAME REPS: one run; exit status 0 only if the result is right
qemu() { "$1" -cpu "$2" "$work/rvv_$5_$3_$4"; }
# grid NAME QEMU CPUFLAGS REPS: measures every configuration into $work/grid.txt, one
# line "NAME VLEN LMUL BODYNAME ELEMENTS/S" each
grid() {
  local name=$1 q=$2 flags=$3 reps=$4 vlen lmul body r
  for vlen in 128 256 512 1024; do
    for lmul in m1 m2 m4 m8; do
      for body in vmadd mul_add; do
        # shellcheck disable=SC2086
        r=$(slope "$grid_runs" $reps qemu "$q" "rv64,v=true,vlen=$vlen$flags" $lmul $body)
        echo "$name $vlen ${lmul#m} $body $r" >> "$work/grid.txt"
      done
    done
  done
}
: > "$work/grid.txt"
grid q10 "$QEMU10" "" "$reps_q10"
grid q72 "$QEMU72" ",vext_spec=v1.0,elen=64" "$reps_q72"
awk -v runs="$grid_runs" '
  { r[$1, $2, $3, $4] = $5 }
  END {
    split("q10 q72", peer, " "); title["q10"] = "qemu-riscv64 10.0"; title["q72"] = "qemu 7.2"
    for (p = 1; p <= 2; p++) {
      printf "a=a*b+b grid, %s, M elements/s, vmadd.vv/vmul.vv+vadd.vv (median of %d):\n", title[peer[p]], runs
      printf "  %-6s%-11s%-11s%-11s%-11s\n", "vlen", "LMUL=1", "LMUL=2", "LMUL=4", "LMUL=8"
      for (v = 128; v <= 1024; v *= 2) {
        printf "  %-6d", v
        for (l = 1; l <= 8; l *= 2)
          printf "%-11s", sprintf("%.0f/%.0f", r[peer[p], v, l, "vmadd"] / 1e6, r[peer[p], v, l, "mul_add"] / 1e6)
        printf "\n"
      }
    }
  }' "$work/grid.txt"
# best NAME: "VLEN LMUL BODYNAME" of NAME's fastest configuration in the grid
best() { awk -v p="$1" '$1 == p && $5 > r { r = $5; c = $2 " " $3 " " $4 } END { print c }' "$work/grid.txt"; }
read -r q10_vlen q10_lmul q10_body <<<"$(best q10)"
read -r q72_vlen q72_lmul q72_body <<<"$(best q72)"
spell() { if [ "$1" = vmadd ]; then echo vmadd.vv; else echo vmul.vv+vadd.vv; fi; }
# shellcheck disable=SC2086
q10_rate=$(slope "$runs" $reps_q10 qemu "$QEMU10" "rv64,v=true,vlen=$q10_vlen" "m$q10_lmul" "$q10_body")
# shellcheck disable=SC2086
q72_rate=$(slope "$runs" $reps_q72 qemu "$QEMU72" "rv64,v=true,vlen=$q72_vlen,vext_spec=v1.0,elen=64" "m$q72_lmul" "$q72_body")
# wk REPS: one run of bench/madd.s on one host thread per core (warpkit run's default); exit
# status 0 only if the result is right
wk() {
  "$WARPKIT" run -q bench/madd.s --grid $((elems / 256)) --block 256 \
    --arg a=@"$work/a.bin" --arg b=@"$work/b.bin" --arg reps="$1" --out a="$work/wk_out.bin" &&
    cmp -s "$work/wk_out.bin" "$work/want_$1.bin"
}
# shellcheck disable=SC2086
wk_loop=$(slope "$runs" $reps_wk wk)
echo "a=a*b+b: qemu-riscv64 10.0 best (vlen=$q10_vlen LMUL=$q10_lmul $(spell "$q10_body")) $q10_rate elements/s; qemu 7.2 best (vlen=$q72_vlen LMUL=$q72_lmul $(spell "$q72_body")) $q72_rate elements/s"
echo "a=a*b+b: warpkit run ($(nproc) host threads) $wk_loop elements/s; ratio to qemu 10's best $(ratio "$wk_loop" "$q10_rate")x, to qemu 7.2's best $(ratio "$wk_loop" "$q72_rate")x"

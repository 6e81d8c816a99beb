#!/usr/bin/env bash
# Side-by-side measurements of warpkit and the tools a user would otherwise reach for, on
# this machine, in one run. Installs the peers from Debian's packages itself:
#   - riscv64-linux-gnu-as (binutils-riscv64-linux-gnu) assembling a RISC-V file as long
#     as the warpkit file `warpkit asm` assembles;
#   - qemu-riscv64 10 (bookworm-backports, package qemu-user) and the stock 7.2
#     (qemu-user-static) running an RVV loop a[i] = a[i]*b[i] + b[i], against the same loop
#     as a warpkit kernel on `warpkit run`.
# Each figure is the median of RUNS runs; rates are slopes between two sizes, so process
# start-up and assembly cancel out. Usage: bench/peers.sh [RUNS] (default 5).
set -euo pipefail
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
# median wall seconds of `runs` runs of a command
median() {
  local times=()
  for _ in $(seq "$runs"); do
    local t0 t1
    t0=$(date +%s.%N); "$@" >/dev/null 2>&1; t1=$(date +%s.%N)
    times+=("$(echo "$t1 - $t0" | bc -l)")
  done
  printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'
}
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
# Both sides load both arrays on every repetition (bench/madd.s, bench/rvv_madd.S.in).
# The peer gets its best configuration: every vlen 128..1024 x LMUL 1..8 x {vmadd.vv,
# vmul.vv + vadd.vv} is measured, and the fastest is the figure compared against.
elems=8192            # two 32 KiB arrays
reps_small=200
reps_big=1000
work_items=$(( (reps_big - reps_small) * elems ))
body_vmadd='vmadd.vv v0, v8, v8'
body_mul_add='vmul.vv v0, v0, v8; vadd.vv v0, v0, v8'
rvv() { # rvv REPS LMUL BODYNAME -> builds $work/rvv_REPS_LMUL_BODYNAME
  local body=$body_vmadd
  [ "$3" = mul_add ] && body=$body_mul_add
  sed "s/REPS/$1/; s/ELEMS/$elems/g; s/LMUL/$2/; s/BODY/$body/" bench/rvv_madd.S.in > "$work/rvv_$1_$2_$3.S"
  riscv64-linux-gnu-as -march=rv64gcv "$work/rvv_$1_$2_$3.S" -o "$work/rvv_$1_$2_$3.o"
  riscv64-linux-gnu-ld -static "$work/rvv_$1_$2_$3.o" -o "$work/rvv_$1_$2_$3"
}
# best QEMU CPUFLAGS -> prints "RATE CONFIG" of the fastest configuration
best() {
  local qemu=$1 flags=$2 best_rate=0 best_cfg=""
  for vlen in 128 256 512 1024; do
    for lmul in m1 m2 m4 m8; do
      for body in vmadd mul_add; do
        local s b r
        s=$(median "$qemu" -cpu "rv64,v=true,vlen=$vlen$flags" "$work/rvv_${reps_small}_${lmul}_$body")
        b=$(median "$qemu" -cpu "rv64,v=true,vlen=$vlen$flags" "$work/rvv_${reps_big}_${lmul}_$body")
        r=$(rate $work_items "($b - $s)")
        if [ "$(echo "$r > $best_rate" | bc -l)" = 1 ]; then best_rate=$r; best_cfg="vlen=$vlen LMUL=${lmul#m} $body"; fi
      done
    done
  done
  echo "$best_rate $best_cfg"
}
for lmul in m1 m2 m4 m8; do
  for body in vmadd mul_add; do rvv $reps_small $lmul $body; rvv $reps_big $lmul $body; done
done
read -r q10_rate q10_cfg <<<"$(best "$QEMU10" "")"
read -r q72_rate q72_cfg <<<"$(best "$QEMU72" ",vext_spec=v1.0,elen=64")"
head -c $((elems * 4)) /dev/zero | tr '\0' '\3' > "$work/a.bin"
head -c $((elems * 4)) /dev/zero | tr '\0' '\5' > "$work/b.bin"
wk() { "$WARPKIT" run bench/madd.s --grid $((elems / 256)) --block 256 \
        --arg a=@"$work/a.bin" --arg b=@"$work/b.bin" --arg reps="$1"; }
wkr_s=$(median wk $reps_small)
wkr_b=$(median wk $reps_big)
wk_loop=$(rate $work_items "($wkr_b - $wkr_s)")
echo "a=a*b+b: qemu-riscv64 10.0 best ($q10_cfg) $q10_rate elements/s; qemu 7.2 best ($q72_cfg) $q72_rate elements/s"
echo "a=a*b+b: warpkit run $wk_loop elements/s; ratio to qemu 10: $(ratio "$wk_loop" "$q10_rate")x, to qemu 7.2: $(ratio "$wk_loop" "$q72_rate")x"

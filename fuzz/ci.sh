#!/usr/bin/env bash
# Runs every fuzz target for a short, fixed budget (FUZZ_SECONDS each, default 15).
# By hand, for longer: FUZZ_SECONDS=600 fuzz/ci.sh, or `cargo fuzz run TARGET`.
# Seeds come from the example kernels and the assembler's test inputs; a crash leaves its
# input in fuzz/artifacts/TARGET/ and fails the run.
set -euo pipefail
cd "$(dirname "$0")"
seconds=${FUZZ_SECONDS:-15}
export RUSTC_BOOTSTRAP=1 CARGO_CACHE_RUSTC_INFO=0

command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked --quiet

# Seed corpora: kernel sources for the assembler, their machine code for the rest.
mkdir -p corpus/assemble corpus/decode corpus/disassemble corpus/roundtrip corpus/run corpus/elf corpus/linx_check corpus/linx_run corpus/engines corpus/checkpoint corpus/cc_parse corpus/cc_preprocess corpus/cc_differential
for s in ../examples/*.s ../crates/asm/tests/*/*.s seeds/*.s; do
  [ -f "$s" ] || continue
  cp "$s" corpus/assemble/ 2>/dev/null || true
done
# The seeds are assembled by the debug CLI (`cargo test --workspace` has built it; a
# release build here would compile every dependency once more for a few dozen files).
warpkit=../target/debug/warpkit
[ -x "$warpkit" ] || cargo build -q --manifest-path ../Cargo.toml -p warpkit
for s in corpus/assemble/*.s; do
  [ -f "$s" ] || continue
  b="corpus/decode/$(basename "$s" .s).bin"
  if "$warpkit" asm "$s" -o "$b" --format bin 2>/dev/null; then
    cp "$b" corpus/disassemble/; cp "$b" corpus/roundtrip/
    e="corpus/elf/$(basename "$s" .s).elf"
    if "$warpkit" asm "$s" -o "$e" --format elf 2>/dev/null; then
      cp "$e" corpus/disassemble/
    fi
    # The run target's first byte picks the launch shape (fuzz_targets/run.rs).
    for shape in 00 1a 3b; do
      { printf "\x$shape"; cat "$b"; } > "corpus/run/$(basename "$s" .s).$shape.bin"
    done
    for shape in 00 f9; do
      { printf "\x$shape"; cat "$b"; } > "corpus/engines/$(basename "$s" .s).$shape.bin"
    done
  fi
done

# LinxISA programs: the examples as text (first byte odd = text for linx_check); the
# grammar-built targets start from a few fixed byte strings.
for s in ../examples/linx/*.s; do
  [ -f "$s" ] || continue
  { printf '\x01'; cat "$s"; } > "corpus/linx_check/$(basename "$s")"
done
for seed in 00 2a 55 80 d3 ff; do
  printf "\x$seed\x$seed\x11\x22\x33\x44\x55\x66\x77\x88\x99" > "corpus/linx_run/seed-$seed"
  cp "corpus/linx_run/seed-$seed" "corpus/linx_check/seed-$seed"
done

# Checkpoints of real runs stopped part-way: barriers and shared memory, a deadlock
# already reported, and a run that ended before its cut. The checkpoint target's first
# byte 00 hands it the file as it is, 01 the payload alone, which the target frames with a
# matching checksum (fuzz_targets/checkpoint.rs).
ckdir=$(mktemp -d)
trap 'rm -rf "$ckdir"' EXIT
checkpoint_seed() {
  local name=$1; shift
  "$warpkit" run "$@" --save-checkpoint "$ckdir/$name.wkc" >/dev/null 2>&1 || true
  [ -f "$ckdir/$name.wkc" ] || return 0
  { printf '\x00'; cat "$ckdir/$name.wkc"; } > "corpus/checkpoint/$name.file"
  { printf '\x01'; tail -c +25 "$ckdir/$name.wkc"; } > "corpus/checkpoint/$name.payload"
}
checkpoint_seed vadd ../examples/vadd.s --grid 2 --block 64 --arg a=buf:512 --arg b=buf:512 \
  --arg out=buf:512 --arg n=128 --stop-after-steps 40
checkpoint_seed histogram ../examples/histogram.s --grid 2 --block 256 --shared 1024 \
  --arg data=buf:2048 --arg hist=buf:1024 --arg nwords=512 --stop-after-steps 700
checkpoint_seed deadlock seeds/barrier_deadlock.s --grid 2 --block 64 --max-steps 50 \
  --stop-after-steps 80
checkpoint_seed ended ../examples/vadd.s --grid 1 --block 32 --arg a=buf:128 --arg b=buf:128 \
  --arg out=buf:128 --arg n=32 --stop-after-steps 100000

# The parser target reads one token per byte (fuzz_targets/cc_parse.rs); a few fixed byte
# strings start it off.
for seed in 00 3f 5a 7e a5 c3; do
  printf "\x$seed\x30\x31\x32\x10\x11\x12\x1f\x2f\x40\x50\x60\x70\x80\x90" > "corpus/cc_parse/seed-$seed"
done

# OpenCL C sources for the preprocessor: the prelude and the seeds.
for s in ../crates/cc/src/pp/*.cl seeds/*.cl; do
  [ -f "$s" ] || continue
  cp "$s" corpus/cc_preprocess/
done

# The compiler's differential target: 8 bytes of clsmith seed, a byte of generator switches
# and one of optimisation level (fuzz_targets/cc_differential.rs).
for seed in 01 02 03 07 2a 38; do
  for bits in 00 05 f3; do
    printf "\x$seed\x00\x00\x00\x00\x00\x00\x00\x$bits\x$bits" > "corpus/cc_differential/seed-$seed-$bits"
  done
done

targets=(${FUZZ_TARGETS:-decode disassemble assemble roundtrip run elf linx_check linx_run engines checkpoint cc_parse cc_preprocess cc_differential})
cargo fuzz build --sanitizer none -O
for t in "${targets[@]}"; do
  echo "== fuzz $t (${seconds}s)"
  cargo fuzz run --sanitizer none -O "$t" "corpus/$t" -- -max_total_time="$seconds" -rss_limit_mb=4096 -timeout=10 2>&1 \
    | grep -E '^Done|ERROR|panicked|SUMMARY' || true
  # Any one kind of failing input fails the run (`ls` of the three globs would succeed only
  # when all three kinds are present).
  failures=$(compgen -G "artifacts/$t/crash-*"; compgen -G "artifacts/$t/timeout-*"; compgen -G "artifacts/$t/oom-*") || true
  if [ -n "$failures" ]; then
    echo "fuzz target $t found a failing input:"; echo "$failures"
    exit 1
  fi
done
echo "fuzzing: every target ran ${seconds}s without a failure"

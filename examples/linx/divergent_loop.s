// SIMT mode, divergent per-lane loop: steps[i] = number of Collatz steps from x[i] to 1.
// Each lane loops its own number of times. The loop branch goes back to `loop` for the
// lanes still running and falls through to `done` (pc.pop) for those that finished, so
// the ControlStack keeps the pending side and the reconvergence mask of every iteration
// that diverged; lanes already at 1 skip the loop through the same reconvergence point.
.lanenum 8
.gpr a0, 0x1000                  // x: 16 d-words
.gpr a1, 0x2000                  // steps: 16 d-words
.mem 0x1000, d, 1, 7, 27, 6, 9, 97, 871, 12, 3, 19, 25, 2, 100, 54, 41, 1000
BSTART.SIMT
B.DIM zero, 16, ->LB0
B.TEXT .body
BSTOP
.body:
    ld [a0.ud, lc0.ud<<3], ->u.d     // u#1 = n
    addi zero.ud, 0, ->m.d           // m#1 = steps
    cmp.nei u#1.ud, 1, ->t.d
    b.eq t#1.ud, zero.ud, done, done // n == 1: skip the loop
loop:
    andi u#1.ud, 1, ->t.d            // odd?
    slli u#1.ud, 1, ->t.d
    add t#1.ud, u#1.ud, ->t.d        // 3n
    addi t#1.ud, 1, ->t.d            // 3n + 1
    srli u#1.ud, 1, ->t.d            // n / 2
    csel t#5.ud, t#2.ud, t#1.ud, ->u.d
    addi m#1.ud, 1, ->m.d
    cmp.nei u#1.ud, 1, ->t.d
    b.ne t#1.ud, zero.ud, loop, done // lanes not yet at 1 go round again
done:
    pc.pop
    sd m#1.ud, [a1.ud, lc0.ud<<3]
    lbstop

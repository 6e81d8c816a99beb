// SIMT mode: a 16-bin histogram of 64 words with atomic adds (sw.add), the largest value
// with an atomic unsigned max (sw.umax) and the sum with a reduce (rdadd). The groups run
// interleaved; atomics keep every count exact.
.lanenum 8
.gpr a0, 0x1000                  // x: 64 words
.gpr a1, 0x2000                  // bins: 16 words
.gpr a2, 0x3000                  // max
.mem 0x1000, w, 839, 936, 677, 521, 228, 93, 433, 969, 454, 115, 676, 433, 994, 138, 552, 320
.mem 0x1040, w, 903, 636, 571, 167, 999, 713, 906, 52, 568, 175, 519, 835, 85, 410, 622, 428
.mem 0x1080, w, 684, 610, 480, 488, 623, 393, 554, 31, 656, 743, 84, 990, 196, 999, 806, 679
.mem 0x10c0, w, 267, 364, 963, 371, 886, 706, 394, 689, 317, 116, 258, 240, 343, 372, 380, 523
.mem 0x2000, w, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
.mem 0x3000, w, 0
BSTART.SIMT
B.DIM zero, 64, ->LB0
B.TEXT .body
BSTOP
.body:
    lw [a0.ud, lc0.ud<<2], ->t.w     // x[i]
    andi t#1.uw, 15, ->t.w           // bin
    icvt t#1.uw, ->t.ud              // as a 64-bit offset
    slli t#1.ud, 2, ->t.d
    add a1.ud, t#1.ud, ->t.d         // &bins[bin]
    addi zero.uw, 1, ->u.w
    sw.add [t#1.ud], u#1.w           // bins[bin] += 1, atomically, lanes in order
    sw.umax [a2.ud], t#5.w           // max = max(max, x[i])
    rdadd t#5.uw, ->x1.d             // x1 = sum of x at block end
    lbstop

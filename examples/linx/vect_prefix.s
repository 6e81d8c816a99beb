// VECT mode: c[i] = c[i-4] + x[i], a dependency at distance G = 4. Groups run one after
// another in VECT mode, so each group reads what the group before it stored; c[-4..-1]
// were never written and read as 0. The result is four interleaved prefix sums.
.lanenum 4
.gpr a0, 0x1020                  // c (c[-4] is at 0x1000)
.gpr a1, 0x2000                  // x: 32 d-words
.mem 0x2000, d, 7, 4, 8, 5, 2, 6, 0, 5, 7, 4, 7, 9, 3, 8, 0, 9
.mem 0x2080, d, 2, 7, 5, 2, 5, 3, 0, 9, 3, 1, 8, 5, 6, 1, 0, 0
BSTART.VECT
B.DIM zero, 32, ->LB0
B.TEXT .body
BSTOP
.body:
    subi lc0.ud, 4, ->t.d            // i - 4 (negative for the first group)
    ld [a0.ud, t#1.sd<<3], ->t.d     // c[i-4]: the offset is extended as signed
    ld [a1.ud, lc0.ud<<3], ->t.d     // x[i]
    add t#1.ud, t#2.ud, ->t.d
    sd t#1.ud, [a0.ud, lc0.ud<<3]
    lbstop

// A 2-D iteration space LB0 x LB1 = 6 x 5: out[lc0][lc1] = in[lc1][lc0] (a transpose of
// a 5 x 6 matrix of words). Iteration n = lc0 + LB0 * lc1 runs on lane n % G of group n / G.
.lanenum 8
.gpr a0, 0x1000                  // in: 5 rows of 6 words
.gpr a1, 0x2000                  // out: 6 rows of 5 words
.mem 0x1000, w, 86, 329, 283, 12, -317, -472
.mem 0x1018, w, -110, 342, 379, -60, -467, 31
.mem 0x1030, w, -474, -273, 191, -63, -456, -103
.mem 0x1048, w, -291, 290, 121, -395, 271, 63
.mem 0x1060, w, -275, -318, -421, 212, -220, -463
BSTART.SIMT
B.DIM zero, 6, ->LB0
B.DIM zero, 5, ->LB1
B.TEXT .body
BSTOP
.body:
    mul lc1.ud, lb0.ud, ->t.d
    add t#1.ud, lc0.ud, ->t.d        // lc1 * LB0 + lc0
    lw [a0.ud, t#1.ud<<2], ->u.w
    mul lc0.ud, lb1.ud, ->t.d
    add t#1.ud, lc1.ud, ->t.d        // lc0 * LB1 + lc1
    sw u#1.w, [a1.ud, t#1.ud<<2]
    lbstop

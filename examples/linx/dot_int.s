// An integer dot product of two 40-element signed word vectors, reduced twice: into x1
// with rdadd (committed at block end) and into memory with a store-reduce (sd.add.rd: one
// atomic update per group of the group's folded sum).
.lanenum 8
.gpr a0, 0x1000                  // x: 40 signed words
.gpr a1, 0x2000                  // y: 40 signed words
.gpr a2, 0x3000                  // dot (d-word)
.mem 0x1000, w, -113, -434, 20, -296, 233, 304, 486, -894, 52, -60, -246, -573, -305, -423, -67, -25
.mem 0x1040, w, 427, 963, 752, -15, -509, 957, -657, -49, 892, 124, -255, -628, -613, 569, 532, -550
.mem 0x1080, w, 867, 242, -987, 940, -451, 874, 578, 641
.mem 0x2000, w, -301, -633, -506, 628, -983, 26, -919, -494, 267, -763, -261, 119, 31, -683, -952, 899
.mem 0x2040, w, -340, 806, 612, 369, 703, -428, 309, -759, -530, 605, 79, 28, -23, 3, 284, -276
.mem 0x2080, w, -463, 401, 938, -89, 831, 513, -668, -81
.mem 0x3000, d, 0
BSTART.SIMT
B.DIM zero, 40, ->LB0
B.TEXT .body
BSTOP
.body:
    lw [a0.ud, lc0.ud<<2], ->t.w
    lw [a1.ud, lc0.ud<<2], ->t.w
    icvt t#2.sw, ->t.sd              // x[i] sign-extended to 64 bits
    icvt t#2.sw, ->t.sd              // y[i]
    mul t#1.sd, t#2.sd, ->t.d
    rdadd t#1.sd, ->x1.d
    sd.add.rd [a2.ud], t#1.d
    lbstop

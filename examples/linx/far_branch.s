// b.cond, the far branch of [003]: the target and the reconvergence point are built with
// addtpc %hi(label) + addi %lo(label) and held in registers. Odd iterations run the far
// side (placed after lbstop) and come back with `j`; even ones run the near side first.
.lanenum 4
.gpr a0, 0x1000                  // out: 12 d-words
BSTART.VECT
B.DIM zero, 12, ->LB0
B.TEXT .body
BSTOP
.body:
    addtpc %hi(join), ->t.d
    addi t#1.ud, %lo(join), ->t.d    // reconvergence PC
    addtpc %hi(far), ->t.d
    addi t#1.ud, %lo(far), ->t.d     // branch target PC
    andi lc0.ud, 1, ->t.d            // condition: odd iteration
    b.cond t#1.ud, t#2.ud, t#4.ud
    mul lc0.ud, lc0.ud, ->n.d        // near side: i * i
join:
    pc.pop
    sd n#1.ud, [a0.ud, lc0.ud<<3]
    lbstop
far:
    addi lc0.ud, 1000, ->n.d         // far side: i + 1000
    j join

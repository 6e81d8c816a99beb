// collatz: steps[i] = number of Collatz steps (n -> n/2 if even, 3n+1 if odd) taking
// starts[i] to 1, for i < n. Every start must be at least 1 and its trajectory must stay
// below 2^32 (the suite uses starts below 100000).
//
// Arguments:
//   0 starts  buffer of n u32
//   1 steps   buffer of n u32
//   2 n       element count
// Launch: 1-D, block (256,1,1), grid (ceil(n/256),1,1).
//
// Lanes have data-dependent trip counts: the loop is seed 001 §3.2's, saveexec.andn2
// removing the lanes that reached 1 and bexecnz looping while any lane is left, the
// outer mask restored after the loop. The odd/even choice inside is §3.2's if/else:
// saveexec.and enters the then-mask, saveexec.andn1 switches to the else-mask, exec.set
// rejoins.

    uload.b128 u[16:19], u[0:1], 0      // starts, steps
    uload.b32  u20, u[0:1], 16          // n
    waitcnt    sm=0
    umul       u21, u2, u8
    add.vu     v4, v3, u21              // i
    cmp.lt.u32.vu u22, v4, u20
    saveexec.and u23, u22               // u23: the launch mask
    bexecz     .Lexit
    sll.vi     v5, v4, 2
    gload.b32  v6, v5, u[16:17], 0
    movi       v7, 0                    // step count
    waitcnt    vm=0
    cmp.eq.i32.vi u24, v6, 1            // lanes with nothing to do
    saveexec.andn2 u25, u24             // u25: the mask to restore after the loop
    bexecz     .Lstore
.Lloop:
    and.vi     v8, v6, 1
    cmp.ne.i32.vi u26, v8, 0            // odd lanes
    saveexec.and u27, u26               // then: odd
    mul.vi     v6, v6, 3
    add.vi     v6, v6, 1
    saveexec.andn1 u28, u27             // else: the even lanes of the saved mask
    srl.vi     v6, v6, 1
    exec.set   u27                      // join
    add.vi     v7, v7, 1
    cmp.eq.i32.vi u24, v6, 1            // lanes that reached 1 leave the loop
    saveexec.andn2 u28, u24
    bexecnz    .Lloop
.Lstore:
    exec.set   u25
    gstore.b32 v7, v5, u[18:19], 0
.Lexit:
    exec.set   u23
    endpgm

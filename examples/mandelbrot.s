// mandelbrot: escape counts of the Mandelbrot iteration z <- z^2 + c in f32, one pixel
// per thread, for an image of width x height pixels whose top-left pixel is c = x0 + i*y0
// and whose pixels are `step` apart (the imaginary part decreasing downwards).
//
// Arguments:
//   0 out       buffer of width*height u32: the counts, row by row from the top
//   1 width     a multiple of 16
//   2 height    a multiple of 16
//   3 x0        the f32 bit pattern of the left edge, low word
//   4 y0        the f32 bit pattern of the top edge, low word
//   5 step      the f32 bit pattern of the pixel pitch, low word
//   6 max_iter  at least 1
// Launch: 2-D, block (16,16,1), grid (width/16, height/16, 1).
//
// For each pixel (px, py): cr = ffma(f32(px), step, x0), ci = ffma(f32(py), -step, y0);
// from x = y = +0.0 and count = 0, repeat: x2 = x*x, y2 = y*y; stop if x2 + y2 > 4;
// y = ffma(x*y, 2, ci), x = (x2 - y2) + cr, count += 1; stop at max_iter. The lanes run
// §3.2's loop (fcmp.gt.f32 to a uniform mask, saveexec.andn2 removes the escaped lanes,
// bexecnz loops while any lane is left); the host reference performs the same f32
// operations in the same order, so the counts match bit for bit.

    uload.b256 u[16:23], u[0:1], 0      // out, width (u18), height, x0 (u22)
    uload.b128 u[24:27], u[0:1], 32     // y0 (u24), step (u26)
    uload.b32  u28, u[0:1], 48          // max_iter
    waitcnt    sm=0
    umul       u30, u2, u8
    add.vu     v4, v0, u30              // px
    umul       u31, u3, u9
    add.vu     v5, v1, u31              // py
    mul.vu     v6, v5, u18
    add        v6, v6, v4
    sll.vi     v6, v6, 2                // byte offset of out[py][px]
    cvt.f32.u32 v7, v4
    cvt.f32.u32 v8, v5
    mov.vu     v9, u26                  // step
    mov.vu     v10, u22                 // x0
    mov.vu     v11, u24                 // y0
    ffma.f32   v12, v7, v9, v10         // cr
    ffma.f32   v13, v8, -v9, v11        // ci
    movi       v14, 0                   // x
    movi       v15, 0                   // y
    movi       v16, 0                   // count
    mov.vl     v17, 0x40800000          // 4.0
    mov.vl     v18, 0x40000000          // 2.0
    exec.get   u32                      // the launch mask, restored after the loop
.Liter:
    fmul.f32   v20, v14, v14            // x2
    fmul.f32   v21, v15, v15            // y2
    fadd.f32   v22, v20, v21
    fcmp.gt.f32 u33, v22, v17           // lanes that escaped leave the loop
    saveexec.andn2 u34, u33
    bexecz     .Lstore
    fmul.f32   v23, v14, v15
    ffma.f32   v15, v23, v18, v13       // y = 2xy + ci
    fsub.f32   v20, v20, v21
    fadd.f32   v14, v20, v12            // x = (x2 - y2) + cr
    add.vi     v16, v16, 1
    cmp.eq.i32.vu u33, v16, u28         // lanes at max_iter leave the loop
    saveexec.andn2 u34, u33
    bexecnz    .Liter
.Lstore:
    exec.set   u32
    gstore.b32 v16, v6, u[16:17], 0
    endpgm

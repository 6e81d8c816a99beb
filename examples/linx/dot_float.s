// A float dot product of two 40-element f32 vectors, reduced three ways with rdfadd: in
// f32 (each product rounded, the sum folded in iteration order), in f64 (the exact
// products of the widened inputs), and rdfmax of the f32 products. The f64 products are
// stored too. Every operation is warpkit-float's, as on the GPU side.
.lanenum 8
.frm rne                         // CSTATE.FRM: round to nearest even (the default)
.gpr a0, 0x1000                  // x: 40 f32
.gpr a1, 0x2000                  // y: 40 f32
.gpr a2, 0x3000                  // x[i]*y[i] in f64
.mem 0x1000, fs, -336e-2, -191e2, -901e-3, 682e1, -807e-1, 194e-3, 864e1, -560e-3, -823.0, -143e-3
.mem 0x1028, fs, -507e-3, 129.0, -878e1, -746e-2, 292e2, 194e-3, 182e1, -187e-3, -547e-3, 141e-2
.mem 0x1050, fs, -406.0, -704e1, -758e1, -368e1, 672e2, -629e-3, 192e1, 309e-2, -237e-3, 122e2
.mem 0x1078, fs, -871e1, -877e1, -578.0, 394e1, -124e-1, -46e1, 892.0, -259e-1, -491e-2, 432e-2
.mem 0x2000, fs, -832e1, -385e1, 14e-1, 494.0, -410e1, -850e-3, 49.0, -662e-1, -688.0, -136e-3
.mem 0x2028, fs, 971e2, -841e1, 174e-1, -303e2, -282e1, 18e1, 633.0, -859e-3, 935e-1, -29e2
.mem 0x2050, fs, 361e-3, -875e2, 437e-1, 326e1, 396.0, -417e2, -209e2, -289e-3, 927.0, -272e-2
.mem 0x2078, fs, 252e-3, 12e-3, -553e-1, -735e2, -492.0, -199.0, -834e-2, -80.0, 126e-1, 810e-2
BSTART.SIMT
B.DIM zero, 40, ->LB0
B.TEXT .body
BSTOP
.body:
    lw [a0.ud, lc0.ud<<2], ->t.w
    lw [a1.ud, lc0.ud<<2], ->t.w
    fmul t#2.fs, t#1.fs, ->t.w       // x*y rounded to f32
    rdfadd t#1.fs, ->x1.d            // f32 dot product
    rdfmax t#1.fs, ->x3.d            // largest f32 product
    fcvt t#3.fs, ->t.fd              // x widened (exact)
    fcvt t#3.fs, ->t.fd              // y widened
    fmul t#2.fd, t#1.fd, ->t.d       // the exact product
    sd t#1.d, [a2.ud, lc0.ud<<3]
    rdfadd t#1.fd, ->x2.d            // f64 dot product
    lbstop

// Kernel metadata and source locations from a compiler's directives.
    .file 1 "k.cl"
    .kernel scale, shared=20, block=32
    .param scale, out, ptr.global, "float *"
    .param scale, x, f32, "float"
    .param scale, tmp, ptr.local, "local float *"
scale:
    .loc 1 3 5 prologue_end
    uload.b64 u[16:17], u[0:1], 0
    uload.b32 u18, u[0:1], 8
    uload.b32 u19, u[0:1], 16
    waitcnt sm=0
    .loc 1 4 9
    sll.vi v5, v3, 2
    mov.vu v6, u18
    fadd.f32 v8, v6, v6
    add.vu v9, v5, u19
    dsstore.b32 v8, v9, 0
    waitcnt ls=0
    dsload.b32 v10, v9, 0
    waitcnt ls=0
    .loc 1 5 1 epilogue_begin
    gstore.b32 v10, v5, u[16:17], 0
    endpgm

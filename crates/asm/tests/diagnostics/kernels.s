.kernel
.kernel 1x
.kernel vadd, shared=-1
.kernel vadd2, shared=later
.kernel vadd3, block=0x10
.kernel vadd4, block=1x2x3x4
.kernel vadd5, color=red
.kernel vadd6, shared=4, shared=8
.kernel vadd7, shared=
.kernel vadd8, scratch=4294967296
.kernel vadd9,
.kernel k, shared=16, scratch=8, block=16x16
.kernel k
.kernel nowhere
.kernel tbl
.kernel .Llocal
.param k, a, ptr.globl, "float *"
.param k, b, i33
.param k, c
.param k, d, i32, float
.param k, e, i32, "int" junk
.param missing, x, u8
.param k, n, i32
.param k, n, u32
.param k, 2n, u32
.param , , 
k:
.Llocal:
  endpgm
.data
tbl: .word 1
later:

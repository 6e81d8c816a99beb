	.text
	.file	"scale.c"
	.globl	scale                           # -- Begin function scale
	.p2align	4, 0x0
	.type	scale,@function
scale:                                  # @scale
	.cfi_startproc
# %bb.0:                                # %entry
	.file	1 "/src" "scale.c"
	.loc	1 4 0 prologue_end              # scale.c:4:0
	uload.b128	u[16:19], u[0:1], 0     # out, n
	waitcnt	sm=0
	umul	u23, u2, u8
	add.vu	v4, v3, u23                     # i = blockIdx.x * blockDim.x + threadIdx.x
	.loc	1 5 7                           # scale.c:5:7
	cmp.lt.u32.vu	u26, v4, u18
	saveexec.and	u25, u26
	bexecz	.LBB0_2
# %bb.1:                                # %if.then
	.loc	1 6 14                          # scale.c:6:14
	add	v6, v4, v4
	add	v6, v6, v4
	add.vi	v6, v6, 7
	sll.vi	v5, v4, 2
	gstore.b32	v6, v5, u[16:17], 0
.LBB0_2:                                # %if.end
	.loc	1 7 1                           # scale.c:7:1
	exec.set	u25
	endpgm
.Lfunc_end0:
	.size	scale, .Lfunc_end0-scale
	.cfi_endproc
                                        # -- End function
	.type	coeffs,@object                  # @coeffs
	.section	.rodata,"a",@progbits
	.globl	coeffs
	.p2align	2, 0x0
coeffs:
	.word	3                               # 0x3
	.word	7                               # 0x7
	.size	coeffs, 8

	.type	.L.str,@object                  # @.str
	.section	.rodata.str1.1,"aMS",@progbits,1
.L.str:
	.asciz	"scale\tv1"
	.size	.L.str, 9

	.ident	"clang version 18.1.8 (https://github.com/llvm/llvm-project.git)"
	.section	".note.GNU-stack","",@progbits
	.addrsig

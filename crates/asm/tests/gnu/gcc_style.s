	.file	"scale.c"
	.text
	.globl	scale
	.type	scale, @function
scale:
.LFB0:
	.cfi_startproc
	uload.b128	u[16:19], u[0:1], 0
	waitcnt	sm=0
	umul	u23, u2, u8
	add.vu	v4, v3, u23
	cmp.lt.u32.vu	u26, v4, u18
	saveexec.and	u25, u26
	bexecz	.L2
	add	v6, v4, v4
	add	v6, v6, v4
	add.vi	v6, v6, 7
	sll.vi	v5, v4, 2
	gstore.b32	v6, v5, u[16:17], 0
.L2:
	exec.set	u25
	endpgm
	.cfi_endproc
.LFE0:
	.size	scale, .-scale
	.section	.rodata
	.align 4
	.type	name, @object
	.size	name, 6
name:
	.string	"scale"
	.ident	"GCC: (GNU) 13.2.0"
	.section	.note.GNU-stack,"",@progbits

// Seeds for the GNU directives: sections, strings, types and sizes, numeric local labels,
// operators, `.set` redefinition, macros and repetition.
	.file	"seed.c"
	.text
	.globl	f
	.p2align	4, 0x0
	.type	f,@function
f:
	.cfi_startproc
	.loc	1 2 3
	.set	k, 1
	add.vi	v1, v2, k
	.set	k, k + (10 / 3) % 2 - (1 << 2 >> 1) ^ 3 & ~1 | 0
	add.vi	v1, v2, 0xff
1:	bz	u1, 1f
	jmp	1b
1:
.macro addk dst, src, k=1
	add.vi \dst, \src, \k
lbl\@:	bz u1, lbl\@
.endm
	addk v3, v4
	addk k=5, dst=v5, src=v6
	.rept 3
	nop
	.endr
	endpgm
.Lfunc_end0:
	.size	f, .Lfunc_end0-f
	.cfi_endproc
	.section	.rodata.str1.1,"aMS",@progbits,1
.L.str:
	.asciz	"hi\n\x41\101"
	.section	.rodata
	.type	t,@object
t:	.ascii	"ab", "cd"
	.string	"z"
	.size	t, . - t
	.ident	"seed"
	.section	".note.GNU-stack","",@progbits

.section .txet
.type f, @gnu_indirect_function
.type missing, @function
.size f, 4 / 0
.size g, 4
.ascii "unterminated
.asciz "\q"
.balign 3
.p2align 1, 300
jmp 1b
jmp 2f
f: nop
.equ e, 1
.set e, 2
.set s, 1
.equ s, 2
.section .comment,"",@progbits
.cfi_startproc
.cfi_startproc
.loc 1 2 3

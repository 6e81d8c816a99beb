.foo 1
.wrod 1
.byte 256
.byte -129
.half 65536
.word 0x100000000
.word 1, , 2
.word
.align 3
.align later
.p2align 17
.space -1
.space 0x1000000000
.section .bss
.text 1
.equ
.equ x
.equ 1x, 2
later: nop
.data
.word 1.5e39
.dword 1e309, 1e39

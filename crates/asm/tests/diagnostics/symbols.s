start: bz u1, nowhere
start: nop
bz u1, strat
.equ A, B + 1
.equ B, A + 1
.global missing, start
.global 3
bz u1, table
jmp . + 2
.data
table: .word 1
.equ C, 1
.equ C, 2

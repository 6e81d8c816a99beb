// A little of everything, for the fuzzers' seed corpus.
    .text
    .global main
main:
    laneid v1
    add.vi v2, v1, -3
    mov.vl v3, 0x3fc00000
    cmp.lt.i32.vi u4, v2, 5
    saveexec.and u5, u4
    mac v6, v1, v2
    exec.set u5
loop:
    uaddi u6, u6, 1
    uslti u7, u6, 10
    bnz u7, loop
    add64 v[8:9], v[8:9], v[10:11]
    csrr u8, clock
    waitcnt vm=0, sm=0
    endpgm
    .data
    .word 1, 2, 0xffffffff

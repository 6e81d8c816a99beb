add.vi v1, v2, 200
add.vi v1, v2, -129
add.vi v1, v2, 0x80
uaddi u1, u2, 512
umovi u1, -65537
jmp 6
jmp 8388608
jmp -8388612
upc u1, 262144
jalr u1, u2, 2
mov.vl v1, 0x100000000
mov.vl v1, -2147483649
mov.vl v1, 1.5e39
gload.u8.a64 v1, v[2:3], 0, 4
gload.u8.a64 v1, v[2:3], 0, 7
gload.u8.a64 v1, v[2:3], 0, fast
gload.u8.a64 v1, v[2:3], 8388608
csrr u1, fflagz
csrr u1, 1024
csrr u1, fflags
csrr u1, 1023
waitcnt vm=64
waitcnt bogus=1
waitcnt vm=1, vm=2
waitcnt 3

add v1 v2, v3
add v1, , v3
add.vi v1, v2, (1 +
add.vi v1, v2, (1 + 2
add.vi v1, v2, 1 << 200
add.vi v1, v2, 1 2
.dword 0xffffffffffffffff * 0xffffffffffffffff
.dword 99999999999999999999999
.dword 0x
.word 1.5.5
@foo
add.vi v1, v2, 1.5
add v1, v2, v3,

.file 1 "k.cl"
.loc 2 4 1
.loc 1
.loc 1 x
.loc 1 4 7 prologue
.loc 1 4 7 is_stmt 2
.loc 1 4 7 discriminator
.loc 1 -1
.file 1 "other.cl"
.file 3
.file 3 "a" "b" "c"
.file 3 "" junk
.file "k.c" 1
.file 4 ""
.loc
.file
.file 5 "a.cl" md5
.file 0 "dir" "zero.cl" md5 0x0123456789abcdef0123456789abcdef
.loc 0 1 1
nop
.file 6 "b.cl" md5 0xzz

add v1, v2
add v1, v2, v3, v4
add
nop v1
endpgm 0
gload.u8.a64 v1, v[2:3]
gload.u8.a64 v1, v[2:3], 0, nt, 1

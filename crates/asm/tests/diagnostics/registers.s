add v1, v2, v128
add v1, u2, v3
add.vu v1, v2, v3
mov64 v5, v[4:5]
mov64 v[5:6], v[4:5]
mov64 v[4:6], v[4:5]
mov64 v[4:5], u[4:5]
add64 v[126:127], v[0:1], v[127:128]
uload.b128 u[2:5], u[0:1], 0
uload.b256 u[4:7], u[0:1], 0
uload.b256 u[60:67], u[0:1], 0
dsload.b128 v[4:5], v1, 0
dsload.b128 v[125:128], v1, 0
umov u64, u1
add v1, v2, 5
add v01, v2, v3

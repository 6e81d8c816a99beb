fadd.f32 v1, -u2, v3
fadd.f32 v1, v2, v3 rm=foo
fadd.f32 v1, v2, v3 sat sat
fadd.f32 v1.l, v2, v3
fadd.f32 v1, |v2, v3
fadd.f32 v1, v2|, v3
fadd.f32 -v1, v2, v3
fadd.f16 v1.l, v2, v3.l
fmin.f32 v1, v2, v3 rm=rtz
fadd.f32 v1, v2, v3 rm=rtz rm=rne
fadd.f32 v1, v2, v3 bogus
cvt.f32.i32 v1, -v2
fadd.f64 v[2:3], v[4:5], v6
ffma.f32 v1, -|v2|, v3, v4 sat rm=rtz

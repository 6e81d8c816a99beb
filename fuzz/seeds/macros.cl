#define x 3
#define f(a) f(x * (a))
#undef x
#define x 2
#define g f
#define z z[0]
#define h g(~
#define m(a) a(w)
#define w 0,1
#define t(a) a
#define p() int
#define q(x) x
#define r(x,y) x ## y
#define str(x) # x
f(y+1) + f(f(z)) % t(t(g)(0) + t)(1);
g(x+(3,4)-w) | h 5) & m
(f)^m(m);
p() i[q()] = { q(1), r(2,3), r(4,), r(,5), r(,) };
char c[2][6] = { str(hello), str() };
#define debug(...) fprintf(stderr, __VA_ARGS__)
#define showlist(...) puts(#__VA_ARGS__)
#define report(test, ...) ((test)?puts(#test):\
 printf(__VA_ARGS__))
debug("X = %d\n", x);
showlist(The first, second, and third items.);
report(x>y, "x is %d but y is %d", x, y);
#if defined(FUZZ) && (1 ? -1 : 0u) > 0 && '\xff' < 0 || __LINE__ >> 2
#line 100 "f.cl"
#elif 0
#else
#endif
_Pragma("OPENCL EXTENSION cl_khr_fp64 : enable")
#pragma OPENCL FP_CONTRACT ON
__kernel void k(__global float *a) { a[get_global_id(0)] = M_PI_F * FLT_MAX; }

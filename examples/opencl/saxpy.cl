// saxpy (integer): y[i] = a*x[i] + y[i] (u32, wrapping) for i < n, in place, by a
// grid-stride loop: examples/saxpy.s in OpenCL C.
__kernel void saxpy(__global const uint *x, __global uint *y, uint a, uint n)
{
    for (uint i = get_global_id(0); i < n; i += get_global_size(0))
        y[i] = a * x[i] + y[i];
}

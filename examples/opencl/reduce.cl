// reduce: out[group] = the sum (u32, wrapping) of in[i] over the indices this workgroup's
// threads visit in a grid-stride loop; launched twice (the partial sums, then their total)
// as examples/reduce.s is. Block size: BLOCK threads.
#define BLOCK 256

__kernel void reduce(__global const uint *in, __global uint *out, uint n)
{
    __local uint sums[BLOCK];
    uint lid = get_local_id(0);
    uint sum = 0;
    for (uint i = get_global_id(0); i < n; i += get_global_size(0))
        sum += in[i];
    sums[lid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = BLOCK / 2; s > 0; s >>= 1) {
        if (lid < s)
            sums[lid] += sums[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        out[get_group_id(0)] = sums[0];
}

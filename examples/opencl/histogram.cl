// histogram: hist[b] += the number of bytes equal to b in data[0 .. 4*nwords), 256 bins:
// a private histogram per workgroup counted with local atomics, then one global atomic per
// non-empty bin (examples/histogram.s). Block: 256 threads, one bin each.
#define BINS 256

__kernel void histogram(__global const uint *data, __global uint *hist, uint nwords)
{
    __local uint bins[BINS];
    uint lid = get_local_id(0);
    bins[lid] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = get_global_id(0); i < nwords; i += get_global_size(0)) {
        uint w = data[i];
        atomic_inc(&bins[w & 0xff]);
        atomic_inc(&bins[(w >> 8) & 0xff]);
        atomic_inc(&bins[(w >> 16) & 0xff]);
        atomic_inc(&bins[w >> 24]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    uint count = bins[lid];
    if (count != 0)
        atomic_add(&hist[lid], count);
}

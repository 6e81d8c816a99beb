// scan: inclusive prefix sum out[i] = in[0] + ... + in[i] (u32, wrapping) for i < n, by
// one workgroup of BLOCK threads walking the array in chunks: a Hillis-Steele scan of each
// chunk in local memory (two buffers, one barrier per step), plus the carried total of the
// chunks before (examples/scan.s computes the same with warp scans).
#define BLOCK 1024

__kernel void scan(__global const uint *in, __global uint *out, uint n)
{
    __local uint buf[2][BLOCK];
    uint lid = get_local_id(0);
    uint carry = 0;
    for (uint base = 0; base < n; base += BLOCK) {
        uint i = base + lid;
        uint v = i < n ? in[i] : 0;
        int src = 0;
        buf[0][lid] = v;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint d = 1; d < BLOCK; d <<= 1) {
            uint x = buf[src][lid];
            if (lid >= d)
                x += buf[src][lid - d];
            buf[1 - src][lid] = x;
            src = 1 - src;
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        uint total = buf[src][BLOCK - 1];
        if (i < n)
            out[i] = buf[src][lid] + carry;
        carry += total;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

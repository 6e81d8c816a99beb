// softmax of each row of a rows x cols f32 matrix, one row per work-item, in the order of
// examples/softmax.s: m = the fmax of the row from X[r][0]; e_j = 2^((x_j - m) * log2 e)
// (native_exp2: the SFU's fexp2), E[r][j] = e_j, s = the sum of the e_j from +0.0;
// Y[r][j] = e_j * (1/s) (native_recip: frcp, correctly rounded).
__kernel void softmax(__global const float *X, __global float *E, __global float *Y,
                      uint rows, uint cols)
{
    uint r = get_global_id(0);
    if (r >= rows)
        return;
    __global const float *x = X + r * cols;
    __global float *e = E + r * cols;
    __global float *y = Y + r * cols;
    float m = x[0];
    for (uint j = 1; j < cols; j++)
        m = fmax(m, x[j]);
    float s = 0.0f;
    for (uint j = 0; j < cols; j++) {
        float v = native_exp2((x[j] - m) * M_LOG2E_F);
        e[j] = v;
        s += v;
    }
    float inv = native_recip(s);
    for (uint j = 0; j < cols; j++)
        y[j] = e[j] * inv;
}

// mandelbrot: escape counts of z <- z^2 + c in f32, one pixel per work-item, for an image
// whose top-left pixel is c = x0 + i*y0 and whose pixels are `step` apart (examples/
// mandelbrot.s, with the same f32 operations in the same order).
__kernel void mandelbrot(__global uint *out, uint width, uint height, float x0, float y0,
                         float step, uint max_iter)
{
    uint px = get_global_id(0), py = get_global_id(1);
    float cr = fma((float)px, step, x0);
    float ci = fma((float)py, -step, y0);
    float x = 0.0f, y = 0.0f;
    uint count = 0;
    for (;;) {
        float x2 = x * x, y2 = y * y;
        if (x2 + y2 > 4.0f)
            break;
        y = fma(x * y, 2.0f, ci);
        x = (x2 - y2) + cr;
        if (++count == max_iter)
            break;
    }
    out[py * width + px] = count;
}

// mandelbrot twin: escape-time iteration counts over [-2, 1] x [-1.5, 1.5], a helper function
// in a divergent loop.
#include "common.h"
static unsigned escape(float cx, float cy, unsigned max_iter) {
    float x = 0.0f, y = 0.0f;
    unsigned k = 0;
    while (k < max_iter && x * x + y * y <= 4.0f) {
        float t = x * x - y * y + cx;
        y = 2.0f * x * y + cy;
        x = t;
        k += 1;
    }
    return k;
}
__kernel void mandelbrot(__global unsigned *out, unsigned w, unsigned h, unsigned max_iter) {
    unsigned px = GID_X(), py = GID_Y();
    if (px >= w || py >= h) return;
    float cx = -2.0f + 3.0f * (float)px / (float)w;
    float cy = -1.5f + 3.0f * (float)py / (float)h;
    out[py * w + px] = escape(cx, cy, max_iter);
}

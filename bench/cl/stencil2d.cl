// stencil2d twin: a 5-point stencil on a w x h grid (edges copied), one work-item per point.
#include "common.h"
__kernel void stencil2d(__global const float *a, __global float *out, unsigned w, unsigned h) {
    unsigned x = GID_X(), y = GID_Y();
    if (x >= w || y >= h) return;
    unsigned i = y * w + x;
    if (x == 0 || y == 0 || x == w - 1 || y == h - 1) {
        out[i] = a[i];
        return;
    }
    out[i] = 0.5f * a[i] + 0.125f * (a[i - 1] + a[i + 1] + a[i - w] + a[i + w]);
}

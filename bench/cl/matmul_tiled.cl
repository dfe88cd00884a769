// matmul_tiled twin: c = a * b for n x n row-major matrices with 16 x 16 shared tiles, edge
// tiles padded with zeros.
#include "common.h"
__kernel __attribute__((reqd_work_group_size(16, 16, 1)))
void matmul_tiled(__global const float *a, __global const float *b, __global float *c, unsigned n) {
    __local float ta[256];
    __local float tb[256];
    unsigned tx = LID_X(), ty = LID_Y();
    unsigned row = GROUP_Y() * 16 + ty, col = GROUP_X() * 16 + tx;
    float acc = 0.0f;
    for (unsigned t = 0; t < (n + 15) / 16; t++) {
        unsigned ac = t * 16 + tx, br = t * 16 + ty;
        ta[ty * 16 + tx] = row < n && ac < n ? a[row * n + ac] : 0.0f;
        tb[ty * 16 + tx] = br < n && col < n ? b[br * n + col] : 0.0f;
        BARRIER();
        for (unsigned k = 0; k < 16; k++) acc = __builtin_fmaf(ta[ty * 16 + k], tb[k * 16 + tx], acc);
        BARRIER();
    }
    if (row < n && col < n) c[row * n + col] = acc;
}

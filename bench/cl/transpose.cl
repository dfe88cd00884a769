// transpose twin: out = a transposed (w x h, row-major) through a padded 16 x 16 shared tile.
#include "common.h"
__kernel __attribute__((reqd_work_group_size(16, 16, 1)))
void transpose(__global const float *a, __global float *out, unsigned w, unsigned h) {
    __local float tile[16 * 17];
    unsigned tx = LID_X(), ty = LID_Y();
    unsigned x = GROUP_X() * 16 + tx, y = GROUP_Y() * 16 + ty;
    if (x < w && y < h) tile[ty * 17 + tx] = a[y * w + x];
    BARRIER();
    unsigned ox = GROUP_Y() * 16 + tx, oy = GROUP_X() * 16 + ty;
    if (ox < h && oy < w) out[oy * h + ox] = tile[tx * 17 + ty];
}

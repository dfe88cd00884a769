// vadd twin: out[i] = a[i] + b[i] for i < n.
#include "common.h"
__kernel void vadd(__global const float *a, __global const float *b, __global float *out, unsigned n) {
    unsigned i = GID_X();
    if (i < n) out[i] = a[i] + b[i];
}

// f32_math twin: a*b + a/b, fma, sqrt, min, max, abs, floor, correctly rounded.
#include "common.h"
__kernel void f32_math(__global const float *a, __global const float *b, __global float *out, unsigned n) {
    unsigned i = GID_X();
    if (i < n) {
        float x = a[i] * 8.0f;
        float y = b[i] + 1.5f;
        out[2 * i] = x * y + x / y;
        out[2 * i + 1] = __builtin_fmaf(x, y, -x) + __builtin_sqrtf(__builtin_fabsf(x)) +
                         __builtin_fminf(x, y) * __builtin_fmaxf(x, -y) + __builtin_floorf(x * 3.5f);
    }
}

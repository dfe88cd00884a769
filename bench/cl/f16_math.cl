// f16_math twin: + * fma min max in half precision.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#include "common.h"
__kernel void f16_math(__global const half *a, __global const half *b, __global half *out, unsigned n) {
    unsigned i = GID_X();
    if (i < n) {
        half x = a[i] * (half)4.0f;
        half y = b[i] + (half)0.5f;
        out[2 * i] = x * y + (x - y);
        out[2 * i + 1] = __builtin_fmaf16(x, y, (half)0.25f) + __builtin_fminf16(x, y) * __builtin_fmaxf16(x, y);
    }
}

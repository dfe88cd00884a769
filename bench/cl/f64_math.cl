// f64_math twin: + * / sqrt fma in double precision.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#include "common.h"
__kernel void f64_math(__global const double *a, __global const double *b, __global double *out, unsigned n) {
    unsigned i = GID_X();
    if (i < n) {
        double x = a[i] * 1000.0;
        double y = b[i] + 2.0;
        out[2 * i] = x * y + x / y - y;
        out[2 * i + 1] = __builtin_fma(x, y, 0.1) + __builtin_sqrt(__builtin_fabs(x) + 1.0);
    }
}

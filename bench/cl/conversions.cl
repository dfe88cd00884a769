// conversions twin: f32 to i32 and u32 with Rust's `as` rules (truncating, saturating, NaN
// to 0; written out, since OpenCL leaves out-of-range conversions undefined), to f64, and
// back through the integer types.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#include "common.h"
static int to_i32(float x) {
    return x != x ? 0 : x >= 2147483648.0f ? 2147483647 : x <= -2147483648.0f ? -2147483647 - 1 : (int)x;
}
static unsigned to_u32(float x) {
    return !(x > 0.0f) ? 0u : x >= 4294967296.0f ? 0xffffffffu : (unsigned)x;
}
static long to_i64(float x) {
    return x != x ? 0 : x >= 9223372036854775808.0f ? 9223372036854775807l
         : x <= -9223372036854775808.0f ? -9223372036854775807l - 1 : (long)x;
}
__kernel void conversions(__global const float *a, __global int *out_i, __global unsigned *out_u, __global double *out_d, unsigned n) {
    unsigned i = GID_X();
    if (i >= n) return;
    float x = a[i] * 3000.5f;
    if (i % 50 == 7) x = x * 1.0e7f;
    out_i[i] = to_i32(x);
    out_u[i] = to_u32(x);
    out_d[i] = (double)x + (double)to_i32(x) * 0.5 + (double)(ulong)to_u32(x) + (double)(float)(int)to_i64(x);
}

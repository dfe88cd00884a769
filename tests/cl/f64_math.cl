// f64 math, correctly rounded: args (const double *a, const double *b, double *out, uint n); for i < n (b != 0): out[3i] = fma(a, b, a), out[3i+1] = a / b, out[3i+2] = sqrt(|a|) + a*b (product rounded first, then the sum).
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void f64_math(__global const double *a, __global const double *b, __global double *out, unsigned n) {
    unsigned i = __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() + __builtin_amdgcn_workitem_id_x();
    if (i >= n) return;
    double x = a[i], y = b[i];
    out[3 * i] = __builtin_fma(x, y, x);
    out[3 * i + 1] = x / y;
    double p = x * y;
    out[3 * i + 2] = __builtin_sqrt(__builtin_fabs(x)) + p;
}

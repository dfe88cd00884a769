// f16 arithmetic and conversions (each operation rounded to half, no fusion); args (const half *a, const half *b, half *out, float *wide, uint n); for i < n: p = a*b (half), out[i] = p + a (half), wide[i] = (float)a * (float)b (f32).
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
__kernel void half_math(__global const half *a, __global const half *b, __global half *out, __global float *wide, unsigned n) {
    unsigned i = __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() + __builtin_amdgcn_workitem_id_x();
    if (i >= n) return;
    half x = a[i], y = b[i];
    half p = x * y;
    out[i] = p + x;
    float fx = x, fy = y;
    wide[i] = fx * fy;
}

// f32 division and square root at OpenCL's default precision (division within 2.5 ulp, sqrt within 3 ulp; exact IEEE results also pass); args (const float *a, const float *b, float *q, float *s, uint n): for i < n, q = a/b, s = sqrt(a) (a >= 0).
__kernel void fdiv_sqrt(__global const float *a, __global const float *b, __global float *q, __global float *s, unsigned n) {
    unsigned i = __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() + __builtin_amdgcn_workitem_id_x();
    if (i >= n) return;
    q[i] = a[i] / b[i];
    s[i] = __builtin_sqrtf(a[i]);
}

// Elementwise with a bounds check: c[i] = a[i] + b[i] for i < n; args (const float *a, const float *b, float *c, uint n); 1-D grid of any size.
__kernel void vadd(__global const float *a, __global const float *b, __global float *c, unsigned n) {
    unsigned i = __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() + __builtin_amdgcn_workitem_id_x();
    if (i < n) c[i] = a[i] + b[i];
}

// f32 and f64 division over edge operands, the f32 correctly rounded (-cl-fp32-correctly-rounded-divide-sqrt): args (const float *a, const float *b, float *q, const double *x, const double *y, double *z, uint n): for i < n, q = a/b and z = x/y.
__kernel void fdiv_edges(__global const float *a, __global const float *b, __global float *q, __global const double *x, __global const double *y, __global double *z, unsigned n) {
    unsigned i = __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() + __builtin_amdgcn_workitem_id_x();
    if (i >= n) return;
    q[i] = a[i] / b[i];
    z[i] = x[i] / y[i];
}

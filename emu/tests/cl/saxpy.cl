// y = a * x + y with a float scalar argument, bounds-checked.
__kernel void saxpy(__global float *y, __global const float *x, float a, unsigned n) {
    unsigned i = __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x()
               + __builtin_amdgcn_workitem_id_x();
    if (i < n) y[i] = a * x[i] + y[i];
}

// Reduction: a tree sum in LDS per work-group; args (const int *in, int *partial, uint n); 1-D, block a power of two <= 256: partial[g] = sum of in[i] over the group's i < n (wrapping i32).
__kernel void reduce(__global const int *in, __global int *partial, unsigned n) {
    __local int buf[256];
    unsigned l = __builtin_amdgcn_workitem_id_x();
    unsigned size = __builtin_amdgcn_workgroup_size_x();
    unsigned g = __builtin_amdgcn_workgroup_id_x();
    unsigned i = g * size + l;
    buf[l] = i < n ? in[i] : 0;
    for (unsigned stride = size / 2; stride > 0; stride /= 2) {
        __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
        __builtin_amdgcn_s_barrier();
        __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
        if (l < stride) buf[l] += buf[l + stride];
    }
    if (l == 0) partial[g] = buf[0];
}

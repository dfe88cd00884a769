// Prefix scan: an inclusive Hillis-Steele scan per work-group in LDS; args (const int *in, int *out, uint n); 1-D, block <= 256: out[i] = sum of in[j] for j from the group's start to i (i < n; elements >= n count as 0; wrapping i32).
__kernel void scan(__global const int *in, __global int *out, unsigned n) {
    __local int buf[256];
    unsigned l = __builtin_amdgcn_workitem_id_x();
    unsigned size = __builtin_amdgcn_workgroup_size_x();
    unsigned i = __builtin_amdgcn_workgroup_id_x() * size + l;
    buf[l] = i < n ? in[i] : 0;
    for (unsigned offset = 1; offset < size; offset *= 2) {
        __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
        __builtin_amdgcn_s_barrier();
        __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
        int add = l >= offset ? buf[l - offset] : 0;
        __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
        __builtin_amdgcn_s_barrier();
        __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
        buf[l] += add;
    }
    if (i < n) out[i] = buf[l];
}

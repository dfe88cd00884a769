// Shared memory with barriers: each work-group reverses its block; args (const int *in, int *out, uint n); 1-D, block <= 256: with s = group start, B = block, l = local id, out[s+B-1-l] = (s+l < n ? in[s+l] : 0) where s+B-1-l < n.
__kernel void lds_reverse(__global const int *in, __global int *out, unsigned n) {
    __local int buf[256];
    unsigned l = __builtin_amdgcn_workitem_id_x();
    unsigned size = __builtin_amdgcn_workgroup_size_x();
    unsigned start = __builtin_amdgcn_workgroup_id_x() * size;
    buf[l] = start + l < n ? in[start + l] : 0;
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
    __builtin_amdgcn_s_barrier();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
    unsigned dst = start + size - 1 - l;
    if (dst < n) out[dst] = buf[l];
}

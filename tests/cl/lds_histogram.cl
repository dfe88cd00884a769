// Shared-memory atomics: a 64-bin histogram per work-group in LDS, then merged with global atomics; args (const uint *in, uint *bins, uint n); 1-D, any block, bins (64) zeroed first: bins[in[i] & 63] += 1 for i < n.
__kernel void lds_histogram(__global const unsigned *in, __global unsigned *bins, unsigned n) {
    __local unsigned local_bins[64];
    unsigned l = __builtin_amdgcn_workitem_id_x();
    unsigned size = __builtin_amdgcn_workgroup_size_x();
    unsigned i = __builtin_amdgcn_workgroup_id_x() * size + l;
    for (unsigned b = l; b < 64; b += size) local_bins[b] = 0;
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
    __builtin_amdgcn_s_barrier();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
    if (i < n) __atomic_fetch_add(&local_bins[in[i] & 63], 1u, __ATOMIC_RELAXED);
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
    __builtin_amdgcn_s_barrier();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
    for (unsigned b = l; b < 64; b += size) {
        unsigned count = local_bins[b];
        if (count) __atomic_fetch_add(&bins[b], count, __ATOMIC_RELAXED);
    }
}

// Histogram with global atomics: bins[in[i] % nbins] += 1 for i < n; args (const uint *in, uint *bins, uint n, uint nbins); 1-D grid of any size, nbins > 0, bins zeroed first.
__kernel void histogram(__global const unsigned *in, __global unsigned *bins, unsigned n, unsigned nbins) {
    unsigned i = __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() + __builtin_amdgcn_workitem_id_x();
    if (i < n) __scoped_atomic_fetch_add(&bins[in[i] % nbins], 1u, __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE);
}

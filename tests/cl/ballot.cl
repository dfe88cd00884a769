// Cross-lane ballot (w32 or w64 by wave size): each work-item gets the number of lanes of its wave with i < n and in[i] > 0; args (const int *in, uint *out, uint n); 1-D, block a multiple of the wave size: out[i] = that count for i < n.
__kernel void ballot(__global const int *in, __global unsigned *out, unsigned n) {
    unsigned i = __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() + __builtin_amdgcn_workitem_id_x();
    int pred = i < n && in[i] > 0;
#if __AMDGCN_WAVEFRONT_SIZE == 64
    unsigned count = __builtin_popcountl(__builtin_amdgcn_ballot_w64(pred));
#else
    unsigned count = __builtin_popcount(__builtin_amdgcn_ballot_w32(pred));
#endif
    if (i < n) out[i] = count;
}

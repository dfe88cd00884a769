// Cross-lane readfirstlane and ds_bpermute; args (const int *in, int *rot, int *first, uint n); 1-D, block a multiple of 64; with v = (i < n ? in[i] : 0) and l = local id: rot[i] = v of local id (l & ~31) | ((l+1) & 31) (rotation within 32-lane groups), first[i] = v of the wave's first work-item (local id l - l % wave size), for i < n.
__kernel void lane_shuffle(__global const int *in, __global int *rot, __global int *first, unsigned n) {
    unsigned l = __builtin_amdgcn_workitem_id_x();
    unsigned i = __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() + l;
    int v = i < n ? in[i] : 0;
    unsigned lane = l % __AMDGCN_WAVEFRONT_SIZE;
    unsigned src = (lane & ~31u) | ((lane + 1) & 31u);
    int rotated = __builtin_amdgcn_ds_bpermute((int)(src * 4), v);
    int head = __builtin_amdgcn_readfirstlane(v);
    if (i < n) {
        rot[i] = rotated;
        first[i] = head;
    }
}

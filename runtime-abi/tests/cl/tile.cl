// Uses work-group ids y and z, work-item ids x/y/z and a shared (LDS) array with a barrier.
__kernel void tile(__global float *out, __global const float *in, int w) {
    __local float buf[64];
    unsigned lx = __builtin_amdgcn_workitem_id_x();
    unsigned ly = __builtin_amdgcn_workitem_id_y();
    unsigned lz = __builtin_amdgcn_workitem_id_z();
    unsigned gy = __builtin_amdgcn_workgroup_id_y();
    unsigned gz = __builtin_amdgcn_workgroup_id_z();
    unsigned l = (lz * 4 + ly) * 4 + lx;
    buf[l & 63] = in[gy * w + l];
    __builtin_amdgcn_s_barrier();
    out[(gz * w + gy) * 64 + l] = buf[(l + 1) & 63];
}

// 3-D work-item ids, work-group ids y/z and LDS with a barrier; args (float *out, const float *in, int w); block (4,4,4): l = (lz*4+ly)*4+lx, out[(gz*w+gy)*64+l] = in[gy*w + ((l+1)&63)] (the in-block neighbour through LDS).
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

// 2-D grid: transpose of a w x h row-major matrix; args (const float *in, float *out, uint w, uint h); 2-D grid (x over w, y over h), any block: out[x*h + y] = in[y*w + x] for x < w, y < h.
__kernel void transpose(__global const float *in, __global float *out, unsigned w, unsigned h) {
    unsigned x = __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() + __builtin_amdgcn_workitem_id_x();
    unsigned y = __builtin_amdgcn_workgroup_id_y() * __builtin_amdgcn_workgroup_size_y() + __builtin_amdgcn_workitem_id_y();
    if (x < w && y < h) out[x * h + y] = in[y * w + x];
}

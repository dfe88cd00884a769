// A 2-D kernel: out[y][x] = in[y][x] * 2 + x - y over a width x height image, bounds-checked
// in both dimensions (row pitch = width).
__kernel void grid2d(__global int *out, __global const int *in, unsigned width, unsigned height) {
    unsigned x = __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x()
               + __builtin_amdgcn_workitem_id_x();
    unsigned y = __builtin_amdgcn_workgroup_id_y() * __builtin_amdgcn_workgroup_size_y()
               + __builtin_amdgcn_workitem_id_y();
    if (x < width && y < height) out[y * width + x] = in[y * width + x] * 2 + (int)x - (int)y;
}

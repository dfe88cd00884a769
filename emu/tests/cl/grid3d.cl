// A 3-D kernel: every work-item inside a width x height x depth volume (bounds-checked in all
// three dimensions) writes a mix of its global position and its local ids.
__kernel void grid3d(__global uint *out, uint width, uint height, uint depth) {
    uint lx = __builtin_amdgcn_workitem_id_x();
    uint ly = __builtin_amdgcn_workitem_id_y();
    uint lz = __builtin_amdgcn_workitem_id_z();
    uint x = __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() + lx;
    uint y = __builtin_amdgcn_workgroup_id_y() * __builtin_amdgcn_workgroup_size_y() + ly;
    uint z = __builtin_amdgcn_workgroup_id_z() * __builtin_amdgcn_workgroup_size_z() + lz;
    if (x < width && y < height && z < depth)
        out[(z * height + y) * width + x] = (x + y * width + z * width * height) + (lx << 12) + (ly << 20) + (lz << 26);
}

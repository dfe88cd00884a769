// 3-D grid: each work-item writes its coordinates; args (uint *out, uint nx, uint ny, uint nz); 3-D grid, any block: out[(z*ny + y)*nx + x] = x + 1000*y + 1000000*z for x < nx, y < ny, z < nz.
__kernel void grid3d(__global unsigned *out, unsigned nx, unsigned ny, unsigned nz) {
    unsigned x = __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() + __builtin_amdgcn_workitem_id_x();
    unsigned y = __builtin_amdgcn_workgroup_id_y() * __builtin_amdgcn_workgroup_size_y() + __builtin_amdgcn_workitem_id_y();
    unsigned z = __builtin_amdgcn_workgroup_id_z() * __builtin_amdgcn_workgroup_size_z() + __builtin_amdgcn_workitem_id_z();
    if (x < nx && y < ny && z < nz) out[(z * ny + y) * nx + x] = x + 1000 * y + 1000000 * z;
}

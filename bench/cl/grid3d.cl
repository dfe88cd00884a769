// grid3d twin: the work-item geometry of a 3-D dispatch: global, local and group ids, the
// (nominal) group sizes and the group counts (from the dispatch's grid size).
#include "common.h"
__kernel __attribute__((reqd_work_group_size(4, 4, 2)))
void grid3d(__global unsigned *out, unsigned nx, unsigned ny, unsigned nz) {
    unsigned x = GID_X(), y = GID_Y(), z = GID_Z();
    if (x >= nx || y >= ny || z >= nz) return;
    unsigned sx = __builtin_amdgcn_workgroup_size_x(), sy = __builtin_amdgcn_workgroup_size_y(),
             sz = __builtin_amdgcn_workgroup_size_z();
    unsigned gx = (__builtin_amdgcn_grid_size_x() + sx - 1) / sx, gy = (__builtin_amdgcn_grid_size_y() + sy - 1) / sy,
             gz = (__builtin_amdgcn_grid_size_z() + sz - 1) / sz;
    unsigned o = ((z * ny + y) * nx + x) * 2;
    out[o] = x | y << 8 | z << 16 | (LID_X() + LID_Y() * 4 + LID_Z() * 16) << 24;
    out[o + 1] = GROUP_X() | GROUP_Y() << 4 | GROUP_Z() << 8 | sx << 12 | sy << 16 | sz << 20 | gx << 24 | gy << 27 | gz << 30;
}

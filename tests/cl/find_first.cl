// A loop with a data-dependent break: per row, the first column whose value exceeds a threshold; args (const int *rows, int *out, uint width, int threshold, uint nrows); 1-D grid over rows: out[r] = least j < width with rows[r*width+j] > threshold, else -1 (r < nrows).
__kernel void find_first(__global const int *rows, __global int *out, unsigned width, int threshold, unsigned nrows) {
    unsigned r = __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() + __builtin_amdgcn_workitem_id_x();
    if (r >= nrows) return;
    int found = -1;
    for (unsigned j = 0; j < width; j++) {
        if (rows[r * width + j] > threshold) {
            found = (int)j;
            break;
        }
    }
    out[r] = found;
}

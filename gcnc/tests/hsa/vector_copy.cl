// The C sample's kernel in OpenCL C, for clang-19 (builtins only, no device library):
// out[i] = in[i] for i < n.
__kernel void vector_copy(__global const uint *in, __global uint *out, uint n) {
    uint i = __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() + __builtin_amdgcn_workitem_id_x();
    if (i < n) {
        out[i] = in[i];
    }
}

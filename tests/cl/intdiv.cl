// 32-bit integer division and remainder, signed and unsigned (C semantics, truncating); args (const int *a, const int *b, int *q, int *r, uint *uq, uint *ur, uint n); for i < n, b[i] != 0 and not (a[i] == INT_MIN && b[i] == -1): q = a/b, r = a%b, uq = (uint)a/(uint)b, ur = (uint)a%(uint)b.
__kernel void intdiv(__global const int *a, __global const int *b, __global int *q, __global int *r,
                     __global unsigned *uq, __global unsigned *ur, unsigned n) {
    unsigned i = __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() + __builtin_amdgcn_workitem_id_x();
    if (i >= n) return;
    int x = a[i], y = b[i];
    q[i] = x / y;
    r[i] = x % y;
    uq[i] = (unsigned)x / (unsigned)y;
    ur[i] = (unsigned)x % (unsigned)y;
}

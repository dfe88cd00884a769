// 64-bit integer math (wrapping): args (const ulong *a, const ulong *b, ulong *out, uint n); for i < n, with d = b | 1: out[4i] = a*b + (a >> 13), out[4i+1] = (a << (b & 63)) ^ b, out[4i+2] = a / d (unsigned), out[4i+3] = (long)a % (long)d (signed, C truncation; (long)d != -1 or a != LONG_MIN).
__kernel void i64_math(__global const ulong *a, __global const ulong *b, __global ulong *out, unsigned n) {
    unsigned i = __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() + __builtin_amdgcn_workitem_id_x();
    if (i >= n) return;
    ulong x = a[i], y = b[i], d = y | 1;
    out[4 * i] = x * y + (x >> 13);
    out[4 * i + 1] = (x << (y & 63)) ^ y;
    out[4 * i + 2] = x / d;
    out[4 * i + 3] = (ulong)((long)x % (long)d);
}

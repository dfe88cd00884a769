// u64_arith twin: 64-bit + * >> ^ and mul_hi (the high half of the 128-bit product, from
// 32-bit halves, since mul_hi needs the device library).
#include "common.h"
static ulong mul_hi64(ulong x, ulong y) {
    ulong x0 = x & 0xffffffffu, x1 = x >> 32, y0 = y & 0xffffffffu, y1 = y >> 32;
    ulong p00 = x0 * y0, p01 = x0 * y1, p10 = x1 * y0, p11 = x1 * y1;
    ulong mid = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
    return p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}
__kernel void u64_arith(__global const ulong *a, __global const ulong *b, __global ulong *out, unsigned n) {
    unsigned i = GID_X();
    if (i < n) {
        ulong x = a[i] * 0x9e3779b97f4a7c15ul + 0xfffffffful;
        ulong y = (b[i] << 40) ^ ((b[i] * 0x100000001ul) + x);
        out[2 * i] = (x * y + (x >> 29)) ^ (y >> (a[i] & 63));
        out[2 * i + 1] = mul_hi64(x, y) + (x + y) - (y >> 63);
    }
}

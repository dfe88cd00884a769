// i64_divrem twin: signed 64-bit quotient and remainder with RISC-V's rules for a zero
// divisor (q = -1, r = x) and MIN / -1 (q = MIN, r = 0) written out.
#include "common.h"
__kernel void i64_divrem(__global const long *a, __global const long *b, __global long *q, __global long *r, unsigned n) {
    unsigned i = GID_X();
    if (i >= n) return;
    long x = (a[i] - 500) * 0x12345678901l;
    long y = b[i] % 23 - 11;
    if (i % 3 == 1) {
        y = y * 1000000007 + b[i];
    } else if (i % 3 == 2) {
        y = (long)((ulong)y << 40);
    }
    if (i % 41 == 0) {
        x = -9223372036854775807l - 1;
        y = -1;
    }
    if (y == 0) {
        q[i] = -1;
        r[i] = x;
    } else if (x == -9223372036854775807l - 1 && y == -1) {
        q[i] = x;
        r[i] = 0;
    } else {
        q[i] = x / y;
        r[i] = x % y;
    }
}

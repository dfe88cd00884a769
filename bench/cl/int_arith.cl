// int_arith twin: i32 + - * / % << >> & | ^ min max, wrapping, with RISC-V's division rules
// (x / 0 = -1, x % 0 = x, MIN / -1 = MIN, MIN % -1 = 0) written out.
#include "common.h"
__kernel void int_arith(__global const int *a, __global const int *b, __global int *out, unsigned n) {
    unsigned i = GID_X();
    if (i >= n) return;
    int x = (a[i] - 500) * 4099;
    int y = b[i] % 13 - 6;
    if (i % 37 == 0) {
        x = -2147483647 - 1;
        y = -1;
    }
    int q, r;
    if (y == 0) {
        q = -1;
        r = x;
    } else if (x == -2147483647 - 1 && y == -1) {
        q = x;
        r = 0;
    } else {
        q = x / y;
        r = x % y;
    }
    unsigned ux = (unsigned)x, uy = (unsigned)y;
    unsigned s = (ux << (uy & 31)) ^ (unsigned)(x >> 3) ^ (ux + uy * 7);
    unsigned t = (ux & 0x0ff0) | ((uy * uy) ^ (ux - uy));
    int lo = x < y ? x : y;
    int y100 = (int)(uy * 100);
    int hi = x > y100 ? x : y100;
    out[2 * i] = (int)((unsigned)q + (unsigned)r * 1000);
    out[2 * i + 1] = (int)(s + t + (unsigned)lo - (unsigned)hi + (ux >> 5));
}

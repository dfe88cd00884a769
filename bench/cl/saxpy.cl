// saxpy twin: y[i] = alpha * x[i] + y[i] for i < n (not contracted).
#include "common.h"
__kernel void saxpy(float alpha, __global const float *x, __global float *y, unsigned n) {
    unsigned i = GID_X();
    if (i < n) y[i] = alpha * x[i] + y[i];
}

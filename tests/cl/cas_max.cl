// Atomic compare-and-swap loops: a signed max and a float add built from CAS; args (const int *in, int *max, float *sum, uint n); 1-D grid; max[0] starts at INT_MIN and sum[0] at 0: max[0] = max of in[i], sum[0] = sum of (float)in[i] over i < n (exact when the values and sums are integers below 2^24 in magnitude).
__kernel void cas_max(__global const int *in, __global int *max, __global float *sum, unsigned n) {
    unsigned i = __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() + __builtin_amdgcn_workitem_id_x();
    if (i >= n) return;
    int v = in[i];
    int old = __atomic_load_n(max, __ATOMIC_RELAXED);
    while (old < v && !__atomic_compare_exchange_n(max, &old, v, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
    __global unsigned *bits = (__global unsigned *)sum;
    unsigned expected = __atomic_load_n(bits, __ATOMIC_RELAXED);
    for (;;) {
        float next = __builtin_bit_cast(float, expected) + (float)v;
        if (__atomic_compare_exchange_n(bits, &expected, __builtin_bit_cast(unsigned, next), 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) break;
    }
}

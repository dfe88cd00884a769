// A private array indexed by a run-time value: forces scratch (the private segment).
__kernel void priv(__global int *out, __global const int *idx, char k) {
    int tmp[32];
    unsigned lx = __builtin_amdgcn_workitem_id_x();
    for (int j = 0; j < 32; j++) tmp[j] = idx[(lx + j) & 31] * k;
    out[lx] = tmp[idx[lx] & 31];
}

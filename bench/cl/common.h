// Shared by the benchmark's OpenCL C twins of tests/conformance/*.gk: work-item geometry and
// the work-group barrier from the builtins alone (no device library, -nogpulib), as in
// tests/cl/README.md, and the kernel language's float rules: no contraction of a * b + c
// into an fma (the benchmark also passes -cl-fp32-correctly-rounded-divide-sqrt, so f32
// division and sqrt are correctly rounded, as in the kernel language).
#pragma OPENCL FP_CONTRACT OFF
#define LID_X() __builtin_amdgcn_workitem_id_x()
#define LID_Y() __builtin_amdgcn_workitem_id_y()
#define LID_Z() __builtin_amdgcn_workitem_id_z()
#define GROUP_X() __builtin_amdgcn_workgroup_id_x()
#define GROUP_Y() __builtin_amdgcn_workgroup_id_y()
#define GROUP_Z() __builtin_amdgcn_workgroup_id_z()
#define GID_X() (GROUP_X() * __builtin_amdgcn_workgroup_size_x() + LID_X())
#define GID_Y() (GROUP_Y() * __builtin_amdgcn_workgroup_size_y() + LID_Y())
#define GID_Z() (GROUP_Z() * __builtin_amdgcn_workgroup_size_z() + LID_Z())
// The kernel language's `lane_id`: the lane within the wave.
#if __AMDGCN_WAVEFRONT_SIZE == 64
#define LANE_ID() __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u))
#else
#define LANE_ID() __builtin_amdgcn_mbcnt_lo(~0u, 0u)
#endif
#define BARRIER()                                                                                                      \
    do {                                                                                                               \
        __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");                                                         \
        __builtin_amdgcn_s_barrier();                                                                                  \
        __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");                                                         \
    } while (0)

/* A stand-in HSA runtime for gcnc's GPU backend test (gcnc/tests/gpu_hsa.rs), built against
 * Debian's hsa.h so its entry points have the real prototypes. It has one CPU agent and one
 * GPU agent (ISA amdgcn-amd-amdhsa--gfx1100), host memory for every region, and a packet
 * processor that runs on the doorbell: it checks the packet, logs it with its kernarg bytes,
 * "runs" a kernel that adds 1 to every 32-bit word of every buffer allocated outside the
 * kernarg region, and sets the completion signal to 0. Every call is logged, one line each,
 * to the file $MOCK_HSA_LOG, so the test can check the order of calls and that everything
 * created is released. $MOCK_HSA_FAIL names one entry point that then fails, for the error
 * paths. */
#include <hsa/hsa.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CPU_AGENT 1
#define GPU_AGENT 2
#define ISA 7
#define KERNARG_REGION 10
#define COARSE_REGION 11
#define FINE_REGION 12
#define DOORBELL 100
#define KERNEL_OBJECT 0x1234
#define MAX_ALLOCS 64

static const char ISA_NAME[] = "amdgcn-amd-amdhsa--gfx1100";
static struct { void *ptr; size_t size; uint64_t region; } allocs[MAX_ALLOCS];
static hsa_queue_t *the_queue;
static uint64_t write_index;

static void logf_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logf_(const char *fmt, ...) {
    const char *path = getenv("MOCK_HSA_LOG");
    FILE *f = path ? fopen(path, "a") : NULL;
    if (!f) return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fputc('\n', f);
    fclose(f);
}

/* Whether the test asked `name` to fail. */
static int fails(const char *name) {
    const char *which = getenv("MOCK_HSA_FAIL");
    return which && strcmp(which, name) == 0;
}

hsa_status_t hsa_status_string(hsa_status_t status, const char **text) {
    *text = status == HSA_STATUS_ERROR_INVALID_ARGUMENT ? "MOCK_INVALID_ARGUMENT: bad argument" : "MOCK_STATUS";
    return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_init(void) { logf_("init"); return HSA_STATUS_SUCCESS; }
hsa_status_t hsa_shut_down(void) { logf_("shut_down"); return HSA_STATUS_SUCCESS; }

hsa_status_t hsa_iterate_agents(hsa_status_t (*callback)(hsa_agent_t, void *), void *data) {
    hsa_agent_t cpu = {CPU_AGENT}, gpu = {GPU_AGENT};
    hsa_status_t s = callback(cpu, data);
    return s != HSA_STATUS_SUCCESS ? s : callback(gpu, data);
}

hsa_status_t hsa_agent_get_info(hsa_agent_t agent, hsa_agent_info_t attribute, void *value) {
    switch (attribute) {
    case HSA_AGENT_INFO_DEVICE:
        *(hsa_device_type_t *)value = agent.handle == GPU_AGENT ? HSA_DEVICE_TYPE_GPU : HSA_DEVICE_TYPE_CPU;
        return HSA_STATUS_SUCCESS;
    case HSA_AGENT_INFO_QUEUE_MIN_SIZE: *(uint32_t *)value = 64; return HSA_STATUS_SUCCESS;
    case HSA_AGENT_INFO_PROFILE: *(hsa_profile_t *)value = HSA_PROFILE_BASE; return HSA_STATUS_SUCCESS;
    default: return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    }
}

hsa_status_t hsa_agent_iterate_isas(hsa_agent_t agent, hsa_status_t (*callback)(hsa_isa_t, void *), void *data) {
    hsa_isa_t isa = {ISA};
    return agent.handle == GPU_AGENT ? callback(isa, data) : HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_isa_get_info_alt(hsa_isa_t isa, hsa_isa_info_t attribute, void *value) {
    if (isa.handle != ISA) return HSA_STATUS_ERROR_INVALID_ISA;
    if (attribute == HSA_ISA_INFO_NAME_LENGTH) { *(uint32_t *)value = sizeof ISA_NAME; return HSA_STATUS_SUCCESS; }
    if (attribute == HSA_ISA_INFO_NAME) { memcpy(value, ISA_NAME, sizeof ISA_NAME); return HSA_STATUS_SUCCESS; }
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

hsa_status_t hsa_agent_iterate_regions(hsa_agent_t agent, hsa_status_t (*callback)(hsa_region_t, void *),
                                       void *data) {
    uint64_t ids[] = {KERNARG_REGION, COARSE_REGION, FINE_REGION};
    for (int i = 0; i < 3 && agent.handle == GPU_AGENT; i++) {
        hsa_region_t r = {ids[i]};
        hsa_status_t s = callback(r, data);
        if (s != HSA_STATUS_SUCCESS) return s;
    }
    return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_region_get_info(hsa_region_t region, hsa_region_info_t attribute, void *value) {
    switch (attribute) {
    case HSA_REGION_INFO_SEGMENT: *(hsa_region_segment_t *)value = HSA_REGION_SEGMENT_GLOBAL; return HSA_STATUS_SUCCESS;
    case HSA_REGION_INFO_RUNTIME_ALLOC_ALLOWED: *(bool *)value = true; return HSA_STATUS_SUCCESS;
    case HSA_REGION_INFO_GLOBAL_FLAGS:
        *(uint32_t *)value = region.handle == KERNARG_REGION
            ? HSA_REGION_GLOBAL_FLAG_KERNARG | HSA_REGION_GLOBAL_FLAG_FINE_GRAINED
            : region.handle == COARSE_REGION ? HSA_REGION_GLOBAL_FLAG_COARSE_GRAINED : HSA_REGION_GLOBAL_FLAG_FINE_GRAINED;
        return HSA_STATUS_SUCCESS;
    default: return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    }
}

hsa_status_t hsa_memory_allocate(hsa_region_t region, size_t size, void **ptr) {
    for (int i = 0; i < MAX_ALLOCS; i++) {
        if (allocs[i].ptr) continue;
        allocs[i].ptr = *ptr = calloc(1, size);
        allocs[i].size = size;
        allocs[i].region = region.handle;
        logf_("allocate region=%llu size=%zu", (unsigned long long)region.handle, size);
        return HSA_STATUS_SUCCESS;
    }
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
}

hsa_status_t hsa_memory_free(void *ptr) {
    for (int i = 0; i < MAX_ALLOCS; i++) {
        if (allocs[i].ptr != ptr || !ptr) continue;
        logf_("free region=%llu", (unsigned long long)allocs[i].region);
        free(ptr);
        allocs[i].ptr = NULL;
        return HSA_STATUS_SUCCESS;
    }
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

hsa_status_t hsa_memory_copy(void *dst, const void *src, size_t size) {
    memcpy(dst, src, size);
    logf_("copy size=%zu", size);
    return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_queue_create(hsa_agent_t agent, uint32_t size, hsa_queue_type32_t type,
                              void (*callback)(hsa_status_t, hsa_queue_t *, void *), void *data,
                              uint32_t private_segment_size, uint32_t group_segment_size, hsa_queue_t **queue) {
    (void)callback; (void)data;
    if (agent.handle != GPU_AGENT || the_queue) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    the_queue = calloc(1, sizeof *the_queue);
    the_queue->type = type;
    the_queue->size = size;
    the_queue->base_address = aligned_alloc(64, size * 64);
    for (uint32_t i = 0; i < size; i++)
        ((hsa_kernel_dispatch_packet_t *)the_queue->base_address)[i].header = HSA_PACKET_TYPE_INVALID;
    the_queue->doorbell_signal.handle = DOORBELL;
    *queue = the_queue;
    logf_("queue_create size=%u type=%u single=%u private=%u group=%u", size, type, HSA_QUEUE_TYPE_SINGLE,
          private_segment_size, group_segment_size);
    return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_queue_destroy(hsa_queue_t *queue) {
    if (queue != the_queue) return HSA_STATUS_ERROR_INVALID_QUEUE;
    free(queue->base_address);
    free(queue);
    the_queue = NULL;
    logf_("queue_destroy");
    return HSA_STATUS_SUCCESS;
}

uint64_t hsa_queue_add_write_index_scacq_screl(const hsa_queue_t *queue, uint64_t value) {
    (void)queue;
    return __atomic_fetch_add(&write_index, value, __ATOMIC_ACQ_REL);
}

uint64_t hsa_queue_load_read_index_scacquire(const hsa_queue_t *queue) { (void)queue; return 0; }

hsa_status_t hsa_signal_create(hsa_signal_value_t initial_value, uint32_t num_consumers,
                               const hsa_agent_t *consumers, hsa_signal_t *signal) {
    (void)num_consumers; (void)consumers;
    hsa_signal_value_t *cell = malloc(sizeof *cell);
    *cell = initial_value;
    signal->handle = (uint64_t)(uintptr_t)cell;
    logf_("signal_create value=%lld", (long long)initial_value);
    return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_signal_destroy(hsa_signal_t signal) {
    free((void *)(uintptr_t)signal.handle);
    logf_("signal_destroy");
    return HSA_STATUS_SUCCESS;
}

/* The packet processor: runs on the doorbell. */
void hsa_signal_store_screlease(hsa_signal_t signal, hsa_signal_value_t value) {
    if (signal.handle != DOORBELL || !the_queue) { logf_("store to a signal that is not the doorbell"); return; }
    hsa_kernel_dispatch_packet_t *p =
        (hsa_kernel_dispatch_packet_t *)the_queue->base_address + (uint64_t)value % the_queue->size;
    uint32_t word = __atomic_load_n((uint32_t *)p, __ATOMIC_ACQUIRE);
    size_t kernarg_size = 0;
    for (int i = 0; i < MAX_ALLOCS; i++)
        if (allocs[i].ptr && allocs[i].ptr == p->kernarg_address) kernarg_size = allocs[i].size;
    char hex[2 * 4096 + 1] = "";
    for (size_t i = 0; i < kernarg_size && i < 4096; i++)
        sprintf(hex + 2 * i, "%02x", ((unsigned char *)p->kernarg_address)[i]);
    /* What hsa.h says a 1-D dispatch with system-scope fences has, for the test to compare. */
    unsigned system_header = (HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) |
                             (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
                             (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
    unsigned setup_1d = 1 << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS;
    logf_("dispatch index=%lld header=%u system_header=%u setup=%u setup_1d=%u workgroup=%u,%u,%u grid=%u,%u,%u "
          "reserved=%u,%llu private=%u group=%u kernel_object=%#llx kernarg=%s",
          (long long)value, word & 0xffff, system_header, word >> 16, setup_1d, p->workgroup_size_x, p->workgroup_size_y,
          p->workgroup_size_z, p->grid_size_x, p->grid_size_y, p->grid_size_z, p->reserved0,
          (unsigned long long)p->reserved2, p->private_segment_size, p->group_segment_size,
          (unsigned long long)p->kernel_object, hex);
    for (int i = 0; i < MAX_ALLOCS; i++) {
        if (!allocs[i].ptr || allocs[i].region == KERNARG_REGION) continue;
        for (size_t w = 0; w + 4 <= allocs[i].size; w += 4) ((uint32_t *)allocs[i].ptr)[w / 4] += 1;
    }
    __atomic_store_n((hsa_signal_value_t *)(uintptr_t)p->completion_signal.handle, 0, __ATOMIC_RELEASE);
}

hsa_signal_value_t hsa_signal_wait_scacquire(hsa_signal_t signal, hsa_signal_condition_t condition,
                                             hsa_signal_value_t compare_value, uint64_t timeout_hint,
                                             hsa_wait_state_t wait_state_hint) {
    (void)timeout_hint;
    hsa_signal_value_t v = __atomic_load_n((hsa_signal_value_t *)(uintptr_t)signal.handle, __ATOMIC_ACQUIRE);
    logf_("wait condition=%u compare=%lld state=%u value=%lld", condition, (long long)compare_value,
          wait_state_hint, (long long)v);
    return v;
}

hsa_status_t hsa_code_object_reader_create_from_memory(const void *code_object, size_t size,
                                                       hsa_code_object_reader_t *reader) {
    if (size < 4 || memcmp(code_object, "\177ELF", 4) != 0) return HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
    reader->handle = 20;
    logf_("reader_create size=%zu", size);
    return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_code_object_reader_destroy(hsa_code_object_reader_t reader) {
    logf_("reader_destroy handle=%llu", (unsigned long long)reader.handle);
    return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_executable_create_alt(hsa_profile_t profile, hsa_default_float_rounding_mode_t mode,
                                       const char *options, hsa_executable_t *executable) {
    (void)options;
    executable->handle = 30;
    logf_("executable_create profile=%u rounding=%u", profile, mode);
    return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_executable_destroy(hsa_executable_t executable) {
    logf_("executable_destroy handle=%llu", (unsigned long long)executable.handle);
    return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_executable_load_agent_code_object(hsa_executable_t executable, hsa_agent_t agent,
                                                   hsa_code_object_reader_t reader, const char *options,
                                                   hsa_loaded_code_object_t *loaded) {
    (void)options; (void)loaded;
    if (executable.handle != 30 || agent.handle != GPU_AGENT || reader.handle != 20)
        return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    logf_("load_agent_code_object");
    return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_executable_freeze(hsa_executable_t executable, const char *options) {
    (void)options; (void)executable;
    if (fails("hsa_executable_freeze")) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    logf_("freeze");
    return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_executable_get_symbol_by_name(hsa_executable_t executable, const char *name,
                                               const hsa_agent_t *agent, hsa_executable_symbol_t *symbol) {
    (void)executable;
    if (!agent || agent->handle != GPU_AGENT) return HSA_STATUS_ERROR_INVALID_AGENT;
    symbol->handle = 40;
    logf_("get_symbol %s", name);
    return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_executable_symbol_get_info(hsa_executable_symbol_t symbol, hsa_executable_symbol_info_t attribute,
                                            void *value) {
    if (symbol.handle != 40) return HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL;
    switch (attribute) {
    case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT: *(uint64_t *)value = KERNEL_OBJECT; return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE: *(uint32_t *)value = 0; return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE: *(uint32_t *)value = 0; return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE: *(uint32_t *)value = 0; return HSA_STATUS_SUCCESS;
    default: return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    }
}

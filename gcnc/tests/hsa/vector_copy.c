/* An HSA program in the style of the classic HSA vector-copy sample, written only against
 * hsa.h: initialize the runtime, find a GPU agent, its kernarg region and a fine-grained
 * region, load a code object through a reader (from a file or from memory), create a queue,
 * fill an AQL kernel dispatch packet (header last), ring the doorbell, wait on the
 * completion signal and check the result; then release everything.
 *
 *   vector_copy CODE_OBJECT MODE
 *
 * The code object holds `vector_copy(const uint *in, uint *out, uint n)` (code object V5:
 * the explicit arguments at 0, 8 and 16, the hidden ones from 24). MODE:
 *   file, memory   load the code object that way; the copy must be exact.
 *   barrier        a barrier-AND packet on a signal, then the dispatch (barrier bit set):
 *                  nothing runs until the host sets the signal to 0, then the copy is exact.
 *   no-header      ring the doorbell for a packet whose header was never written;
 *   kernarg-oob    point the packet's kernarg address past its allocation;
 *   buffer-oob     launch (and pass n for) twice as many work-items as the buffers hold:
 *                  each must be reported through the queue's error callback, the completion
 *                  signal left alone and the output buffer unchanged.
 * Prints one line saying what happened; exits with 0 when it is what MODE expects. */
#include <hsa/hsa.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N 1000
#define GROUP 64

static void check(hsa_status_t status, const char *what) {
    if (status != HSA_STATUS_SUCCESS && status != HSA_STATUS_INFO_BREAK) {
        const char *text = NULL;
        hsa_status_string(status, &text);
        printf("%s failed: %s\n", what, text ? text : "(no text)");
        exit(1);
    }
}

static hsa_status_t find_gpu(hsa_agent_t agent, void *data) {
    hsa_device_type_t type;
    check(hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type), "hsa_agent_get_info");
    if (type == HSA_DEVICE_TYPE_GPU) {
        *(hsa_agent_t *)data = agent;
        return HSA_STATUS_INFO_BREAK;
    }
    return HSA_STATUS_SUCCESS;
}

struct regions {
    hsa_region_t kernarg, fine;
    int have_kernarg, have_fine;
};

static hsa_status_t find_regions(hsa_region_t region, void *data) {
    struct regions *r = data;
    hsa_region_segment_t segment;
    check(hsa_region_get_info(region, HSA_REGION_INFO_SEGMENT, &segment), "hsa_region_get_info");
    if (segment != HSA_REGION_SEGMENT_GLOBAL) return HSA_STATUS_SUCCESS;
    uint32_t flags;
    check(hsa_region_get_info(region, HSA_REGION_INFO_GLOBAL_FLAGS, &flags), "hsa_region_get_info");
    if ((flags & HSA_REGION_GLOBAL_FLAG_KERNARG) && !r->have_kernarg) {
        r->kernarg = region;
        r->have_kernarg = 1;
    } else if ((flags & HSA_REGION_GLOBAL_FLAG_FINE_GRAINED) && !r->have_fine) {
        r->fine = region;
        r->have_fine = 1;
    }
    return HSA_STATUS_SUCCESS;
}

/* The queue's error callback: the first error status. */
static volatile hsa_status_t queue_error = HSA_STATUS_SUCCESS;

static void on_queue_error(hsa_status_t status, hsa_queue_t *queue, void *data) {
    (void)queue;
    (void)data;
    if (queue_error == HSA_STATUS_SUCCESS) queue_error = status;
}

static void put16(char *base, size_t at, uint16_t v) { memcpy(base + at, &v, sizeof v); }
static void put32(char *base, size_t at, uint32_t v) { memcpy(base + at, &v, sizeof v); }
static void put64(char *base, size_t at, uint64_t v) { memcpy(base + at, &v, sizeof v); }

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: vector_copy CODE_OBJECT file|memory|barrier|no-header|kernarg-oob|buffer-oob\n");
        return 2;
    }
    const char *mode = argv[2];
    int barrier = strcmp(mode, "barrier") == 0;
    int expect_error = strcmp(mode, "file") != 0 && strcmp(mode, "memory") != 0 && !barrier;

    check(hsa_init(), "hsa_init");
    hsa_agent_t gpu = {0};
    check(hsa_iterate_agents(find_gpu, &gpu), "hsa_iterate_agents");
    if (gpu.handle == 0) {
        printf("no GPU agent\n");
        return 1;
    }
    char name[64];
    check(hsa_agent_get_info(gpu, HSA_AGENT_INFO_NAME, name), "hsa_agent_get_info");
    struct regions regions = {0};
    check(hsa_agent_iterate_regions(gpu, find_regions, &regions), "hsa_agent_iterate_regions");
    if (!regions.have_kernarg || !regions.have_fine) {
        printf("no kernarg or fine-grained region\n");
        return 1;
    }

    uint32_t queue_size;
    check(hsa_agent_get_info(gpu, HSA_AGENT_INFO_QUEUE_MIN_SIZE, &queue_size), "hsa_agent_get_info");
    hsa_queue_t *queue;
    check(hsa_queue_create(gpu, queue_size, HSA_QUEUE_TYPE_SINGLE, on_queue_error, NULL, UINT32_MAX, UINT32_MAX,
                           &queue),
          "hsa_queue_create");

    /* The code object, through a reader. */
    hsa_code_object_reader_t reader;
    int fd = open(argv[1], O_RDONLY);
    if (fd < 0) {
        perror(argv[1]);
        return 1;
    }
    void *image = NULL;
    if (strcmp(mode, "memory") == 0) {
        off_t size = lseek(fd, 0, SEEK_END);
        image = malloc((size_t)size);
        if (pread(fd, image, (size_t)size, 0) != size) {
            perror("read");
            return 1;
        }
        check(hsa_code_object_reader_create_from_memory(image, (size_t)size, &reader),
              "hsa_code_object_reader_create_from_memory");
    } else {
        check(hsa_code_object_reader_create_from_file(fd, &reader), "hsa_code_object_reader_create_from_file");
    }
    hsa_executable_t executable;
    check(hsa_executable_create_alt(HSA_PROFILE_BASE, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, NULL, &executable),
          "hsa_executable_create_alt");
    check(hsa_executable_load_agent_code_object(executable, gpu, reader, NULL, NULL),
          "hsa_executable_load_agent_code_object");
    check(hsa_executable_freeze(executable, NULL), "hsa_executable_freeze");
    hsa_executable_symbol_t symbol;
    check(hsa_executable_get_symbol_by_name(executable, "vector_copy.kd", &gpu, &symbol),
          "hsa_executable_get_symbol_by_name");
    uint64_t kernel_object;
    uint32_t kernarg_size, group_size, private_size;
    check(hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &kernel_object),
          "hsa_executable_symbol_get_info");
    check(hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE,
                                         &kernarg_size),
          "hsa_executable_symbol_get_info");
    check(hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE, &group_size),
          "hsa_executable_symbol_get_info");
    check(hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE,
                                         &private_size),
          "hsa_executable_symbol_get_info");
    if (kernarg_size < 96) {
        printf("kernarg segment of %u bytes: not the code object V5 layout\n", kernarg_size);
        return 1;
    }

    /* Buffers: in[i] = a pattern, out = 0. */
    uint32_t *in, *out;
    check(hsa_memory_allocate(regions.fine, N * sizeof(uint32_t), (void **)&in), "hsa_memory_allocate");
    check(hsa_memory_allocate(regions.fine, N * sizeof(uint32_t), (void **)&out), "hsa_memory_allocate");
    for (uint32_t i = 0; i < N; i++) {
        in[i] = i * 2654435761u + 7;
        out[i] = 0;
    }
    uint32_t grid = strcmp(mode, "buffer-oob") == 0 ? 2 * N : N;

    /* The kernarg segment: the explicit arguments, then code object V5's hidden ones. */
    char *kernarg;
    check(hsa_memory_allocate(regions.kernarg, kernarg_size, (void **)&kernarg), "hsa_memory_allocate");
    memset(kernarg, 0, kernarg_size);
    put64(kernarg, 0, (uint64_t)(uintptr_t)in);
    put64(kernarg, 8, (uint64_t)(uintptr_t)out);
    put32(kernarg, 16, grid);
    put32(kernarg, 24, grid / GROUP); /* hidden_block_count_x, y, z */
    put32(kernarg, 28, 1);
    put32(kernarg, 32, 1);
    put16(kernarg, 36, GROUP); /* hidden_group_size_x, y, z */
    put16(kernarg, 38, 1);
    put16(kernarg, 40, 1);
    put16(kernarg, 42, grid % GROUP); /* hidden_remainder_x, y, z */
    put16(kernarg, 44, 0);
    put16(kernarg, 46, 0);
    put16(kernarg, 88, 1); /* hidden_grid_dims */

    hsa_signal_t completion;
    check(hsa_signal_create(1, 0, NULL, &completion), "hsa_signal_create");

    /* In barrier mode, packet `index` is a barrier-AND on `gate`, and the dispatch follows. */
    hsa_signal_t gate, barrier_done;
    check(hsa_signal_create(1, 0, NULL, &gate), "hsa_signal_create");
    check(hsa_signal_create(1, 0, NULL, &barrier_done), "hsa_signal_create");
    uint64_t index = hsa_queue_add_write_index_relaxed(queue, barrier ? 2 : 1);
    uint64_t dispatch_index = barrier ? index + 1 : index;

    /* The packet: everything but the header, then the header with release order. */
    hsa_kernel_dispatch_packet_t *packet =
        (hsa_kernel_dispatch_packet_t *)queue->base_address + (dispatch_index & (queue->size - 1));
    memset((char *)packet + 4, 0, sizeof *packet - 4);
    packet->workgroup_size_x = GROUP;
    packet->workgroup_size_y = 1;
    packet->workgroup_size_z = 1;
    packet->grid_size_x = grid;
    packet->grid_size_y = 1;
    packet->grid_size_z = 1;
    packet->group_segment_size = group_size;
    packet->private_segment_size = private_size;
    packet->kernel_object = kernel_object;
    packet->kernarg_address = strcmp(mode, "kernarg-oob") == 0 ? kernarg + 4096 : kernarg;
    packet->completion_signal = completion;
    uint16_t scopes = (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
                      (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
    uint16_t header = (HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) | scopes;
    if (barrier) header |= 1 << HSA_PACKET_HEADER_BARRIER;
    uint16_t setup = 1 << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS;
    if (strcmp(mode, "no-header") != 0) {
        __atomic_store_n((uint32_t *)packet, header | ((uint32_t)setup << 16), __ATOMIC_RELEASE);
    }
    if (barrier) {
        hsa_barrier_and_packet_t *and =
            (hsa_barrier_and_packet_t *)queue->base_address + (index & (queue->size - 1));
        memset((char *)and + 2, 0, sizeof *and - 2);
        and->dep_signal[0] = gate;
        and->completion_signal = barrier_done;
        __atomic_store_n(&and->header, (uint16_t)((HSA_PACKET_TYPE_BARRIER_AND << HSA_PACKET_HEADER_TYPE) | scopes),
                         __ATOMIC_RELEASE);
    }
    hsa_signal_store_screlease(queue->doorbell_signal, (hsa_signal_value_t)dispatch_index);

    uint64_t frequency;
    check(hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, &frequency), "hsa_system_get_info");
    hsa_signal_value_t value;
    int held = 1;
    if (barrier) {
        /* Nothing may run while the gate is 1: a wait of 50 ms times out. */
        value = hsa_signal_wait_scacquire(completion, HSA_SIGNAL_CONDITION_LT, 1, frequency / 20,
                                          HSA_WAIT_STATE_BLOCKED);
        for (uint32_t i = 0; i < N; i++) held &= out[i] == 0;
        held &= value == 1 && hsa_signal_load_scacquire(barrier_done) == 1;
        hsa_signal_store_screlease(gate, 0);
    }

    /* Wait: without an error, until the kernel completes; with one, a second at most. */
    for (int tries = 0; tries < 10; tries++) {
        value = hsa_signal_wait_scacquire(completion, HSA_SIGNAL_CONDITION_LT, 1, frequency / 10,
                                          HSA_WAIT_STATE_BLOCKED);
        if (value < 1 || queue_error != HSA_STATUS_SUCCESS) break;
    }

    int ok;
    if (expect_error) {
        int untouched = 1;
        for (uint32_t i = 0; i < N; i++) untouched &= out[i] == 0;
        const char *text = NULL;
        hsa_status_string(queue_error, &text);
        printf("%s on %s: the queue reported %s; completion signal %ld; output %s\n", mode, name,
               queue_error == HSA_STATUS_SUCCESS ? "nothing" : text, (long)value,
               untouched ? "untouched" : "CHANGED");
        ok = queue_error != HSA_STATUS_SUCCESS && value == 1 && untouched;
    } else {
        uint32_t right = 0;
        for (uint32_t i = 0; i < N; i++) right += out[i] == in[i];
        printf("%s on %s: ", mode, name);
        if (barrier) {
            printf("%s until its signal was 0, then barrier completion %ld; ", held ? "held" : "NOT HELD",
                   (long)hsa_signal_load_scacquire(barrier_done));
        }
        printf("%u of %u elements copied; completion signal %ld; queue error %d\n", right, N, (long)value,
               (int)queue_error);
        ok = right == N && value == 0 && queue_error == HSA_STATUS_SUCCESS && held &&
             (!barrier || hsa_signal_load_scacquire(barrier_done) == 0);
    }

    check(hsa_signal_destroy(completion), "hsa_signal_destroy");
    check(hsa_signal_destroy(gate), "hsa_signal_destroy");
    check(hsa_signal_destroy(barrier_done), "hsa_signal_destroy");
    check(hsa_memory_free(kernarg), "hsa_memory_free");
    check(hsa_memory_free(out), "hsa_memory_free");
    check(hsa_memory_free(in), "hsa_memory_free");
    check(hsa_executable_destroy(executable), "hsa_executable_destroy");
    check(hsa_code_object_reader_destroy(reader), "hsa_code_object_reader_destroy");
    check(hsa_queue_destroy(queue), "hsa_queue_destroy");
    check(hsa_shut_down(), "hsa_shut_down");
    free(image);
    close(fd);
    return ok ? 0 : 1;
}

/*
 * cmd_info.c — `gpuprim info [--json]`: every GPU's properties that still matter, and the CPU backend's machine.
 * Exit: 0 with a GPU; 3 no device, 4 no usable driver (the CPU backend's info is printed all the same).
 */
#include "commands.h"

#include <string.h>

static void print_cpu(FILE *f, const gp_cpu_info_t *c, int json)
{
    if (json) {
        fprintf(f, "{\"model\": ");
        json_string(f, c->model);
        fprintf(f, ", \"logical_cores\": %d, \"omp_threads\": %d, \"total_mem_bytes\": %zu, \"avail_mem_bytes\": %zu}",
                c->logical_cores, c->omp_max_threads, c->total_mem_bytes, c->avail_mem_bytes);
        return;
    }
    fprintf(f, "CPU backend\n  model              %s\n  logical cores      %d (OpenMP threads %d)\n"
               "  memory             %.1f GiB total, %.1f GiB available\n",
            c->model, c->logical_cores, c->omp_max_threads, c->total_mem_bytes / 1073741824.0,
            c->avail_mem_bytes / 1073741824.0);
}

static void print_gpu_json(FILE *f, const gp_device_info_t *d)
{
    fprintf(f, "{\"device\": %d, \"name\": ", d->device);
    json_string(f, d->name);
    fprintf(f, ", \"uuid\": ");
    json_string(f, d->uuid);
    fprintf(f,
            ", \"compute_capability\": \"%d.%d\", \"sm_count\": %d, \"clock_khz\": %d, \"mem_clock_khz\": %d, "
            "\"mem_bus_width_bits\": %d, \"mem_bandwidth_gbs\": %.1f, \"total_mem_bytes\": %zu, "
            "\"free_mem_bytes\": %zu, \"l2_bytes\": %d, \"persisting_l2_max_bytes\": %d, \"smem_per_block\": %zu, "
            "\"smem_per_sm\": %zu, \"smem_per_block_optin\": %zu, \"const_mem_bytes\": %zu, \"regs_per_block\": %d, "
            "\"regs_per_sm\": %d, \"warp_size\": %d, \"max_threads_per_block\": %d, \"max_threads_per_sm\": %d, "
            "\"max_blocks_per_sm\": %d, \"max_block_dim\": [%d, %d, %d], \"max_grid_dim\": [%d, %d, %d], "
            "\"copy_engines\": %d, \"unified_addressing\": %d, \"managed_memory\": %d, "
            "\"concurrent_managed_access\": %d, \"pageable_memory_access\": %d, \"can_map_host_memory\": %d, "
            "\"host_register_supported\": %d, \"cluster_launch\": %d, \"cooperative_launch\": %d, "
            "\"ecc_enabled\": %d, \"integrated\": %d, \"memory_pools\": %d, \"pci\": \"%04x:%02x:%02x\", "
            "\"driver_version\": %d, \"runtime_version\": %d}",
            d->cc_major, d->cc_minor, d->sm_count, d->clock_khz, d->mem_clock_khz, d->mem_bus_width_bits,
            d->mem_bandwidth_gbs, d->total_mem_bytes, d->free_mem_bytes, d->l2_bytes, d->persisting_l2_max_bytes,
            d->smem_per_block, d->smem_per_sm, d->smem_per_block_optin, d->const_mem_bytes, d->regs_per_block,
            d->regs_per_sm, d->warp_size, d->max_threads_per_block, d->max_threads_per_sm, d->max_blocks_per_sm,
            d->max_block_dim[0], d->max_block_dim[1], d->max_block_dim[2], d->max_grid_dim[0], d->max_grid_dim[1],
            d->max_grid_dim[2], d->async_engines, d->unified_addressing, d->managed_memory,
            d->concurrent_managed_access, d->pageable_memory_access, d->can_map_host_memory,
            d->host_register_supported, d->cluster_launch, d->cooperative_launch, d->ecc_enabled, d->integrated,
            d->memory_pools, d->pci_domain, d->pci_bus, d->pci_device, d->driver_version, d->runtime_version);
}

static const char *yn(int v) { return v ? "yes" : "no"; }

static void print_gpu_text(FILE *f, const gp_device_info_t *d)
{
    fprintf(f, "GPU %d: %s\n", d->device, d->name);
    fprintf(f, "  uuid               %s\n", d->uuid);
    fprintf(f, "  compute capability %d.%d (sm_%d%d), %d SMs\n", d->cc_major, d->cc_minor, d->cc_major, d->cc_minor,
            d->sm_count);
    fprintf(f, "  clocks             SM %.0f MHz, memory %.0f MHz\n", d->clock_khz / 1e3, d->mem_clock_khz / 1e3);
    fprintf(f, "  memory             %.1f GiB (%.1f GiB free), %d-bit bus, %.0f GB/s theoretical\n",
            d->total_mem_bytes / 1073741824.0, d->free_mem_bytes / 1073741824.0, d->mem_bus_width_bits,
            d->mem_bandwidth_gbs);
    fprintf(f, "  L2 cache           %.1f MiB (persisting max %.1f MiB)\n", d->l2_bytes / 1048576.0,
            d->persisting_l2_max_bytes / 1048576.0);
    fprintf(f, "  shared memory      %zu KiB per block, %zu KiB per SM, %zu KiB per block opt-in\n",
            d->smem_per_block / 1024, d->smem_per_sm / 1024, d->smem_per_block_optin / 1024);
    fprintf(f, "  constant memory    %zu KiB\n", d->const_mem_bytes / 1024);
    fprintf(f, "  registers          %d per block, %d per SM; warp size %d\n", d->regs_per_block, d->regs_per_sm,
            d->warp_size);
    fprintf(f, "  threads            %d per block, %d per SM; %d blocks per SM\n", d->max_threads_per_block,
            d->max_threads_per_sm, d->max_blocks_per_sm);
    fprintf(f, "  block / grid max   %d x %d x %d / %d x %d x %d\n", d->max_block_dim[0], d->max_block_dim[1],
            d->max_block_dim[2], d->max_grid_dim[0], d->max_grid_dim[1], d->max_grid_dim[2]);
    fprintf(f, "  copy engines       %d\n", d->async_engines);
    fprintf(f, "  unified addressing %s; managed memory %s (concurrent access %s); pageable access %s\n",
            yn(d->unified_addressing), yn(d->managed_memory), yn(d->concurrent_managed_access),
            yn(d->pageable_memory_access));
    fprintf(f, "  host memory        map %s, register %s\n", yn(d->can_map_host_memory),
            yn(d->host_register_supported));
    fprintf(f, "  launch             cluster %s, cooperative %s; memory pools %s\n", yn(d->cluster_launch),
            yn(d->cooperative_launch), yn(d->memory_pools));
    fprintf(f, "  ECC                %s; integrated %s\n", yn(d->ecc_enabled), yn(d->integrated));
    fprintf(f, "  PCI                %04x:%02x:%02x\n", d->pci_domain, d->pci_bus, d->pci_device);
    fprintf(f, "  driver / runtime   %d.%d / %d.%d\n", d->driver_version / 1000, (d->driver_version % 1000) / 10,
            d->runtime_version / 1000, (d->runtime_version % 1000) / 10);
}

static const cli_spec_t spec_info = {
    "info", COMMON_DEVICE | COMMON_JSON, NULL, NULL, 0, "[options]",
    "Every GPU's properties, and the CPU backend's machine. Exit 0 when it printed a usable backend (the CPU backend\n"
    "always is); with -d ID (a GPU asked for): 3 when no GPU is present, 4 when no usable CUDA driver is found.",
    NULL};

static int cmd_info(int argc, char **argv)
{
    cli_common_t c = {DEVICE_DEFAULT, FMT_TABLE, NULL, 1, 0, 0};
    int npos = 0;
    const int pr = cli_parse(&spec_info, argc, argv, &c, NULL, NULL, &npos);
    if (pr != EXIT_OK) return pr == CLI_HELP ? EXIT_OK : pr;
    const int json = c.fmt == FMT_JSON, want_gpu = (c.given & COMMON_DEVICE) && c.device != GP_DEVICE_CPU;
    int n = 0, rc = EXIT_OK;
    gp_status_t st = gp_device_count(&n);
    char why[600] = "";
    if (st != GP_OK) {
        gpu_absent_reason(st, why, sizeof why);
        if (want_gpu) rc = st == GP_ERR_NO_DRIVER ? EXIT_NO_DRIVER : EXIT_NO_GPU;
        note_cpu("gpuprim info", why, "showing the CPU backend");
    }
    gp_cpu_info_t cpu;
    gp_cpu_info(&cpu);
    if (json) {
        printf("{\"gpus\": [");
        for (int d = 0; d < n; d++) {
            gp_device_info_t info;
            if (gp_device_info(d, &info) != GP_OK) {
                fprintf(stderr, "gpuprim info: device %d: %s\n", d, gp_last_error());
                rc = EXIT_FAIL;
                continue;
            }
            printf("%s\n  ", d ? "," : "");
            print_gpu_json(stdout, &info);
        }
        printf("],\n \"gpu_error\": ");
        if (why[0])
            json_string(stdout, why);
        else
            printf("null");
        printf(",\n \"cpu\": ");
        print_cpu(stdout, &cpu, 1);
        printf(",\n \"gpuprim_version\": \"%d.%d.%d\"}\n", GP_VERSION_MAJOR, GP_VERSION_MINOR, GP_VERSION_PATCH);
        return rc;
    }
    for (int d = 0; d < n; d++) {
        gp_device_info_t info;
        if (gp_device_info(d, &info) != GP_OK) {
            fprintf(stderr, "gpuprim info: device %d: %s\n", d, gp_last_error());
            rc = EXIT_FAIL;
            continue;
        }
        print_gpu_text(stdout, &info);
    }
    if (n == 0) printf("No GPU: %s\n", why);
    print_cpu(stdout, &cpu, 0);
    return rc;
}

const verb_t verb_info = {"info", "", "GPUs (and the CPU backend): what deviceQuery shows that matters",
                         &spec_info, cmd_info, NULL};

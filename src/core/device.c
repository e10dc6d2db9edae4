/* device.c — what deviceQuery shows that still matters, and the CPU backend's machine. */
#define _GNU_SOURCE
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

gp_status_t gp_device_info(int device, gp_device_info_t *info)
{
    GP_ARG_NONNULL("gp_device_info", info);
    gp_status_t st = GP_OK;
    int n = 0;
    st = gp_device_count(&n);
    if (st != GP_OK) return st;
    if (device < 0 || device >= n)
        return gp__error(GP_ERR_NO_DEVICE, "gp_device_info: device %d does not exist (%d present)", device, n);

    gp_device_info_t d;
    memset(&d, 0, sizeof d);
    struct cudaDeviceProp p;
    GP_CUDA_TRY(cudaGetDeviceProperties(&p, device));
    d.device = device;
    snprintf(d.name, sizeof d.name, "%s", p.name);
    {
        const unsigned char *u = (const unsigned char *)p.uuid.bytes;
        snprintf(d.uuid, sizeof d.uuid, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
                 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14],
                 u[15]);
    }
    d.cc_major = p.major;
    d.cc_minor = p.minor;
    d.sm_count = p.multiProcessorCount;
    GP_CUDA_TRY(cudaDeviceGetAttribute(&d.clock_khz, cudaDevAttrClockRate, device));
    GP_CUDA_TRY(cudaDeviceGetAttribute(&d.mem_clock_khz, cudaDevAttrMemoryClockRate, device));
    d.mem_bus_width_bits = p.memoryBusWidth;
    d.mem_bandwidth_gbs = 2.0 * (double)d.mem_clock_khz * 1e3 * (d.mem_bus_width_bits / 8.0) / 1e9;
    d.total_mem_bytes = p.totalGlobalMem;
    {
        size_t fr = 0, tot = 0;
        GP_CUDA_TRY(cudaSetDevice(device));
        GP_CUDA_TRY(cudaMemGetInfo(&fr, &tot));
        d.free_mem_bytes = fr;
    }
    d.l2_bytes = p.l2CacheSize;
    d.persisting_l2_max_bytes = p.persistingL2CacheMaxSize;
    d.smem_per_block = p.sharedMemPerBlock;
    d.smem_per_sm = p.sharedMemPerMultiprocessor;
    d.smem_per_block_optin = p.sharedMemPerBlockOptin;
    d.const_mem_bytes = p.totalConstMem;
    d.regs_per_block = p.regsPerBlock;
    d.regs_per_sm = p.regsPerMultiprocessor;
    d.warp_size = p.warpSize;
    d.max_threads_per_block = p.maxThreadsPerBlock;
    d.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
    d.max_blocks_per_sm = p.maxBlocksPerMultiProcessor;
    for (int i = 0; i < 3; i++) {
        d.max_block_dim[i] = p.maxThreadsDim[i];
        d.max_grid_dim[i] = p.maxGridSize[i];
    }
    d.async_engines = p.asyncEngineCount;
    d.unified_addressing = p.unifiedAddressing;
    d.managed_memory = p.managedMemory;
    d.concurrent_managed_access = p.concurrentManagedAccess;
    d.pageable_memory_access = p.pageableMemoryAccess;
    d.can_map_host_memory = p.canMapHostMemory;
    d.host_register_supported = p.hostRegisterSupported;
    d.cluster_launch = p.clusterLaunch;
    d.cooperative_launch = p.cooperativeLaunch;
    d.ecc_enabled = p.ECCEnabled;
    d.integrated = p.integrated;
    d.memory_pools = p.memoryPoolsSupported;
    d.pci_domain = p.pciDomainID;
    d.pci_bus = p.pciBusID;
    d.pci_device = p.pciDeviceID;
    GP_CUDA_TRY(cudaDriverGetVersion(&d.driver_version));
    GP_CUDA_TRY(cudaRuntimeGetVersion(&d.runtime_version));
    *info = d;
    return GP_OK;
fail:
    return st;
}

static size_t meminfo_kb(const char *key)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (f == NULL) return 0;
    char line[256];
    size_t kb = 0, klen = strlen(key);
    while (fgets(line, sizeof line, f))
        if (strncmp(line, key, klen) == 0 && line[klen] == ':') {
            unsigned long long v = 0;
            if (sscanf(line + klen + 1, "%llu", &v) == 1) kb = (size_t)v;
            break;
        }
    fclose(f);
    return kb;
}

gp_status_t gp_cpu_info(gp_cpu_info_t *info)
{
    GP_ARG_NONNULL("gp_cpu_info", info);
    gp_cpu_info_t c;
    memset(&c, 0, sizeof c);
    snprintf(c.model, sizeof c.model, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f != NULL) {
        char line[512];
        while (fgets(line, sizeof line, f)) {
            if (strncmp(line, "model name", 10) == 0) {
                char *colon = strchr(line, ':');
                if (colon) {
                    colon++;
                    while (*colon == ' ' || *colon == '\t') colon++;
                    colon[strcspn(colon, "\n")] = 0;
                    snprintf(c.model, sizeof c.model, "%s", colon);
                }
                break;
            }
        }
        fclose(f);
    }
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    c.logical_cores = ncpu > 0 ? (int)ncpu : 1;
#ifdef _OPENMP
    c.omp_max_threads = omp_get_max_threads(); /* what a team may get: OMP_THREAD_LIMIT bounds it */
    if (omp_get_thread_limit() < c.omp_max_threads) c.omp_max_threads = omp_get_thread_limit();
#else
    c.omp_max_threads = 1;
#endif
    c.total_mem_bytes = meminfo_kb("MemTotal") * 1024;
    c.avail_mem_bytes = meminfo_kb("MemAvailable") * 1024;
    *info = c;
    return GP_OK;
}

int gp__cpu_features(void)
{
    static int known; /* the features + 4 once asked (a benign race: every thread finds the same) */
    int k = __atomic_load_n(&known, __ATOMIC_RELAXED);
    if (!k) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
        __builtin_cpu_init();
        k = 4 | (__builtin_cpu_supports("avx2") ? GP__CPU_AVX2 : 0) |
            (__builtin_cpu_supports("avx512f") ? GP__CPU_AVX512F : 0);
#else
        k = 4;
#endif
        __atomic_store_n(&known, k, __ATOMIC_RELAXED);
    }
    return k & 3;
}

/* GP_CPU_PAR_BYTES: a whole number of bytes (suffix k, M or G: 2^10, 2^20, 2^30), else the default. Read once. */
size_t gp__cpu_par_bytes(void)
{
    static size_t cached; /* 0: not read yet (a value of 0 is kept as 1) */
    size_t v = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (v) return v;
    v = GP__CPU_PAR_BYTES;
    const char *e = getenv("GP_CPU_PAR_BYTES");
    if (e && *e >= '0' && *e <= '9') {
        char *end = NULL;
        unsigned long long x = strtoull(e, &end, 10);
        const int sh = *end == 'k' || *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : 0;
        if (sh) end++;
        if (*end == '\0' && x <= (~0ull >> 30)) v = (size_t)(x << sh);
    }
    if (v == 0) v = 1;
    __atomic_store_n(&cached, v, __ATOMIC_RELAXED);
    return v;
}

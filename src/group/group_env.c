/*
 * group_env.c — a group joined by processes a launcher started (gp_group_env, gp_group_create_from_env): rank, size
 * and local rank read from the first family of variables present, in a fixed order; the meeting point is NCCL's own
 * (NCCL_COMM_ID: rank 0's NCCL listens there, every rank derives the same id from it). docs/design/group.md.
 */
#define _POSIX_C_SOURCE 200809L
#include "group_internal.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* the launchers' variables, in the order they are looked for: a family is used when its rank or size is set */
static const struct family {
    const char *source, *rank, *size, *local;
} k_fam[] = {
    {"GPUPRIM", "GPUPRIM_RANK", "GPUPRIM_SIZE", "GPUPRIM_LOCAL_RANK"},
    {"torchrun", "RANK", "WORLD_SIZE", "LOCAL_RANK"},
    {"Open MPI", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK"},
    {"PMI", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID"},
    {"Slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"},
};
enum { NFAM = sizeof k_fam / sizeof k_fam[0] };

static const char *env_of(const char *name)
{
    const char *v = getenv(name);
    return v && v[0] ? v : NULL;
}

/* a decimal integer 0 .. INT_MAX, all of the value */
static gp_status_t env_int(const char *fn, const char *name, const char *v, int *out)
{
    char *end = NULL;
    errno = 0;
    const long long x = strtoll(v, &end, 10);
    if (end == v || *end || errno || x < 0 || x > INT_MAX || v[0] == '+' || v[0] == ' ')
        return gp__error(GP_ERR_INVALID_ARG, "%s: %s is '%.40s': expected a whole number 0 .. %d", fn, name, v,
                         INT_MAX);
    *out = (int)x;
    return GP_OK;
}

gp_status_t gp_group_env(gp_group_env_t *env)
{
    static const char fn[] = "gp_group_env";
    GP_ARG_NONNULL(fn, env);
    memset(env, 0, sizeof *env);
    const struct family *f = NULL;
    for (int i = 0; i < NFAM && !f; i++)
        if (env_of(k_fam[i].rank) || env_of(k_fam[i].size)) f = &k_fam[i];
    if (!f)
        return gp__error(GP_ERR_INVALID_ARG, "%s: no launcher variables: set GPUPRIM_RANK and GPUPRIM_SIZE (and "
                         "GPUPRIM_LOCAL_RANK on several hosts), or start under torchrun, mpirun or srun", fn);
    const char *r = env_of(f->rank), *s = env_of(f->size), *l = env_of(f->local);
    if (!r || !s)
        return gp__error(GP_ERR_INVALID_ARG, "%s: %s is set but %s is not (%s variables)", fn, r ? f->rank : f->size,
                         r ? f->size : f->rank, f->source);
    GP_TRY_RET(env_int(fn, f->rank, r, &env->rank));
    GP_TRY_RET(env_int(fn, f->size, s, &env->size));
    env->local_rank = env->rank;
    if (l) GP_TRY_RET(env_int(fn, f->local, l, &env->local_rank));
    if (env->size < 1) return gp__error(GP_ERR_INVALID_ARG, "%s: %s is 0: a group has one rank at least", fn, f->size);
    if (env->rank >= env->size)
        return gp__error(GP_ERR_INVALID_ARG, "%s: %s is %d but %s is %d: ranks run 0 .. %d", fn, f->rank, env->rank,
                         f->size, env->size, env->size - 1);
    if (env->local_rank >= env->size)
        return gp__error(GP_ERR_INVALID_ARG, "%s: %s is %d but %s is %d: a host's ranks are among the group's", fn,
                         f->local, env->local_rank, f->size, env->size);
    snprintf(env->source, sizeof env->source, "%s", f->source);
    return GP_OK;
}

/* the meeting point for NCCL: NCCL_COMM_ID as set, else MASTER_ADDR:MASTER_PORT (one port up under torchrun, whose
 * agent holds MASTER_PORT for its own store); "" where there is none */
static gp_status_t meeting_point(const char *fn, char *out, size_t len)
{
    out[0] = 0;
    if (env_of("NCCL_COMM_ID")) return GP_OK; /* NCCL reads it itself */
    const char *a = env_of("MASTER_ADDR"), *p = env_of("MASTER_PORT");
    if (!a && !p) return GP_OK;
    if (!a || !p)
        return gp__error(GP_ERR_INVALID_ARG, "%s: %s is set but %s is not", fn, a ? "MASTER_ADDR" : "MASTER_PORT",
                         a ? "MASTER_PORT" : "MASTER_ADDR");
    int port = 0;
    GP_TRY_RET(env_int(fn, "MASTER_PORT", p, &port));
    const char *agent = env_of("TORCHELASTIC_USE_AGENT_STORE");
    if (agent && (strcmp(agent, "True") == 0 || strcmp(agent, "true") == 0 || strcmp(agent, "1") == 0)) port++;
    if (port < 1 || port > 65535)
        return gp__error(GP_ERR_INVALID_ARG, "%s: MASTER_PORT %s: the port gpuprim listens on would be %d, not a "
                         "TCP port", fn, p, port);
    const int v6 = strchr(a, ':') != NULL && a[0] != '[';
    if (strlen(a) > 200) return gp__error(GP_ERR_INVALID_ARG, "%s: MASTER_ADDR is longer than 200 bytes", fn);
    snprintf(out, len, "%s%s%s:%d", v6 ? "[" : "", a, v6 ? "]" : "", port);
    return GP_OK;
}

gp_status_t gp_group_create_from_env(gp_group_t **group)
{
    static const char fn[] = "gp_group_create_from_env";
    GP_ARG_NONNULL(fn, group);
    *group = NULL;
    gp_group_env_t e;
    GP_TRY_RET(gp_group_env(&e));
    char mp[240];
    GP_TRY_RET(meeting_point(fn, mp, sizeof mp));
    if (e.size > 1 && !mp[0] && !env_of("NCCL_COMM_ID"))
        return gp__error(GP_ERR_INVALID_ARG, "%s: rank %d of %d (%s): no meeting point: set NCCL_COMM_ID=HOST:PORT, "
                         "or MASTER_ADDR and MASTER_PORT (rank 0's host and a free port there)", fn, e.rank, e.size,
                         e.source);
    int have = 0, device = 0;
    GP_TRY_RET(gp_device_count(&have));
    if (have == 0) return gp__error(GP_ERR_NO_DEVICE, "%s: rank %d (%s): this machine has no GPU", fn, e.rank, e.source);
    const char *dv = env_of("GPUPRIM_DEVICE");
    if (dv) {
        GP_TRY_RET(env_int(fn, "GPUPRIM_DEVICE", dv, &device));
    } else if (have == 1) {
        device = 0; /* the launcher gave each process its own GPU (CUDA_VISIBLE_DEVICES) */
    } else if (e.local_rank < have) {
        device = e.local_rank;
    } else {
        return gp__error(GP_ERR_NO_DEVICE, "%s: local rank %d (%s) but %d GPUs visible: one rank a GPU (set "
                         "GPUPRIM_DEVICE or CUDA_VISIBLE_DEVICES per rank)", fn, e.local_rank, e.source, have);
    }
    /* NCCL_COMM_ID for the call alone: every rank's id is then the same, and rank 0's NCCL listens there */
    if (mp[0] && setenv("NCCL_COMM_ID", mp, 1) != 0)
        return gp__error(GP_ERR_OUT_OF_MEMORY, "%s: setting NCCL_COMM_ID", fn);
    gp_group_id_t id;
    gp_status_t st = gp_group_unique_id(&id);
    if (st == GP_OK) st = gp_group_create_rank(group, &id, e.size, e.rank, device);
    if (mp[0]) unsetenv("NCCL_COMM_ID");
    if (st != GP_OK) {
        char why[400];
        snprintf(why, sizeof why, "%s", gp_last_error());
        return gp__error(st, "%s: rank %d of %d (%s, GPU %d%s%s): %s", fn, e.rank, e.size, e.source, device,
                         mp[0] ? ", meeting at " : "", mp, why);
    }
    return GP_OK;
}

/*
 * opening.c — gp_ctx_open_start and friends: gp_ctx_create on a thread of the library's, so that a caller can work on
 * the CPU backend while the driver makes a GPU context (docs/ARCHITECTURE.md, "Start-up").
 * The opening is shared by the caller and the thread; `state` decides who frees it: the thread moves OPENING ->
 * READY and leaves it to the caller, or finds ABANDONED, destroys the context itself and frees it.
 */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OPENING, READY, ABANDONED };

struct gp_ctx_opening {
    int device;
    pthread_t th;
    atomic_int state;
    gp_ctx_t *ctx;
    gp_status_t st;
    char why[512]; /* gp_last_error of a failed gp_ctx_create (the error text is per thread) */
};

static atomic_int g_pending; /* abandoned openings whose thread still runs */

static void *open_main(void *p)
{
    gp_ctx_opening_t *o = p;
    gp_ctx_t *ctx = NULL;
    const gp_status_t st = gp_ctx_create(&ctx, o->device);
    o->ctx = ctx, o->st = st;
    if (st != GP_OK) snprintf(o->why, sizeof o->why, "%s", gp_last_error());
    int expect = OPENING;
    if (!atomic_compare_exchange_strong(&o->state, &expect, READY)) { /* abandoned: nobody takes it */
        gp_ctx_destroy(ctx);
        free(o);
        atomic_fetch_sub(&g_pending, 1);
    }
    return NULL;
}

gp_status_t gp_ctx_open_start(int device, gp_ctx_opening_t **opening)
{
    static const char fn[] = "gp_ctx_open_start";
    GP_ARG_NONNULL(fn, opening);
    *opening = NULL;
    if (device < GP_DEVICE_DEFAULT)
        return gp__error(GP_ERR_INVALID_ARG, "%s: device %d is neither an ordinal, GP_DEVICE_CPU nor GP_DEVICE_DEFAULT",
                         fn, device);
    gp_ctx_opening_t *o = calloc(1, sizeof *o);
    if (!o) return gp__error(GP_ERR_OUT_OF_MEMORY, "%s: the opening", fn);
    o->device = device;
    atomic_init(&o->state, OPENING);
    const int e = pthread_create(&o->th, NULL, open_main, o);
    if (e != 0) {
        free(o);
        return gp__error(GP_ERR_INTERNAL, "%s: no thread to open the context on: %s", fn, strerror(e));
    }
    *opening = o;
    return GP_OK;
}

int gp_ctx_open_ready(const gp_ctx_opening_t *o)
{
    return o == NULL || atomic_load(&((gp_ctx_opening_t *)o)->state) != OPENING;
}

int gp_ctx_open_stop(void *opening) { return gp_ctx_open_ready(opening); }

gp_status_t gp_ctx_open_finish(gp_ctx_opening_t *o, gp_ctx_t **ctx)
{
    static const char fn[] = "gp_ctx_open_finish";
    if (ctx) *ctx = NULL;
    GP_ARG_NONNULL(fn, o);
    GP_ARG_NONNULL(fn, ctx);
    pthread_join(o->th, NULL);
    const gp_status_t st = o->st;
    if (st == GP_OK) *ctx = o->ctx;
    else gp__error(st, "%s", o->why);
    free(o);
    return st;
}

gp_status_t gp_ctx_open_abandon(gp_ctx_opening_t *o)
{
    if (o == NULL) return GP_OK;
    atomic_fetch_add(&g_pending, 1);
    pthread_detach(o->th);
    int expect = OPENING;
    if (atomic_compare_exchange_strong(&o->state, &expect, ABANDONED)) return GP_OK; /* the thread frees it */
    atomic_fetch_sub(&g_pending, 1); /* already made: destroy it here */
    const gp_status_t st = gp_ctx_destroy(o->ctx);
    free(o);
    return st;
}

int gp_ctx_opens_pending(void) { return atomic_load(&g_pending); }

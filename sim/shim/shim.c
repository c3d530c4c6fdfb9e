/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arbor sim: the shim's run-time half. Map storage (hash, task storage),
 * exit info, errors, and the entry points the simulator calls. Compiled
 * into the same shared object as the scheduler, one copy per simulation.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scx/common.bpf.h"

struct sim_host *sim_host;
u64 sim_nr_calls;

void *sim_calloc(u64 n, u64 size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p) {
		fprintf(stderr, "arbor sim: out of memory in a BPF map\n");
		abort();
	}
	return p;
}

void sim_uei_record(struct user_exit_info *uei, const struct scx_exit_info *ei)
{
	uei->kind = ei->kind;
	uei->exit_code = ei->exit_code;
	snprintf(uei->reason, sizeof(uei->reason), "%s", ei->reason ? ei->reason : "");
	snprintf(uei->msg, sizeof(uei->msg), "%s", ei->msg ? ei->msg : "");
}

void sim_errorf(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	sim_host->error(sim_host->ctx, buf);
}

/*
 * Hash maps: open addressing with linear probing over a power-of-two table
 * at least twice max_entries. Deletions leave tombstones. Insertion order
 * never matters to a lookup, so iteration order cannot leak into results.
 */
struct sim_hash {
	u32 cap, count, ksz, vsz;
	u8 *state;	/* 0 empty, 1 used, 2 deleted */
	u8 *keys;
	u8 *vals;
};

static u64 sim_hash_key(const void *key, u32 ksz)
{
	const u8 *k = key;
	u64 h = 1469598103934665603ULL;
	u32 i;

	for (i = 0; i < ksz; i++)
		h = (h ^ k[i]) * 1099511628211ULL;
	return h;
}

static struct sim_hash *sim_hash_get(void **slot, u32 max, u32 ksz, u32 vsz)
{
	struct sim_hash *h = *slot;

	if (!h) {
		u32 cap = 16;

		while (cap < 2 * max)
			cap <<= 1;
		h = sim_calloc(1, sizeof(*h));
		h->cap = cap;
		h->ksz = ksz;
		h->vsz = vsz;
		h->state = sim_calloc(cap, 1);
		h->keys = sim_calloc(cap, ksz);
		h->vals = sim_calloc(cap, vsz);
		*slot = h;
	}
	return h;
}

static long sim_hash_find(struct sim_hash *h, const void *key)
{
	u32 mask = h->cap - 1, i = sim_hash_key(key, h->ksz) & mask, n;

	for (n = 0; n < h->cap; n++, i = (i + 1) & mask) {
		if (h->state[i] == 0)
			return -1;
		if (h->state[i] == 1 && !memcmp(h->keys + (u64)i * h->ksz, key, h->ksz))
			return i;
	}
	return -1;
}

void *sim_hash_lookup(void **slot, u32 max, u32 ksz, u32 vsz, const void *key)
{
	struct sim_hash *h = sim_hash_get(slot, max, ksz, vsz);
	long i = sim_hash_find(h, key);

	return i < 0 ? NULL : h->vals + (u64)i * vsz;
}

long sim_hash_update(void **slot, u32 max, u32 ksz, u32 vsz, const void *key, const void *val,
		     u64 flags)
{
	struct sim_hash *h = sim_hash_get(slot, max, ksz, vsz);
	long i = sim_hash_find(h, key);
	u32 mask = h->cap - 1, j;

	if (i >= 0) {
		if (flags == BPF_NOEXIST)
			return -EEXIST;
		memcpy(h->vals + (u64)i * vsz, val, vsz);
		return 0;
	}
	if (flags == BPF_EXIST)
		return -ENOENT;
	if (h->count >= max)
		return -E2BIG;
	for (j = sim_hash_key(key, ksz) & mask; h->state[j] == 1; j = (j + 1) & mask)
		;
	h->state[j] = 1;
	memcpy(h->keys + (u64)j * ksz, key, ksz);
	memcpy(h->vals + (u64)j * vsz, val, vsz);
	h->count++;
	return 0;
}

long sim_hash_delete(void **slot, u32 ksz, const void *key)
{
	struct sim_hash *h = *slot;
	long i;

	if (!h)
		return -ENOENT;
	i = sim_hash_find(h, key);
	if (i < 0)
		return -ENOENT;
	h->state[i] = 2;
	memset(h->vals + (u64)i * h->vsz, 0, h->vsz);
	h->count--;
	return 0;
}

/* Task storage: each map gets a slot index in task_struct.sim_storage. */
static u32 sim_nr_task_maps;

void *sim_task_storage(void **slot, u32 vsz, struct task_struct *p, u64 flags)
{
	u64 idx = (u64)*slot;

	if (!p)
		return NULL;
	if (!idx) {
		if (sim_nr_task_maps >= SIM_MAX_TASK_STORAGE) {
			sim_errorf("more than %d task-storage maps", SIM_MAX_TASK_STORAGE);
			return NULL;
		}
		idx = ++sim_nr_task_maps;
		*slot = (void *)idx;
	}
	if (!p->sim_storage[idx - 1] && (flags & BPF_LOCAL_STORAGE_GET_F_CREATE))
		p->sim_storage[idx - 1] = sim_calloc(1, vsz);
	return p->sim_storage[idx - 1];
}

/* ---- entry points for the simulator (Rust: sim/src/sched/native.rs) ---- */

/* Returns -1 if this copy already serves a run: each run needs its own copy
 * of the program's globals, so a loader that got a shared handle must fail. */
int sim_attach(struct sim_host *host)
{
	if (sim_host)
		return -1;
	sim_host = host;
	return 0;
}

u64 sim_take_calls(void)
{
	u64 n = sim_nr_calls;

	sim_nr_calls = 0;
	return n;
}

/* The layout of struct task_struct, which the Rust side mirrors. */
void sim_task_layout(u64 out[8])
{
	out[0] = sizeof(struct task_struct);
	out[1] = __builtin_offsetof(struct task_struct, cpus_ptr);
	out[2] = __builtin_offsetof(struct task_struct, signal);
	out[3] = __builtin_offsetof(struct task_struct, scx);
	out[4] = __builtin_offsetof(struct task_struct, sim_id);
	out[5] = __builtin_offsetof(struct task_struct, cpus_mask);
	out[6] = __builtin_offsetof(struct task_struct, sim_storage);
	out[7] = sizeof(struct sched_ext_entity);
}

/* Frees a task's storage (after exit_task). */
void sim_task_release(struct task_struct *p)
{
	int i;

	for (i = 0; i < SIM_MAX_TASK_STORAGE; i++) {
		free(p->sim_storage[i]);
		p->sim_storage[i] = NULL;
	}
}

typedef int (*sim_timer_fn)(void *map, int *key, struct bpf_timer *timer);

/* Fires a BPF timer: its callback, with key 0 (array maps of one timer). */
int sim_timer_fire(struct bpf_timer *t)
{
	int key = 0;

	if (!t->cb)
		return -EINVAL;
	return ((sim_timer_fn)t->cb)(t->map, &key, t);
}

/* The last reference of a bpf_cpumask is gone (bpf_cpumask_release). */
void sim_cpumask_free(struct bpf_cpumask *m)
{
	free(m);
}

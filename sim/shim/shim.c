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
#include <sys/mman.h>

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

void sim_exitf(s64 code, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	sim_host->exit_bpf(sim_host->ctx, code, buf);
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

/* Queue / stack maps (kernel/bpf/queue_stack_maps.c): a ring of max
 * elements; head is the oldest, count how many there are. */
struct sim_queue {
	u32 max, head, count;
	u8 *data;
};

long sim_queue_push(void **slot, u32 max, u32 vsz, const void *val, u64 flags)
{
	struct sim_queue *q = *slot;

	if ((flags & BPF_NOEXIST) || flags > BPF_EXIST)
		return -EINVAL;
	if (!q) {
		q = *slot = sim_calloc(1, sizeof(*q));
		q->max = max;
		q->data = sim_calloc(max ? max : 1, vsz);
	}
	if (q->count >= q->max) {
		if (!(flags & BPF_EXIST) || !q->max)
			return -E2BIG;
		/* BPF_EXIST: make room by dropping the oldest */
		q->head = (q->head + 1) % q->max;
		q->count--;
	}
	memcpy(q->data + (u64)((q->head + q->count) % q->max) * vsz, val, vsz);
	q->count++;
	return 0;
}

long sim_queue_pop(void **slot, u32 vsz, void *val, bool stack, bool peek)
{
	struct sim_queue *q = *slot;
	u32 i;

	if (!q || !q->count)
		return -ENOENT;
	i = stack ? (q->head + q->count - 1) % q->max : q->head;
	memcpy(val, q->data + (u64)i * vsz, vsz);
	if (!peek) {
		if (!stack)
			q->head = (q->head + 1) % q->max;
		q->count--;
	}
	return 0;
}

long sim_task_storage_delete(void **slot, struct task_struct *p)
{
	u64 idx = (u64)*slot;

	if (!p || !idx || !p->sim_storage[idx - 1])
		return -ENOENT;
	free(p->sim_storage[idx - 1]);
	p->sim_storage[idx - 1] = NULL;
	return 0;
}

static void *sim_tid_table;
static bool sim_tid_enabled;

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

	/* sched_ext_dead (ext.c:4116-4123): out of the tid table */
	if (sim_tid_enabled)
		sim_hash_delete(&sim_tid_table, sizeof(u64), &p->scx.tid);

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

/* A record of a ring buffer nobody reads (bpf_ringbuf_reserve): one
 * scratch area, reused by every record */
void *sim_ringbuf_slot(u64 size)
{
	static u64 slot[512];

	return size <= sizeof(slot) ? slot : NULL;
}

/*
 * The root cgroup, the only one (docs/sim/arena.md "lavd"): id 1 (the
 * root's kernfs id, as cgroup v2 numbers it), level 0, its own ancestor at
 * level 0, no parent; the root task group's css and the css_set of every
 * task point at it.
 */
static struct kernfs_node sim_root_kn = { .id = 1, .name = "" };
struct cgroup sim_root_cgroup = {
	.self = { .cgroup = &sim_root_cgroup, .parent = NULL },
	.level = 0,
	.kn = &sim_root_kn,
	.ancestors = { &sim_root_cgroup },
};
static struct css_set sim_root_css_set = { .dfl_cgrp = &sim_root_cgroup };
static struct task_group sim_root_task_group = { .css = { .cgroup = &sim_root_cgroup } };

/* A task joins the root cgroup (before ops.init_task); returns it, for
 * scx_init_task_args.cgroup. */
struct cgroup *sim_task_join_root_cgroup(struct task_struct *p)
{
	p->cgroups = &sim_root_css_set;
	p->sched_task_group = &sim_root_task_group;
	return &sim_root_cgroup;
}

/*
 * The cgroups below the root that a run's workloads put tasks in
 * (core/cgroup.rs), made top-down before the scheduler sees them, as
 * cgroup v2 has them: a kernfs id, a level, the parent's css; each with the
 * css_set and the task group of the tasks in it. They live as long as the
 * loaded scheduler (freed when it is unloaded).
 */
struct sim_cgroup {
	struct cgroup cgrp;	/* first: a struct cgroup * is a struct sim_cgroup * */
	struct kernfs_node kn;
	struct css_set cset;
	struct task_group tg;
	/* its kernfs node is not active: made by an mkdir not yet done, or
	 * removed (sim_cgroup_set_active) */
	bool inactive;
};

#define SIM_MAX_CGROUPS 4096
static struct sim_cgroup *sim_cgroups[SIM_MAX_CGROUPS];
static u32 sim_nr_cgroups;

/* A child of `parent` with kernfs id `id`; NULL past SIM_MAX_CGROUPS. */
struct cgroup *sim_cgroup_new(struct cgroup *parent, u64 id)
{
	struct sim_cgroup *c;

	if (!parent || sim_nr_cgroups >= SIM_MAX_CGROUPS)
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->kn.id = id;
	c->kn.name = "";
	c->cgrp.self.cgroup = &c->cgrp;
	c->cgrp.self.parent = &parent->self;
	c->cgrp.level = parent->level + 1;
	c->cgrp.kn = &c->kn;
	c->cgrp.ancestors[0] = &sim_root_cgroup;
	c->cset.dfl_cgrp = &c->cgrp;
	c->tg.css.cgroup = &c->cgrp;
	sim_cgroups[sim_nr_cgroups++] = c;
	return &c->cgrp;
}

/*
 * A cgroup's kernfs node becomes active or not: cgroup_mkdir activates the
 * new group's node (kernfs_activate) only after its csses are online (so
 * after ops.cgroup_init), and cgroup_destroy_locked deactivates it
 * (kernfs_remove) before the css goes offline (ops.cgroup_exit).
 */
void sim_cgroup_set_active(struct cgroup *cg, bool active)
{
	if (cg && cg != &sim_root_cgroup)
		((struct sim_cgroup *)cg)->inactive = !active;
}

/*
 * bpf_cgroup_from_id(): the root or a cgroup made above whose node is
 * active, else NULL: cgroup_get_from_id finds the node with
 * kernfs_find_and_get_node_by_id, which fails for a node not active
 * (never activated, or removed).
 */
struct cgroup *sim_cgroup_from_id(u64 id)
{
	u32 i;

	if (id == sim_root_cgroup.kn->id)
		return &sim_root_cgroup;
	for (i = 0; i < sim_nr_cgroups; i++)
		if (sim_cgroups[i]->kn.id == id)
			return sim_cgroups[i]->inactive ? NULL : &sim_cgroups[i]->cgrp;
	return NULL;
}

/* A task joins cgroup `cg` (the root if NULL) before ops.init_task; returns it. */
struct cgroup *sim_task_join_cgroup(struct task_struct *p, struct cgroup *cg)
{
	struct sim_cgroup *c = (struct sim_cgroup *)cg;

	if (!cg || cg == &sim_root_cgroup)
		return sim_task_join_root_cgroup(p);
	p->cgroups = &c->cset;
	p->sched_task_group = &c->tg;
	return cg;
}

static void __attribute__((destructor)) sim_cgroups_free(void)
{
	while (sim_nr_cgroups)
		free(sim_cgroups[--sim_nr_cgroups]);
}

/* CONFIG_NO_HZ_IDLE (a __kconfig scx_lavd reads): the sim's idle CPUs take
 * no ticks (the core stops a CPU's tick when it goes idle), as NO_HZ_IDLE */
bool CONFIG_NO_HZ_IDLE = true;

/* CONFIG_PREEMPT_RT (a __kconfig scx_arbor reads: on RT the verifier
 * refuses bpf_timer, so it runs its periodic pass from ops.tick): off, as
 * on the kernels the presets stand for; a test sets it per instance */
bool CONFIG_PREEMPT_RT = false;

/* CONFIG_PREEMPT_RCU (a __kconfig scx_arbor reads in
 * task_migration_disabled: under it the BPF prolog's migrate_disable()
 * shows in current's count): off, because the sim's callbacks have no
 * prolog, so a task's migration_disabled count is always its own */
bool CONFIG_PREEMPT_RCU = false;

/* per_cpu(cpufreq_cpu_data): each CPU's cpufreq policy; the simulated
 * machines have none (no DVFS) */
struct cpufreq_policy *cpufreq_cpu_data[SIM_MAX_CPUS];

/* The last reference of a bpf_cpumask is gone (bpf_cpumask_release). */
void sim_cpumask_free(struct bpf_cpumask *m)
{
	free(m);
}

/*
 * ---- BPF arena (kernel/bpf/arena.c, kernel/bpf/range_tree.c) ----
 *
 * An arena map is max_entries pages of address space, sparsely populated.
 * The kernel maps the same pages at user_vm_start (map_extra) for user
 * space and at kern_vm_start + the low 32 bits for the program; natively
 * there is one address space, so the program's pointers are the user
 * addresses: one PROT_NONE reservation of max_entries pages per arena map,
 * whose pages become readable and writable when allocated.
 *
 * The free pages are kept as the kernel's range tree keeps them: a set of
 * free ranges [start, last], searched best-fit (range_tree_find /
 * __find_range: the smallest free range that fits; among equal sizes the
 * one (re)inserted last, the rightmost of the size rbtree, where an equal
 * size goes right), split and merged as range_tree_clear / range_tree_set
 * do (each trimmed or merged node is removed and re-inserted, so it becomes
 * the newest of its size).
 *
 * Limits (docs/sim/arena.md): the program reads 0 and its stores are
 * dropped when it touches an unallocated page in the kernel (the JIT's
 * exception table); natively that is SIGSEGV, a crash of the simulator,
 * never a silent value. map_extra is honoured when that address range is
 * free in this process; when another run holds it, the arena goes to
 * another 4 GiB-aligned block with the same low 32 bits, so every page
 * offset the program computes is the same. __arena_global variables are
 * ordinary globals natively (libbpf puts them in the arena's pages).
 * node_id is ignored (one memory).
 */
#define SIM_ARENA_MAX 4
#define SIM_PAGE_SHIFT 12
#define SIM_PAGE_SIZE (1ULL << SIM_PAGE_SHIFT)
#define SIM_SZ_4G (1ULL << 32)

struct sim_range {
	u32 start, last;	/* inclusive */
	u64 seq;		/* insertion order, for best-fit ties */
};

struct sim_arena {
	void *map;
	u64 user_vm_start, user_vm_end;
	void *mapping;		/* the whole reservation, unmapped at unload */
	u64 map_len;
	struct sim_range *free;
	u32 nr_free, cap_free;
	u64 seq;
};

static struct sim_arena sim_arenas[SIM_ARENA_MAX];
static u32 sim_nr_arenas;

static u64 sim_clear_lo32(u64 v) { return v & ~(u64)~0U; }

/* compute_pgoff() */
static u32 sim_arena_pgoff(const struct sim_arena *a, u64 uaddr)
{
	return (u32)(uaddr - (u32)a->user_vm_start) >> SIM_PAGE_SHIFT;
}

static void sim_rt_insert(struct sim_arena *a, u32 start, u32 last)
{
	if (a->nr_free == a->cap_free) {
		u32 cap = a->cap_free ? 2 * a->cap_free : 16;
		struct sim_range *n = realloc(a->free, cap * sizeof(*n));

		if (!n) {
			fprintf(stderr, "arbor sim: out of memory in a BPF arena\n");
			abort();
		}
		a->free = n;
		a->cap_free = cap;
	}
	a->free[a->nr_free++] = (struct sim_range){ start, last, ++a->seq };
}

static void sim_rt_remove(struct sim_arena *a, u32 i)
{
	a->free[i] = a->free[--a->nr_free];
}

/* range_it_iter_first(): the free range with the lowest start overlapping
 * [start, last], or -1 */
static long sim_rt_first(const struct sim_arena *a, u32 start, u32 last)
{
	long best = -1;
	u32 i;

	for (i = 0; i < a->nr_free; i++)
		if (a->free[i].start <= last && a->free[i].last >= start &&
		    (best < 0 || a->free[i].start < a->free[best].start))
			best = i;
	return best;
}

/* range_tree_find(): best fit; -ENOENT if no free range is long enough */
static long long sim_rt_find(const struct sim_arena *a, u32 len)
{
	long best = -1;
	u32 i;

	for (i = 0; i < a->nr_free; i++) {
		const struct sim_range *r = &a->free[i];
		u64 sz = (u64)r->last - r->start + 1, bsz;

		if (len > sz)
			continue;
		if (best >= 0) {
			bsz = (u64)a->free[best].last - a->free[best].start + 1;
			if (sz > bsz || (sz == bsz && r->seq < a->free[best].seq))
				continue;
		}
		best = i;
	}
	return best < 0 ? -(long long)ENOENT : (long long)a->free[best].start;
}

/* range_tree_clear(): [start, start+len) is no longer free */
static void sim_rt_clear(struct sim_arena *a, u32 start, u32 len)
{
	u32 last = start + len - 1;
	long i;

	while ((i = sim_rt_first(a, start, last)) >= 0) {
		struct sim_range r = a->free[i];

		sim_rt_remove(a, i);
		if (r.start < start && r.last > last) {
			sim_rt_insert(a, r.start, start - 1);
			sim_rt_insert(a, last + 1, r.last);
		} else if (r.start < start) {
			sim_rt_insert(a, r.start, start - 1);
		} else if (r.last > last) {
			sim_rt_insert(a, last + 1, r.last);
			break;
		}
	}
}

/* is_range_tree_set(): 0 if [start, start+len) is free, else -ESRCH */
static int sim_rt_is_set(const struct sim_arena *a, u32 start, u32 len)
{
	u32 last = start + len - 1;
	long i = sim_rt_first(a, start, last);

	if (i >= 0 && a->free[i].start <= start && a->free[i].last >= last)
		return 0;
	return -ESRCH;
}

/* range_tree_set(): [start, start+len) is free again, merged with its
 * neighbours */
static void sim_rt_set(struct sim_arena *a, u32 start, u32 len)
{
	u32 last = start + len - 1;
	long l, r;

	if (!sim_rt_is_set(a, start, len))
		return;
	sim_rt_clear(a, start, len);
	l = sim_rt_first(a, start - 1, start - 1);
	r = sim_rt_first(a, last + 1, last + 1);
	if (l >= 0 && r >= 0) {
		u32 ls = a->free[l].start, rl = a->free[r].last;

		/* remove the higher index first: removal moves the last entry */
		if (l > r) {
			sim_rt_remove(a, l);
			sim_rt_remove(a, r);
		} else {
			sim_rt_remove(a, r);
			sim_rt_remove(a, l);
		}
		sim_rt_insert(a, ls, rl);
	} else if (l >= 0) {
		u32 ls = a->free[l].start;

		sim_rt_remove(a, l);
		sim_rt_insert(a, ls, last);
	} else if (r >= 0) {
		u32 rl = a->free[r].last;

		sim_rt_remove(a, r);
		sim_rt_insert(a, start, rl);
	} else {
		sim_rt_insert(a, start, last);
	}
}

/* Reserves len bytes of address space at an address whose low 32 bits are
 * those of want (want itself if that range is free). */
static void *sim_arena_reserve(u64 want, u64 len, void **mapping, u64 *map_len)
{
	int fl = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
	void *p;
	u64 base, start;

	if (want) {
		p = mmap((void *)want, len, PROT_NONE, fl | MAP_FIXED_NOREPLACE, -1, 0);
		if (p == (void *)want) {
			*mapping = p;
			*map_len = len;
			return p;
		}
		if (p != MAP_FAILED)
			munmap(p, len);
	}
	/* arena_get_unmapped_area(): twice the length, then a start that does
	 * not cross a 4 GiB boundary (here: the same low 32 bits as want) */
	p = mmap(NULL, len + SIM_SZ_4G, PROT_NONE, fl, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	base = (u64)p;
	start = sim_clear_lo32(base) + (u32)want;
	if (start < base)
		start += SIM_SZ_4G;
	*mapping = p;
	*map_len = len + SIM_SZ_4G;
	return (void *)start;
}

/* The arena of map `map`, created on first use as arena_map_alloc() checks
 * it: max_entries > 0, BPF_F_MMAPABLE, map_extra page-aligned, at most
 * 4 GiB, not crossing a 4 GiB boundary. */
struct sim_arena *sim_arena_of(void *map, u32 max_entries, u64 map_extra, u32 map_flags)
{
	struct sim_arena *a;
	u64 vm_range = (u64)max_entries * SIM_PAGE_SIZE;
	void *start;
	u32 i;

	for (i = 0; i < sim_nr_arenas; i++)
		if (sim_arenas[i].map == map)
			return &sim_arenas[i];
	if (!max_entries || !(map_flags & BPF_F_MMAPABLE) || (map_extra & (SIM_PAGE_SIZE - 1))) {
		sim_errorf("BPF arena: invalid map (max_entries %u, map_flags %#x, map_extra %#llx): -EINVAL",
			   max_entries, map_flags, map_extra);
		return NULL;
	}
	if (vm_range > SIM_SZ_4G) {
		sim_errorf("BPF arena: %u pages is more than 4 GiB: -E2BIG", max_entries);
		return NULL;
	}
	if ((map_extra >> 32) != ((map_extra + vm_range - 1) >> 32)) {
		sim_errorf("BPF arena: map_extra %#llx + %u pages crosses a 4 GiB boundary: -ERANGE",
			   map_extra, max_entries);
		return NULL;
	}
	if (sim_nr_arenas == SIM_ARENA_MAX) {
		sim_errorf("BPF arena: more than %d arena maps", SIM_ARENA_MAX);
		return NULL;
	}
	a = &sim_arenas[sim_nr_arenas];
	memset(a, 0, sizeof(*a));
	start = sim_arena_reserve(map_extra, vm_range, &a->mapping, &a->map_len);
	if (!start) {
		sim_errorf("BPF arena: cannot reserve %llu bytes of address space", vm_range);
		return NULL;
	}
	sim_nr_arenas++;
	a->map = map;
	a->user_vm_start = (u64)start;
	a->user_vm_end = (u64)start + vm_range;
	sim_rt_set(a, 0, max_entries);
	return a;
}

/* bpf_arena_alloc_pages() -> arena_alloc_pages(): page_cnt zeroed pages,
 * at addr if given (page-aligned, inside, all free), else best fit; NULL on
 * any failure (flags must be 0). */
void *sim_arena_alloc_pages(struct sim_arena *a, void *addr, u32 page_cnt, int node_id, u64 flags)
{
	long page_cnt_max;
	long long pgoff = 0;
	u64 uaddr = (u64)addr, full;
	u32 uaddr32;

	(void)node_id;
	if (!a || flags || !page_cnt)
		return NULL;
	page_cnt_max = (a->user_vm_end - a->user_vm_start) >> SIM_PAGE_SHIFT;
	if (page_cnt > page_cnt_max)
		return NULL;
	if (uaddr) {
		if (uaddr & (SIM_PAGE_SIZE - 1))
			return NULL;
		pgoff = sim_arena_pgoff(a, uaddr);
		if (pgoff > page_cnt_max - page_cnt)
			return NULL;
		if (sim_rt_is_set(a, pgoff, page_cnt))
			return NULL;
	} else {
		pgoff = sim_rt_find(a, page_cnt);
		if (pgoff < 0)
			return NULL;
	}
	sim_rt_clear(a, pgoff, page_cnt);
	uaddr32 = (u32)(a->user_vm_start + pgoff * SIM_PAGE_SIZE);
	full = sim_clear_lo32(a->user_vm_start) + uaddr32;
	/* fresh anonymous pages (or ones MADV_DONTNEED'ed when freed) read
	 * as zero: __GFP_ZERO */
	if (mprotect((void *)full, (u64)page_cnt * SIM_PAGE_SIZE, PROT_READ | PROT_WRITE)) {
		sim_rt_set(a, pgoff, page_cnt);
		return NULL;
	}
	return (void *)full;
}

/* bpf_arena_free_pages() -> arena_free_pages(): only the page-aligned low
 * 32 bits of ptr count; the range is clipped at the arena's end; its pages
 * become free (and unreadable) again. Freeing free pages is harmless. */
void sim_arena_free_pages(struct sim_arena *a, void *ptr, u32 page_cnt)
{
	u64 uaddr, full, end;
	long cnt;

	if (!a || !page_cnt || !ptr)
		return;
	uaddr = (u32)(u64)ptr;
	uaddr &= ~(SIM_PAGE_SIZE - 1);
	full = sim_clear_lo32(a->user_vm_start) + uaddr;
	end = full + ((u64)page_cnt << SIM_PAGE_SHIFT);
	if (end > a->user_vm_end)
		end = a->user_vm_end;
	/* the kernel would compute a wrapped page offset below the start;
	 * natively those addresses are not the arena's: nothing to free */
	if (full >= end || full < a->user_vm_start)
		return;
	cnt = (end - full) >> SIM_PAGE_SHIFT;
	sim_rt_set(a, sim_arena_pgoff(a, uaddr), cnt);
	madvise((void *)full, cnt * SIM_PAGE_SIZE, MADV_DONTNEED);
	mprotect((void *)full, cnt * SIM_PAGE_SIZE, PROT_NONE);
}

/* bpf_arena_reserve_pages() -> arena_reserve_pages(): the range can no
 * longer be allocated (it stays unreadable); 0 for an unaligned address or
 * no pages, -EINVAL past the end, -EBUSY if a page of it is allocated. */
int sim_arena_reserve_pages(struct sim_arena *a, void *ptr, u32 page_cnt)
{
	long page_cnt_max;
	u64 uaddr = (u64)ptr;
	u32 pgoff;

	if (!a)
		return -EINVAL;
	if (!page_cnt)
		return 0;
	page_cnt_max = (a->user_vm_end - a->user_vm_start) >> SIM_PAGE_SHIFT;
	if (uaddr & (SIM_PAGE_SIZE - 1))
		return 0;
	pgoff = sim_arena_pgoff(a, uaddr);
	if ((long)pgoff + page_cnt > page_cnt_max)
		return -EINVAL;
	if (sim_rt_is_set(a, pgoff, page_cnt))
		return -EBUSY;
	sim_rt_clear(a, pgoff, page_cnt);
	return 0;
}

/* dlclose: the arenas' address space goes back */
__attribute__((destructor)) static void sim_arena_unload(void)
{
	u32 i;

	for (i = 0; i < sim_nr_arenas; i++) {
		munmap(sim_arenas[i].mapping, sim_arenas[i].map_len);
		free(sim_arenas[i].free);
	}
	sim_nr_arenas = 0;
}

/* For the simulator's tests: the arena functions with a map of
 * max_entries pages at map_extra (the key is the test's own). */
struct sim_arena *sim_arena_test_map(void *key, u32 max_entries, u64 map_extra)
{
	return sim_arena_of(key, max_entries, map_extra, BPF_F_MMAPABLE);
}

/*
 * ---- cids (kernel/sched/ext/cid.c, cid.h of 7.2) ----
 *
 * A cid is a dense, topology-ordered CPU id: CPUs sharing a core, LLC or
 * NUMA node get contiguous cid ranges (cid.h:1-30). The mapping is built
 * at every root scheduler's enable, before ops.init (ext.c:7426), by
 * walking the online CPUs node by node, LLC by LLC inside a node, core by
 * core inside an LLC, and the CPUs of a core in id order (cid.c:116-186);
 * possible CPUs that were not online get the cids after those, with no
 * topology (cid.c:188-205). The sim's topology is the machine's: a CPU's
 * node (cpu_to_node), its LLC (the CPUs of the same sd_llc) and its core
 * (topology_sibling_cpumask); every CPU id below nr_cpu_ids is possible.
 */
s16 sim_cid_to_cpu_tbl[SIM_MAX_CPUS];
s16 sim_cpu_to_cid_tbl[SIM_MAX_CPUS];
/* the program is a cid-form scheduler (sched_ksft.c's adapter sets it) */
bool sim_cid_form;
static struct scx_cid_topo sim_cid_topo_tbl[SIM_MAX_CPUS];
static const struct scx_cid_topo sim_cid_topo_neg = { -1, -1, -1, -1, -1, -1 };

static bool sim_mask_test(const struct cpumask *m, u32 cpu)
{
	return (m->bits[cpu / 64] >> (cpu % 64)) & 1;
}

/* scx_cid_init() (cid.c:80-222); the host calls are the kernel's reading of
 * its topology, not the program's helper calls (not counted) */
void sim_cid_init(void)
{
	u32 n = sim_host->nr_cpu_slots, cpu, next_cid = 0;
	s32 next_node_idx = 0, next_llc_idx = 0, next_core_idx = 0;
	const struct cpumask *online = sim_host->online_cpumask(sim_host->ctx);
	static u8 to_walk[SIM_MAX_CPUS], node_s[SIM_MAX_CPUS], llc_s[SIM_MAX_CPUS];
	static s32 node[SIM_MAX_CPUS], llc[SIM_MAX_CPUS], core[SIM_MAX_CPUS];

	for (cpu = 0; cpu < n; cpu++) {
		sim_cpu_to_cid_tbl[cpu] = -1;
		to_walk[cpu] = sim_mask_test(online, cpu);
		node[cpu] = sim_host->host_cpu_node(sim_host->ctx, cpu);
		llc[cpu] = sim_host->host_cpu_llc(sim_host->ctx, cpu);
		core[cpu] = sim_host->cpu_core_id(sim_host->ctx, cpu);
	}
	for (;;) {
		s32 first = -1, nid, node_cid = next_cid, node_idx;

		for (cpu = 0; cpu < n && first < 0; cpu++)
			if (to_walk[cpu])
				first = cpu;
		if (first < 0)
			break;
		nid = node[first];
		/* no NUMA info: left for the no-topology tail (cid.c:127-134) */
		if (nid < 0) {
			to_walk[first] = 0;
			continue;
		}
		node_idx = next_node_idx++;
		/* node_scratch = to_walk & this node */
		for (cpu = 0; cpu < n; cpu++)
			node_s[cpu] = to_walk[cpu] && node[cpu] == nid;
		for (;;) {
			s32 ncpu = -1, llc_cid = next_cid, llc_idx;

			for (cpu = 0; cpu < n && ncpu < 0; cpu++)
				if (node_s[cpu])
					ncpu = cpu;
			if (ncpu < 0)
				break;
			llc_idx = next_llc_idx++;
			/* llc_scratch = node_scratch & this llc */
			for (cpu = 0; cpu < n; cpu++)
				llc_s[cpu] = node_s[cpu] && llc[cpu] == llc[ncpu];
			for (;;) {
				s32 lcpu = -1, core_cid = next_cid, core_idx;

				for (cpu = 0; cpu < n && lcpu < 0; cpu++)
					if (llc_s[cpu])
						lcpu = cpu;
				if (lcpu < 0)
					break;
				core_idx = next_core_idx++;
				/* core_scratch = llc_scratch & lcpu's siblings,
				 * each in id order (for_each_cpu) */
				for (cpu = 0; cpu < n; cpu++) {
					s32 cid;

					if (!llc_s[cpu] || core[cpu] != core[lcpu])
						continue;
					cid = next_cid++;
					sim_cid_to_cpu_tbl[cid] = cpu;
					sim_cpu_to_cid_tbl[cpu] = cid;
					sim_cid_topo_tbl[cid] = (struct scx_cid_topo){
						.core_cid = core_cid,
						.core_idx = core_idx,
						.llc_cid = llc_cid,
						.llc_idx = llc_idx,
						.node_cid = node_cid,
						.node_idx = node_idx,
					};
					llc_s[cpu] = node_s[cpu] = to_walk[cpu] = 0;
				}
			}
		}
	}
	/* the possible CPUs without a cid (not online): the tail (cid.c:188-205) */
	for (cpu = 0; cpu < n; cpu++) {
		s32 cid;

		if (sim_cpu_to_cid_tbl[cpu] != -1)
			continue;
		cid = next_cid++;
		sim_cid_to_cpu_tbl[cid] = cpu;
		sim_cpu_to_cid_tbl[cpu] = cid;
		sim_cid_topo_tbl[cid] = sim_cid_topo_neg;
	}
}

/* scx_bpf_cid_override() (cid.c:300-358): only from the root's ops.init
 * (a kfunc-set rule the verifier enforces; the sim has only a root); the
 * size must be nr_cpu_ids s32s; each possible CPU's cid must be valid and
 * unique (an error otherwise, the tables as far as they were written);
 * the topology becomes all -1 */
void sim_cid_override(const s32 *cpu_to_cid, u32 sz)
{
	static u8 seen[SIM_MAX_CPUS];
	u32 n = sim_host->nr_cpu_slots, cpu, cid;

	if (sz != n * sizeof(s32)) {
		sim_errorf("scx_bpf_cid_override: expected %zu bytes, got %u", n * sizeof(s32), sz);
		return;
	}
	memset(seen, 0, sizeof(seen));
	for (cpu = 0; cpu < n; cpu++) {
		s32 c = cpu_to_cid[cpu];

		if (c < 0 || (u32)c >= n) {
			sim_errorf("invalid cid %d", c);
			return;
		}
		if (seen[c]) {
			sim_errorf("cid %d assigned to multiple cpus", c);
			return;
		}
		seen[c] = 1;
		sim_cpu_to_cid_tbl[cpu] = c;
		sim_cid_to_cpu_tbl[c] = cpu;
	}
	for (cid = 0; cid < n; cid++)
		sim_cid_topo_tbl[cid] = sim_cid_topo_neg;
}

/* scx_bpf_cid_topo() (cid.c:689-707): -1 everywhere first; an invalid cid
 * is an error; the smaller of the two struct sizes is copied */
void sim_cid_topo(s32 cid, struct scx_cid_topo *out, size_t sz)
{
	memset(out, 0xff, sz);
	if (cid < 0 || (u32)cid >= sim_host->nr_cpu_slots) {
		sim_errorf("invalid cid %d", cid);
		return;
	}
	memcpy(out, &sim_cid_topo_tbl[cid], sz < sizeof(*out) ? sz : sizeof(*out));
}

/*
 * ---- task ids (p->scx.tid, 7.2) ----
 * scx_fork() gives every task a tid from a per-CPU allocator that takes
 * SCX_TID_CHUNK (1024, types.h:23) ids at a time from a global cursor
 * starting at 1 (ext.c:95-96, 3971-3984, 4015); the sim assigns it when
 * the task first meets the scheduler (ops.init_task, fork or enable), on
 * the CPU that runs that. With SCX_OPS_TID_TO_TASK the core keeps a
 * tid -> task table: a task enters it once initialised (ext.c:4056-4060,
 * and at enable ext.c:7609-7614) and leaves it when it dies
 * (sched_ext_dead, ext.c:4116-4123).
 */
#define SIM_TID_CHUNK 1024
#define SIM_TID_MAX (1U << 16)
static u64 sim_tid_cursor = 1;
static struct {
	u64 next, end;
} sim_tid_alloc[SIM_MAX_CPUS];
static u64 sim_alloc_tid(void)
{
	u32 cpu = sim_host->this_cpu(sim_host->ctx);

	if (sim_tid_alloc[cpu].next >= sim_tid_alloc[cpu].end) {
		sim_tid_alloc[cpu].next = sim_tid_cursor;
		sim_tid_cursor += SIM_TID_CHUNK;
		sim_tid_alloc[cpu].end = sim_tid_alloc[cpu].next + SIM_TID_CHUNK;
	}
	return sim_tid_alloc[cpu].next++;
}

struct task_struct *sim_tid_to_task(u64 tid)
{
	struct task_struct **pp;

	if (!sim_tid_enabled) {
		sim_errorf("scx_bpf_tid_to_task() called without SCX_OPS_TID_TO_TASK");
		return NULL;
	}
	pp = sim_hash_lookup(&sim_tid_table, SIM_TID_MAX, sizeof(u64), sizeof(void *), &tid);
	return pp ? *pp : NULL;
}

const struct sched_ext_ops *sim_ops(void);

/* Before ops.init: the cid tables (ext.c:7426) and the tid table, which
 * SCX_OPS_TID_TO_TASK turns on for the root (ext.c:7379, 7537). */
void sim_enable_begin(void)
{
	sim_cid_init();
	sim_tid_enabled = (sim_ops()->flags & SCX_OPS_TID_TO_TASK) != 0;
}

/*
 * __scx_init_task() (ext.c:3770-3821) around ops.init_task: the task's
 * tid (scx_fork), p->scx.disallow cleared before the call and checked
 * after it. A disallowed task is an error during fork (ext.c:3793-3795);
 * at enable the kernel keeps the task in SCHED_NORMAL (ext.c:3799-3817),
 * which the sim, whose tasks all run under sched_ext, cannot do: an error
 * naming it. Then the task joins the tid table.
 */
int sim_init_task(struct task_struct *p, struct scx_init_task_args *args)
{
	const struct sched_ext_ops *ops = sim_ops();
	int ret = 0;

	if (!p->scx.tid)
		p->scx.tid = sim_alloc_tid();
	else if (p->scx.tid >= sim_tid_cursor)
		/* A task from before a restart keeps its tid. The kernel's
		 * cursor is global and never goes back (ext.c:95-96); this
		 * instance's started at 1 again, so it moves past the tids
		 * the restart's init_task calls bring, before any fork. */
		sim_tid_cursor = p->scx.tid + 1;
	p->scx.disallow = false;
	if (ops->init_task)
		ret = ops->init_task(p, args);
	if (ret)
		return ret;
	if (p->scx.disallow) {
		if (args->fork)
			sim_errorf("ops.init_task() set task->scx.disallow for %s[%d] during fork",
				   p->comm, p->pid);
		else
			sim_errorf("ops.init_task() set task->scx.disallow for %s[%d]: keeping a task out of sched_ext is not modelled in the sim",
				   p->comm, p->pid);
	}
	if (sim_tid_enabled) {
		ret = sim_hash_update(&sim_tid_table, SIM_TID_MAX, sizeof(u64), sizeof(void *),
				      &p->scx.tid, &p, BPF_NOEXIST);
		if (ret == -EEXIST)
			sim_errorf("the sim gave tid %llu to %s[%d] while another live task has it",
				   (unsigned long long)p->scx.tid, p->comm, p->pid);
		else if (ret)
			sim_errorf("the sim's tid table is full (%u live tasks)", SIM_TID_MAX);
	}
	return 0;
}

#ifdef SIM_CALL_PROFILE
/*
 * scripts/sim-call-profile: each helper or kfunc call the cost model
 * charges is counted under the return addresses of the frames above it
 * that lie in this object (the helper's, its callers', up to the op), and
 * the table is written at exit to $ARBOR_SIM_CALL_PROFILE_OUT.PID.ADDR,
 * addresses relative to the object, for addr2line on SIM_CALL_PROFILE_SO
 * (the object is loaded from a copy in memory, which addr2line cannot
 * read). Built only with ARBOR_SIM_CALL_PROFILE=1 (sim/build.rs), with
 * frame pointers and without inlining or sibling calls; the counts are
 * those of the normal build, the speed is not.
 */
#include <dlfcn.h>
#include <unistd.h>

#define PROF_DEPTH 10
#define PROF_SLOTS (1 << 16)

struct prof_slot {
	unsigned long site[PROF_DEPTH];
	unsigned long n;
};

static struct prof_slot prof_tab[PROF_SLOTS];
static unsigned long prof_base;
static int prof_full;

__attribute__((noinline)) void sim_call_profile_hit(void)
{
	unsigned long site[PROF_DEPTH] = { 0 }, h = 1469598103934665603UL;
	void **fp = __builtin_frame_address(0);
	Dl_info di;

	if (!prof_base) {
		if (!dladdr((void *)sim_call_profile_hit, &di))
			return;
		prof_base = (unsigned long)di.dli_fbase;
	}
	/* up the frame-pointer chain while the return address is ours */
	for (int i = 0; i < PROF_DEPTH && fp; i++) {
		unsigned long ra = (unsigned long)fp[1];

		if (!dladdr((void *)ra, &di) || (unsigned long)di.dli_fbase != prof_base)
			break;
		site[i] = ra - prof_base;
		h = (h ^ site[i]) * 1099511628211UL;
		fp = (void **)fp[0];
	}
	for (unsigned long j = h & (PROF_SLOTS - 1), k = 0; k < PROF_SLOTS;
	     j = (j + 1) & (PROF_SLOTS - 1), k++) {
		if (!prof_tab[j].n)
			memcpy(prof_tab[j].site, site, sizeof(site));
		if (!memcmp(prof_tab[j].site, site, sizeof(site))) {
			prof_tab[j].n++;
			return;
		}
	}
	prof_full = 1;
}

__attribute__((destructor)) static void sim_call_profile_dump(void)
{
	const char *out = getenv("ARBOR_SIM_CALL_PROFILE_OUT");
	char path[4096];
	FILE *f;

	if (!out || !prof_base)
		return;
	snprintf(path, sizeof(path), "%s.%d.%lx", out, (int)getpid(), prof_base);
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "arbor sim: cannot write the call profile %s\n", path);
		return;
	}
	fprintf(f, "# so %s\n", SIM_CALL_PROFILE_SO);
	if (prof_full)
		fprintf(f, "# full: some calls were not counted\n");
	for (int j = 0; j < PROF_SLOTS; j++) {
		if (!prof_tab[j].n)
			continue;
		fprintf(f, "%lu", prof_tab[j].n);
		for (int i = 0; i < PROF_DEPTH && prof_tab[j].site[i]; i++)
			fprintf(f, " %lx", prof_tab[j].site[i]);
		fprintf(f, "\n");
	}
	fclose(f);
}
#endif

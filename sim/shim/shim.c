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

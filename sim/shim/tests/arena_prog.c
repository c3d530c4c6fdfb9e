/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arbor sim: a test program for the shim's BPF arena, written as the scx
 * arena library (lib/alloc/common.h, sdt_alloc.bpf.c) writes its BPF C:
 * the same map declaration, bpf_arena_alloc_pages(&arena, NULL, ...),
 * __arena pointers, arena spin locks, can_loop. sim/build.rs compiles it
 * with the shim like a scheduler; sim/src/sched/arena.rs drives it.
 */
#include <scx/common.bpf.h>
#include <bpf_arena_common.bpf.h>
#include <bpf_arena_spin_lock.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARENA);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1 << 20); /* number of pages */
	__ulong(map_extra, (1ull << 44)); /* start of mmap() region */
} arena SEC(".maps");

/* per-task data in the arena, found by pid: a small sdt_task */
struct task_data {
	s32 pid;
	u32 nr_runs;
	arena_spinlock_t lock;
};

/* the argument of the programs (a syscall program's context) */
struct pid_arg {
	s32 pid;
};

#define NR_SLOTS 64
struct task_data __arena *slots[NR_SLOTS];

/* one page per task, as a page-granular allocator would hand it out */
SEC("syscall") int task_alloc(struct pid_arg *a)
{
	s32 pid = a->pid;
	struct task_data __arena *d;
	u32 i;

	for (i = 0; i < NR_SLOTS && can_loop; i++) {
		if (slots[i])
			continue;
		d = bpf_arena_alloc_pages(&arena, NULL, 1, NUMA_NO_NODE, 0);
		if (!d)
			return -ENOMEM;
		cast_kern(d);
		d->pid = pid;
		slots[i] = d;
		return i;
	}
	return -ENOSPC;
}

static struct task_data __arena *task_find(s32 pid)
{
	u32 i;

	for (i = 0; i < NR_SLOTS && can_loop; i++)
		if (slots[i] && slots[i]->pid == pid)
			return slots[i];
	return NULL;
}

/* counts a run under the task's lock; -ENOENT if the task has no data */
SEC("syscall") int task_run(struct pid_arg *a)
{
	s32 pid = a->pid;
	struct task_data __arena *d = task_find(pid);
	int ret;

	if (!d)
		return -ENOENT;
	ret = arena_spin_lock(&d->lock);
	if (ret)
		return ret;
	d->nr_runs++;
	arena_spin_unlock(&d->lock);
	return d->nr_runs;
}

/* takes the task's lock twice: the second is an AA deadlock */
SEC("syscall") int task_lock_twice(struct pid_arg *a)
{
	s32 pid = a->pid;
	struct task_data __arena *d = task_find(pid);
	int ret;

	if (!d)
		return -ENOENT;
	ret = arena_spin_lock(&d->lock);
	if (ret)
		return ret;
	ret = arena_spin_lock(&d->lock);
	arena_spin_unlock(&d->lock);
	return ret;
}

SEC("syscall") int task_free(struct pid_arg *a)
{
	s32 pid = a->pid;
	u32 i;

	for (i = 0; i < NR_SLOTS && can_loop; i++) {
		if (slots[i] && slots[i]->pid == pid) {
			bpf_arena_free_pages(&arena, (void __arena *)slots[i], 1);
			slots[i] = NULL;
			return 0;
		}
	}
	return -ENOENT;
}

/* the page offset of a task's data in the arena */
SEC("syscall") int task_pgoff(struct pid_arg *a)
{
	s32 pid = a->pid;
	struct task_data __arena *d = task_find(pid);

	return d ? (int)(((u64)d & 0xffffffffULL) >> 12) : -ENOENT;
}

/* what Native::load needs of a scheduler object */
struct sched_ext_ops arena_test_ops = { .name = "arena_test" };
const struct sched_ext_ops *sim_ops(void)
{
	return &arena_test_ops;
}

/* BPF's division by zero (sim/src/sched/divzero.rs): x / 0 = 0, x % 0 = x */
struct div_arg {
	u64 a, b;
	u64 quot, rem;
	s32 sa, sb;
	s32 squot, srem;
};

SEC("syscall") __attribute__((noinline)) int divide(struct div_arg *d)
{
	d->quot = d->a / d->b;
	d->rem = d->a % d->b;
	d->squot = d->sa / d->sb;
	d->srem = d->sa % d->sb;
	return 0;
}

/*
 * The maps scx_rusty declares and uses as the shim models them
 * (scx/common.bpf.h): a key_size/value_size map, an array reached through
 * a `void *` (sim_untyped_maps), array update/delete as
 * kernel/bpf/arraymap.c, bpf_task_storage_delete.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(key_size, sizeof(u32));
	__uint(value_size, 24);
	__uint(max_entries, 4);
} sized SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, u32);
	__type(value, u64);
	__uint(max_entries, 2);
} untyped SEC(".maps");

const struct sim_map_desc sim_untyped_maps[] = { SIM_MAP_DESC(untyped) };
const u32 sim_nr_untyped_maps = 1;

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, u64);
} tstore SEC(".maps");

struct map_arg {
	s64 r[12];
};

SEC("syscall") int map_checks(struct map_arg *a)
{
	struct task_struct t = {};
	void *m = &untyped;
	u32 k = 1;
	u64 v = 7, *p, *q;

	/* the same element, through the map and through a void * */
	p = bpf_map_lookup_elem(&untyped, &k);
	if (!p)
		return -1;
	*p = 42;
	q = bpf_map_lookup_elem(m, &k);
	a->r[0] = q == p ? (s64)*q : -1;
	/* value_size 24: elements 24 bytes apart */
	k = 0;
	p = bpf_map_lookup_elem(&sized, &k);
	k = 1;
	q = bpf_map_lookup_elem(&sized, &k);
	a->r[1] = p && q ? (char *)q - (char *)p : -1;
	/* array_map_update_elem */
	k = 1;
	a->r[2] = bpf_map_update_elem(&untyped, &k, &v, BPF_NOEXIST);
	a->r[3] = bpf_map_update_elem(&untyped, &k, &v, BPF_EXIST + 1);
	k = 2;
	a->r[4] = bpf_map_update_elem(&untyped, &k, &v, BPF_ANY);
	k = 0;
	a->r[5] = bpf_map_update_elem(&untyped, &k, &v, BPF_EXIST);
	p = bpf_map_lookup_elem(m, &k);
	a->r[6] = p ? (s64)*p : -1;
	/* array_map_delete_elem */
	a->r[7] = bpf_map_delete_elem(&untyped, &k);
	/* task storage: created, deleted, gone */
	a->r[8] = bpf_task_storage_get(&tstore, &t, 0, BPF_LOCAL_STORAGE_GET_F_CREATE) != NULL;
	a->r[9] = bpf_task_storage_delete(&tstore, &t);
	a->r[10] = bpf_task_storage_get(&tstore, &t, 0, 0) != NULL;
	a->r[11] = bpf_task_storage_delete(&tstore, &t);
	return 0;
}

/*
 * The shim's cgroups (docs/sim/arena.md "scx_lavd"): the root is the only
 * cgroup. Returns 0, or a bit per check that failed.
 */
SEC("syscall") int cgroup_checks(void *unused)
{
	struct cgroup *root = bpf_cgroup_from_id(1);
	struct cgroup_subsys_state *pos;
	struct task_struct t = {};
	int n = 0, bad = 0;

	if (!root || root->level != 0 || root->kn->id != 1 || root->self.cgroup != root ||
	    root->self.parent)
		return 1;
	if (bpf_cgroup_from_id(2) || bpf_cgroup_from_id(0))
		bad |= 2;
	if (bpf_cgroup_ancestor(root, 0) != root || bpf_cgroup_ancestor(root, 1) ||
	    bpf_cgroup_ancestor(root, -1))
		bad |= 4;
	bpf_for_each(css, pos, &root->self, BPF_CGROUP_ITER_DESCENDANTS_PRE) {
		if (pos != &root->self)
			bad |= 8;
		n++;
	}
	if (n != 1)
		bad |= 16;
	n = 0;
	bpf_for_each(css, pos, &root->self, BPF_CGROUP_ITER_DESCENDANTS_POST)
		n++;
	if (n != 1)
		bad |= 32;
	if (sim_task_join_root_cgroup(&t) != root || t.cgroups->dfl_cgrp != root ||
	    t.sched_task_group->css.cgroup != root || scx_bpf_task_cgroup(&t) != root)
		bad |= 64;
	bpf_cgroup_release(root);
	return bad;
}

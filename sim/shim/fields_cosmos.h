/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arbor sim: scx_cosmos 1.1.7's loader writes only top-level rodata
 * globals (main.rs:598-653: Native::write_global by name), so no fields
 * here; and one map it fills from user space before attaching.
 */
static const struct sim_field_desc sim_fields[] = {};

/*
 * main.rs:740-753: for every CPU of every node, cpu_node_map[cpu] = node
 * (a BPF_MAP_TYPE_HASH; skel.maps.cpu_node_map.update(.., MapFlags::ANY)).
 * Called by the sim's loader (sim/src/sched/peers.rs cosmos) as the
 * loader's bpf_map_update_elem from user space.
 */
struct sim_cosmos_cpu_node {
	u32 cpu;
	u32 node;
};

int sim_cosmos_set_cpu_node(struct sim_cosmos_cpu_node *a)
{
	return bpf_map_update_elem(&cpu_node_map, &a->cpu, &a->node, BPF_ANY);
}

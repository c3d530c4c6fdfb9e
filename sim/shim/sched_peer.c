/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arbor sim: a peer scheduler's BPF program (scx_bpfland, ...) as one
 * native translation unit: its main.bpf.c, taken unmodified from the
 * pinned crate (sim/build.rs downloads it), against the shim's headers.
 * SIM_PEER_OPS names its struct_ops (e.g. bpfland_ops).
 */
#include "main.bpf.c"

/* The callbacks, for the simulator. */
const struct sched_ext_ops *sim_ops(void)
{
	return &SIM_PEER_OPS;
}

/*
 * A peer whose loader writes fields of anonymous rodata structs (p2dq's
 * p2dq_config.*, ...) lists them in fields_<name>.h; sim_field() gives the
 * simulator each one's address and size by name, so the loader in
 * sim/src/sched/peers.rs writes them without mirroring the C layouts.
 */
#ifdef SIM_PEER_FIELDS
/* one entry of a fields_<name>.h table: SIM_F(var, field) */
struct sim_field_desc {
	const char *name;
	const volatile void *ptr;
	u32 size;
};
#define SIM_F(var, field) { #var "." #field, (const volatile void *)&var.field, sizeof(var.field) }

#include SIM_PEER_FIELDS

int sim_field(const char *name, void **ptr, u32 *size)
{
	u32 i;

	for (i = 0; i < sizeof(sim_fields) / sizeof(sim_fields[0]); i++) {
		if (!__builtin_strcmp(sim_fields[i].name, name)) {
			*ptr = (void *)sim_fields[i].ptr;
			*size = sim_fields[i].size;
			return 0;
		}
	}
	return -ENOENT;
}
#endif

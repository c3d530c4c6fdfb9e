/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arbor sim: <scx/bpf_arena_common.bpf.h> (the kernel's tools/sched_ext
 * path of it, which scx_qmap.h includes) is the shim's stand-in.
 */
#include "../bpf_arena_common.bpf.h"

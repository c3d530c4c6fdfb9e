/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arbor sim: <scx/compat.bpf.h>. The shim models one kernel (7.2), so
 * every compat wrapper a program may use is defined in the shim's
 * <scx/common.bpf.h>, taking its 7.2 branch; this header only makes the
 * include resolve (the kernel's peek_dsq selftest includes it).
 */
#include <scx/common.bpf.h>

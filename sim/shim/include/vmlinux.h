/* SPDX-License-Identifier: GPL-2.0 */
/* arbor sim: stands in for vmlinux.h: the shim's kernel types. */
#include "scx/common.bpf.h"

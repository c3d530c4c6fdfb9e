/* SPDX-License-Identifier: GPL-2.0 */
/* arbor sim: stands in for libbpf's <bpf/bpf_helpers.h>: scx/common.bpf.h gives what the peers use of it. */
#include "../scx/common.bpf.h"

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scx_arbor: the placement decisions, as pure functions.
 *
 * Every rule that decides where a task goes lives here, written once and
 * compiled twice: into the BPF program (main.bpf.c includes this file) and
 * natively into the Rust crate (policy.c), where unit tests drive it with
 * crafted topologies and loads. So the tests exercise the code the kernel
 * runs, not a copy. Nothing here may call a BPF helper or touch a map:
 * inputs come in as arguments, results go out as return values.
 *
 * Each rule names its source. "baseline" = the stock kernel's fair-class
 * placement (kernel/sched/fair.c, ~6.17-7.2).
 *
 * The rules are split by concern into the headers of policy/, included
 * below in an order where each part may use the rules of the parts before
 * it; this file holds what they share. A reference "policy.h arbor_X"
 * elsewhere names a rule of one of these parts.
 */
#ifndef __ARBOR_POLICY_H
#define __ARBOR_POLICY_H

#include "intf.h"

#ifdef __bpf__
#define ARBOR_POLICY static __always_inline
/* open-coded iterator: the verifier checks the body once, not per iteration */
#define POLICY_FOR(i, start, end) bpf_for(i, start, end)
#else
#define ARBOR_POLICY
#define POLICY_FOR(i, start, end) for ((i) = (start); (i) < (end); (i)++)
#endif

#define SCHED_CAPACITY_SCALE	1024
#define NSEC_PER_MSEC		1000000ULL

#include "policy/mask.h"
#include "policy/wake.h"
#include "policy/balance.h"
#include "policy/extra.h"
#include "policy/capacity.h"
#include "policy/cache.h"
#include "policy/eevdf.h"
#include "policy/lb.h"
#include "policy/cgroup.h"

#endif /* __ARBOR_POLICY_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Native build of policy.h, linked into the Rust crate so that unit tests
 * (src/policy.rs) call the very rules the BPF program runs.
 */
#include "policy.h"

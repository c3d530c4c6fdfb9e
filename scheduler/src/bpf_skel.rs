// SPDX-License-Identifier: GPL-2.0
// The libbpf skeleton of src/bpf/main.bpf.c, generated at build time.
include!(concat!(env!("OUT_DIR"), "/bpf_skel.rs"));

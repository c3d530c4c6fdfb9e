// SPDX-License-Identifier: GPL-2.0
// Bindings for src/bpf/intf.h, generated at build time by bindgen.
#![allow(non_upper_case_globals)]
#![allow(non_camel_case_types)]
#![allow(non_snake_case)]
#![allow(dead_code)]
include!(concat!(env!("OUT_DIR"), "/bpf_intf.rs"));

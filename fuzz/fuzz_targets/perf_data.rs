#![no_main]
//! arbor_sim::untrusted::perf_data: Ok or a one-line error.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    arbor_sim::untrusted::assert_contract("perf_data", data, arbor_sim::untrusted::perf_data(data));
});

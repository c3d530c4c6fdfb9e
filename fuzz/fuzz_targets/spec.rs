#![no_main]
//! arbor_sim::untrusted::spec: Ok or a one-line error.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    arbor_sim::untrusted::assert_contract("spec", data, arbor_sim::untrusted::spec(data));
});

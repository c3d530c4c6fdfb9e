#![no_main]
//! arbor_sim::untrusted::rtapp: Ok or a one-line error.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    arbor_sim::untrusted::assert_contract("rtapp", data, arbor_sim::untrusted::rtapp(data));
});

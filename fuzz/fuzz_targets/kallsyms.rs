#![no_main]
//! arbor_sim::untrusted::kallsyms: Ok or a one-line error.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    arbor_sim::untrusted::assert_contract("kallsyms", data, arbor_sim::untrusted::kallsyms(data));
});

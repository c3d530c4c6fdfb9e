// Builds the BPF scheduler (skeleton + bindings for intf.h) with scx_cargo,
// and the pure decision rules of policy.h natively, for the unit tests.
//
// The BPF compile also writes the compiler's list of the files it read
// (-MD), exported as ARBOR_BPF_DEPS: sim/tests/same_sources.rs compares it
// with the simulator's native build of the same sources.
fn main() {
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    let deps = out.join("bpf_sources.d");
    // scx_cargo hands these flags to bindgen for intf.h first, then to the
    // compile of main.bpf.c, whose list is thus the one left in the file
    // (the test checks that it is)
    scx_cargo::BpfBuilder::new()
        .expect("scx_cargo: BPF toolchain not found (run scripts/install-deps.sh)")
        .enable_intf("src/bpf/intf.h", "bpf_intf.rs")
        .enable_skel("src/bpf/main.bpf.c", "bpf")
        .add_cflag("-MD")
        .add_cflag(&format!("-MF{}", deps.display()))
        .build()
        .expect("building the BPF scheduler failed");
    println!("cargo:rustc-env=ARBOR_BPF_DEPS={}", deps.display());

    cc::Build::new()
        .file("src/bpf/policy.c")
        .include("src/bpf")
        .warnings(true)
        .flag_if_supported("-Wno-unused-function")
        .compile("arbor_policy");
    for f in ["policy.c", "policy.h", "intf.h"] {
        println!("cargo:rerun-if-changed=src/bpf/{f}");
    }
}

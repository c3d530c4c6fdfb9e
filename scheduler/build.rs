// Builds the BPF scheduler (skeleton + bindings for intf.h) with scx_cargo,
// and the pure decision rules of policy.h natively, for the unit tests.
fn main() {
    scx_cargo::BpfBuilder::new()
        .expect("scx_cargo: BPF toolchain not found (run scripts/install-deps.sh)")
        .enable_intf("src/bpf/intf.h", "bpf_intf.rs")
        .enable_skel("src/bpf/main.bpf.c", "bpf")
        .build()
        .expect("building the BPF scheduler failed");

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

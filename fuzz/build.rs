// arbor/src/report, compiled into the results target, names the commit
// that built it (arbor's own build.rs sets this).
fn main() {
    println!("cargo:rustc-env=ARBOR_COMMIT=fuzz");
}

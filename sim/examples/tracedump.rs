//! Prints a trace's replay summary and the first ops of each program (a
//! debugging aid: `cargo run --example tracedump -- FILE[,KEYS] [N]`).
fn main() -> anyhow::Result<()> {
    let a: Vec<String> = std::env::args().collect();
    let c = arbor_sim::workload::trace::load(&a[1])?;
    let n: usize = a.get(2).and_then(|x| x.parse().ok()).unwrap_or(12);
    println!("{}", c.summary.text());
    for (i, (t, p)) in c.tasks.iter().zip(&c.programs).enumerate() {
        println!(
            "{i} {} tgid {} start {} fork {} w {} ops {}: {:?}",
            t.name,
            t.tgid,
            t.start_at,
            c.by_fork[i],
            t.weight,
            p.len(),
            &p[..p.len().min(n)]
        );
    }
    Ok(())
}

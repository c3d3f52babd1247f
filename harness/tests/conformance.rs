fn main() -> anyhow::Result<()> {
    harness::cworld::worker_main_if_requested();
    let tree = harness::kernel::fetch("6.12")?;
    println!("{}", tree.root.display());
    let t = std::time::Instant::now();
    let w = harness::cworld::build(&tree, &Default::default())?;
    println!("{} in {:?}", w.so.display(), t.elapsed());
    Ok(())
}

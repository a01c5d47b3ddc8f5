//! `cargo xtask fuzz-wire [CASES]`: the damx-wire property tests, in release mode, with many
//! cases.

use std::process::Command;
use std::time::Instant;

use anyhow::{Context, bail};

pub(crate) const ABOUT: &str = "\
run the damx-wire property tests (round trips both ways, no panic on random or mutated
bytes, the framer against its model in any read chunking) in release mode with CASES cases
per property (default 1000000), through PROPTEST_CASES";

const DEFAULT_CASES: u64 = 1_000_000;

pub(crate) fn run(args: &[String]) -> anyhow::Result<()> {
    let cases = match args {
        [] => DEFAULT_CASES,
        [cases] => cases
            .replace('_', "")
            .parse()
            .with_context(|| format!("CASES must be a number, got `{cases}`"))?,
        _ => bail!("takes at most one argument, CASES"),
    };
    println!("fuzz-wire: {cases} cases per property, release build");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let start = Instant::now();
    let status = Command::new(cargo)
        .args([
            "test",
            "--release",
            "--package",
            "damx-wire",
            "--all-features",
        ])
        .args(["--test", "properties"])
        .env("PROPTEST_CASES", cases.to_string())
        .status()
        .context("cannot run cargo test")?;
    println!("fuzz-wire: {:.0?}", start.elapsed());
    if !status.success() {
        bail!("property tests failed ({status})");
    }
    Ok(())
}

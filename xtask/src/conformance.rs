//! `cargo xtask conformance`: checks every DXP sample of dxp.md §5 and prints a table.
//!
//! For each fixture it decodes the bytes and re-encodes them itself, and it runs the insta
//! snapshot tests (`cargo test -p xtask --test conformance`) with insta forbidden to write
//! (`INSTA_UPDATE=no`, `CI=true`), taking each sample's snapshot result from that run. A
//! sample passes when it decodes, re-encodes to the same bytes and matches its committed
//! snapshot; any failure, or a failing test run, makes the task exit non-zero.

use std::collections::BTreeMap;
use std::process::Command;

use anyhow::{Context, bail};
use xtask::fixtures;

pub(crate) const ABOUT: &str = "\
decode and re-encode every DXP sample of dxp.md §5 (xtask/conformance/*.dxp), run their
insta snapshot tests without writing snapshots (INSTA_UPDATE=no, CI=true), print a table,
exit non-zero on any failure; to review a changed snapshot, run
`INSTA_UPDATE=always cargo test -p xtask --test conformance` and inspect the diff";

/// One row of the table.
struct Row {
    name: String,
    kind: &'static str,
    /// Why the fixture could not be read or decoded.
    problem: Option<String>,
    length: usize,
    decoded: bool,
    identical: bool,
    snapshot: Option<bool>,
}

impl Row {
    fn passed(&self) -> bool {
        self.decoded && self.identical && self.snapshot == Some(true)
    }
}

pub(crate) fn run(args: &[String]) -> anyhow::Result<()> {
    if let Some(arg) = args.first() {
        bail!("takes no arguments, got `{arg}`");
    }
    let names = fixtures::names()?;
    if names.is_empty() {
        bail!("no fixtures in {}", fixtures::dir().display());
    }
    let tests = run_snapshot_tests()?;

    let mut rows = Vec::new();
    for name in names {
        let snapshot = tests.results.get(&name).copied();
        let fixture = match fixtures::load(&name) {
            Ok(fixture) => fixture,
            Err(error) => {
                rows.push(Row {
                    name,
                    kind: "-",
                    problem: Some(format!("{error:#}")),
                    length: 0,
                    decoded: false,
                    identical: false,
                    snapshot,
                });
                continue;
            }
        };
        let decoded = damx_wire::decode(&fixture.bytes);
        rows.push(Row {
            name,
            kind: decoded.as_ref().map_or("-", |m| m.kind().name()),
            problem: decoded.as_ref().err().map(ToString::to_string),
            length: fixture.bytes.len(),
            decoded: decoded.is_ok(),
            identical: decoded.is_ok_and(|m| m.to_bytes() == fixture.bytes),
            snapshot,
        });
    }
    print_table(&rows);
    for row in &rows {
        if let Some(problem) = &row.problem {
            println!("{}: {problem}", row.name);
        }
    }

    let failed: Vec<&str> = rows
        .iter()
        .filter(|row| !row.passed())
        .map(|row| row.name.as_str())
        .collect();
    let other_failures: Vec<&str> = tests
        .results
        .iter()
        .filter(|(name, passed)| !**passed && !rows.iter().any(|row| &row.name == *name))
        .map(|(name, _)| name.as_str())
        .collect();
    if !failed.is_empty() || !other_failures.is_empty() || !tests.success {
        if !tests.success {
            eprintln!("\n{}", tests.output);
        }
        bail!(
            "{} of {} samples failed{}{}",
            failed.len(),
            rows.len(),
            if other_failures.is_empty() {
                String::new()
            } else {
                format!("; other failing tests: {}", other_failures.join(", "))
            },
            if tests.success {
                ""
            } else {
                "; the snapshot test run failed (its output is above)"
            }
        );
    }
    println!("\nall {} samples pass", rows.len());
    Ok(())
}

/// The outcome of `cargo test -p xtask --test conformance`.
struct TestRun {
    /// Whether the run succeeded as a whole.
    success: bool,
    /// Each test's name and whether it passed.
    results: BTreeMap<String, bool>,
    /// Everything it printed, for a failure report.
    output: String,
}

fn run_snapshot_tests() -> anyhow::Result<TestRun> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args(["test", "--package", "xtask", "--test", "conformance"])
        .args(["--", "--color", "never"])
        .env("INSTA_UPDATE", "no")
        .env("CI", "true")
        .env_remove("INSTA_FORCE_PASS")
        .output()
        .context("cannot run cargo test")?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let results = stdout
        .lines()
        .filter_map(|line| {
            let rest = line.strip_prefix("test ")?;
            let (name, outcome) = rest.split_once(" ... ")?;
            Some((name.to_owned(), outcome.trim() == "ok"))
        })
        .collect();
    Ok(TestRun {
        success: output.status.success(),
        results,
        output: format!("{stdout}{}", String::from_utf8_lossy(&output.stderr)),
    })
}

fn print_table(rows: &[Row]) {
    let name_width = rows.iter().map(|r| r.name.len()).max().unwrap_or(0).max(6);
    let kind_width = 7;
    let mark = |ok: bool| if ok { "yes" } else { "NO" };
    println!(
        "{:<name_width$}  {:<kind_width$}  {:>6}  {:<7}  {:<10}  {:<8}  result",
        "sample", "kind", "length", "decoded", "re-encoded", "snapshot"
    );
    for row in rows {
        let snapshot = match row.snapshot {
            Some(true) => "matches",
            Some(false) => "FAILED",
            None => "NO TEST",
        };
        println!(
            "{:<name_width$}  {:<kind_width$}  {:>6}  {:<7}  {:<10}  {:<8}  {}",
            row.name,
            row.kind,
            row.length,
            mark(row.decoded),
            match (row.decoded, row.identical) {
                (false, _) => "-",
                (true, true) => "identical",
                (true, false) => "DIFFERS",
            },
            snapshot,
            if row.passed() { "PASS" } else { "FAIL" },
        );
    }
}

//! `cargo xtask perft [--deep]`: perft of the positions of rules.md against the published
//! counts, one line a depth with the count, the time and the speed.
//!
//! Without a flag it runs the depths the test suite runs (a few seconds). `--deep` adds start
//! position depths 10 and 11, Woldouby depths 14 and 15 and twenty kings depths 9 to 11, which
//! take a while; it runs them in a release build (rebuilding and re-running itself with
//! `--release` if needed). Any wrong count makes the task fail.

use std::time::Instant;

use anyhow::{Context, bail};
use damx_rules::{Position, perft};

pub(crate) const ARGS: &str = "[--deep]";
pub(crate) const ABOUT: &str = "perft of the start, Woldouby and twenty-kings positions against \
the published counts;\n--deep adds start 10-11, Woldouby 14-15 and twenty kings 9-11 (release \
build, about a minute)";

/// A position with its published leaf counts for depths 1, 2, ...
struct Table {
    name: &'static str,
    fen: &'static str,
    counts: &'static [u64],
    /// How many depths the fast run covers.
    fast_depths: usize,
}

const TABLES: &[Table] = &[
    Table {
        name: "start",
        fen: "W:W31-50:B1-20",
        counts: &[
            9,
            81,
            658,
            4_265,
            27_117,
            167_140,
            1_049_442,
            6_483_961,
            41_022_423,
            258_895_763,
            1_665_861_398,
        ],
        fast_depths: 9,
    },
    Table {
        name: "woldouby",
        fen: "W:B12,13,14,16,18,19,21,23,24,26:W25,27,28,30,32,33,34,35,37,38",
        counts: &[
            6,
            12,
            30,
            73,
            215,
            590,
            1_944,
            6_269,
            22_369,
            88_050,
            377_436,
            1_910_989,
            9_872_645,
            58_360_286,
            346_184_885,
        ],
        fast_depths: 13,
    },
    Table {
        name: "twenty kings",
        fen: "W:WK31-50:BK1-20",
        counts: &[
            17,
            79,
            352,
            1_399,
            7_062,
            37_589,
            217_575,
            1_333_217,
            8_558_321,
            58_381_162,
            417_920_283,
        ],
        fast_depths: 8,
    },
];

pub(crate) fn run(args: &[String]) -> anyhow::Result<()> {
    let deep = match args {
        [] => false,
        [flag] if flag == "--deep" => true,
        _ => bail!("usage: cargo xtask perft {ARGS}"),
    };
    if deep && cfg!(debug_assertions) {
        let mut again = vec!["perft".to_string()];
        again.extend_from_slice(args);
        let status = crate::common::rerun_optimised(&again)?;
        if !status.success() {
            bail!("the optimised run failed ({status})");
        }
        return Ok(());
    }
    let mut failures = 0;
    for table in TABLES {
        let position = Position::from_fen(table.fen).context(table.name)?;
        let depths = if deep {
            table.counts.len()
        } else {
            table.fast_depths
        };
        for (i, &expected) in table.counts[..depths].iter().enumerate() {
            let depth = i as u32 + 1;
            let started = Instant::now();
            let nodes = perft(&position, depth);
            let seconds = started.elapsed().as_secs_f64();
            let verdict = if nodes == expected {
                "ok".to_string()
            } else {
                failures += 1;
                format!("FAIL, expected {expected}")
            };
            println!(
                "{:<13} depth {depth:>2} {nodes:>14} {seconds:>9.3} s {:>8.1} M nodes/s  {verdict}",
                table.name,
                nodes as f64 / seconds.max(1e-9) / 1e6,
            );
        }
    }
    if failures > 0 {
        bail!("{failures} perft count(s) differ from the published ones");
    }
    Ok(())
}

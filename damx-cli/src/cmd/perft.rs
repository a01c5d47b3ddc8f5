//! `damx perft`: the number of leaf nodes of the legal-move tree, the time and the speed.
//!
//! The count is `damx_engine::perft::divide_parallel`: the tree split into subtrees that
//! `--threads` threads count at once, summed per root move, which gives `--divide` and the
//! progress display (subtrees counted so far) for free; the sum is the same as one
//! `damx_rules::perft` at the root.

use std::io::Write;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use damx_engine::perft::divide_parallel;
use damx_rules::Position;
use serde::Serialize;

use crate::error::Error;
use crate::log::info;
use crate::progress::Progress;

/// What to count.
#[derive(Debug)]
pub(crate) struct Config {
    /// The root.
    pub(crate) position: Position,
    /// Plies below the root.
    pub(crate) depth: u32,
    /// Also give the count below each root move.
    pub(crate) divide: bool,
    /// Counting threads.
    pub(crate) threads: usize,
    /// Print JSON instead of text.
    pub(crate) json: bool,
}

/// The result, also the JSON written with `--json`.
#[derive(Debug, Serialize)]
struct Report {
    fen: String,
    depth: u32,
    threads: usize,
    nodes: u64,
    seconds: f64,
    nodes_per_second: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    divide: Option<Vec<MoveCount>>,
}

/// The leaf count below one root move.
#[derive(Debug, Serialize)]
struct MoveCount {
    #[serde(rename = "move")]
    text: String,
    nodes: u64,
}

/// Counts and prints.
pub(crate) fn run(config: &Config, out: &mut dyn Write) -> Result<(), Error> {
    let position = &config.position;
    info!(
        "perft {} of {} on {} thread(s)",
        config.depth,
        position.to_fen(),
        config.threads
    );
    let start = Instant::now();
    let (nodes, rows) = count(position, config.depth, config.threads);
    let elapsed = start.elapsed();
    let report = Report {
        fen: position.to_fen(),
        depth: config.depth,
        threads: config.threads,
        nodes,
        seconds: elapsed.as_secs_f64(),
        nodes_per_second: per_second(nodes, elapsed),
        divide: config.divide.then_some(rows),
    };
    write_report(&report, config.json, out).map_err(Error::stdout)
}

/// The leaf count and its split over the root moves (empty at depth 0), on `threads`
/// threads.
fn count(position: &Position, depth: u32, threads: usize) -> (u64, Vec<MoveCount>) {
    if depth == 0 {
        return (1, Vec::new());
    }
    let progress = Mutex::new(Progress::new());
    let rows = divide_parallel(position, depth, threads, &|done, total| {
        // A thread that finds the display busy skips this update; the next one redraws.
        if let Ok(mut progress) = progress.try_lock() {
            progress.update(|| format!("perft {depth}: {done} of {total} subtrees counted"));
        }
    });
    drop(progress); // erases the line
    let rows: Vec<MoveCount> = rows
        .iter()
        .map(|(mv, nodes)| MoveCount {
            text: position.move_text(mv),
            nodes: *nodes,
        })
        .collect();
    (rows.iter().map(|row| row.nodes).sum(), rows)
}

fn write_report(report: &Report, json: bool, out: &mut dyn Write) -> std::io::Result<()> {
    if json {
        serde_json::to_writer(&mut *out, report)?;
        return writeln!(out);
    }
    if let Some(rows) = &report.divide {
        let width = rows.iter().map(|row| row.text.len()).max().unwrap_or(0);
        for row in rows {
            writeln!(out, "{:<width$}  {}", row.text, row.nodes)?;
        }
        writeln!(out)?;
    }
    writeln!(out, "depth    {}", report.depth)?;
    writeln!(out, "threads  {}", report.threads)?;
    writeln!(out, "nodes    {}", report.nodes)?;
    writeln!(out, "time     {:.3} s", report.seconds)?;
    writeln!(out, "speed    {} nodes/s", report.nodes_per_second)
}

/// Nodes a second, 0 when no measurable time passed.
pub(crate) fn per_second(nodes: u64, elapsed: Duration) -> u64 {
    let seconds = elapsed.as_secs_f64();
    if seconds > 0.0 {
        (nodes as f64 / seconds) as u64
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The split at the root adds up to the published counts (rules.md), and each row is
    /// the rules crate's count below that move.
    #[test]
    fn the_root_split_adds_up_to_the_published_counts() {
        let start = Position::initial();
        for (depth, expected) in [(0, 1), (1, 9), (2, 81), (3, 658), (4, 4_265)] {
            for threads in [1, 2] {
                assert_eq!(count(&start, depth, threads).0, expected, "depth {depth}");
            }
        }
        let (_, rows) = count(&start, 3, 2);
        let divided = damx_rules::divide(&start, 3);
        assert_eq!(rows.len(), divided.len());
        for (row, (mv, nodes)) in rows.iter().zip(divided) {
            assert_eq!(row.text, start.move_text(&mv));
            assert_eq!(row.nodes, nodes);
        }
    }

    /// Speed is nodes over seconds, and no time is no speed rather than a division by zero.
    #[test]
    fn speed_is_nodes_per_second() {
        assert_eq!(per_second(1_000, Duration::from_millis(500)), 2_000);
        assert_eq!(per_second(1_000, Duration::ZERO), 0);
    }
}

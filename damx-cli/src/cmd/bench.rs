//! `damx bench`: the engine's fixed benchmark. Its total node count is the behaviour
//! signature quoted in commit messages when the search or the evaluation changes.
//!
//! The bench runs on its own thread while this one keeps a progress line on a terminal.

use std::io::Write;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use damx_engine::{BenchOptions, BenchReport, EvalParams, bench_with};
use damx_rules::Position;
use serde::Serialize;

use crate::error::Error;
use crate::log::info;
use crate::progress::Progress;

use super::ScoreJson;

/// How to run the bench.
#[derive(Debug)]
pub(crate) struct Config {
    /// The engine's bench settings.
    pub(crate) options: BenchOptions,
    /// The evaluation.
    pub(crate) eval: EvalParams,
    /// Print one JSON object instead of text.
    pub(crate) json: bool,
}

/// The JSON written with `--json`.
#[derive(Serialize)]
struct Report {
    depth: u32,
    threads: usize,
    hash_mb: usize,
    nodes: u64,
    seconds: f64,
    nodes_per_second: u64,
    positions: Vec<Line>,
}

/// One position's result.
#[derive(Serialize)]
struct Line {
    fen: &'static str,
    best_move: Option<String>,
    score: ScoreJson,
    nodes: u64,
    seconds: f64,
}

/// Runs the bench and prints its signature and speed.
pub(crate) fn run(config: &Config, out: &mut dyn Write) -> Result<(), Error> {
    let options = config.options;
    info!(
        "bench at depth {} with {} thread(s) and {} MiB of hash",
        options.depth, options.threads, options.hash_mb
    );
    let (sender, finished) = mpsc::channel();
    let mut progress = Progress::new();
    let start = Instant::now();
    let outcome = std::thread::scope(|scope| {
        let worker = scope.spawn(move || {
            let report = bench_with(&options, &config.eval);
            // The receiver waits for this until the worker ends.
            let _ = sender.send(());
            report
        });
        // Ends when the bench sends its signal, or when it panics (the sender is dropped).
        while let Err(mpsc::RecvTimeoutError::Timeout) =
            finished.recv_timeout(Duration::from_millis(100))
        {
            progress.update(|| {
                format!(
                    "bench at depth {}: {:.1} s",
                    options.depth,
                    start.elapsed().as_secs_f64()
                )
            });
        }
        worker.join()
    });
    progress.clear();
    let report = outcome.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
    write_report(&report, config, out).map_err(Error::stdout)
}

fn write_report(report: &BenchReport, config: &Config, out: &mut dyn Write) -> std::io::Result<()> {
    if config.json {
        let json = Report {
            depth: report.depth,
            threads: config.options.threads,
            hash_mb: config.options.hash_mb,
            nodes: report.nodes,
            seconds: report.elapsed.as_secs_f64(),
            nodes_per_second: report.nodes_per_second,
            positions: report
                .lines
                .iter()
                .map(|line| Line {
                    fen: line.fen,
                    best_move: best_move_text(line.fen, line.best_move),
                    score: line.score.into(),
                    nodes: line.nodes,
                    seconds: line.elapsed.as_secs_f64(),
                })
                .collect(),
        };
        serde_json::to_writer(&mut *out, &json)?;
        return writeln!(out);
    }
    writeln!(
        out,
        "{:>12}  {:>11}  {:<8}  position",
        "nodes", "score", "move"
    )?;
    for line in &report.lines {
        writeln!(
            out,
            "{:>12}  {:>11}  {:<8}  {}",
            line.nodes,
            line.score.to_string(),
            best_move_text(line.fen, line.best_move).unwrap_or_else(|| "-".to_owned()),
            line.fen
        )?;
    }
    writeln!(out)?;
    writeln!(out, "depth    {}", report.depth)?;
    writeln!(out, "nodes    {}", report.nodes)?;
    writeln!(out, "time     {:.3} s", report.elapsed.as_secs_f64())?;
    writeln!(out, "speed    {} nodes/s", report.nodes_per_second)
}

/// A bench move in notation, in the position it was found in.
fn best_move_text(fen: &str, best_move: Option<damx_rules::Move>) -> Option<String> {
    let position: Position = fen.parse().ok()?;
    best_move.map(|mv| position.move_text(&mv))
}

//! `damx bench`: the engine's fixed benchmark. Its total node count is the behaviour
//! signature quoted in commit messages when the search or the evaluation changes.
//!
//! The bench runs on its own thread while this one keeps a progress line on a terminal; the
//! report is damx-engine's [`damx_engine::BenchReport`].

use std::io::Write;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use damx_engine::{BenchOptions, EvalParams, bench_with};

use crate::error::Error;
use crate::log::info;
use crate::progress::Progress;

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
            let seconds = start.elapsed().as_secs_f64();
            progress.update(|| format!("bench at depth {}: {seconds:.1} s", options.depth));
        }
        worker.join()
    });
    progress.clear();
    let report = outcome.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
    super::print(out, &report, config.json)
}

//! `damx bench`: the engine's fixed benchmark. Its total node count is the behaviour
//! signature quoted in commit messages when the search or the evaluation changes.
//!
//! The bench runs on its own thread while this one keeps a progress line on a terminal; the
//! report is damx-engine's [`damx_engine::BenchReport`].

use std::io::Write;
use std::time::Instant;

use crossbeam_channel::Sender;
use damx_engine::bench_with;

use crate::args::BenchArgs;
use crate::error::Error;
use crate::log::info;
use crate::progress::Progress;

/// Runs the bench and prints its signature and speed.
pub(crate) fn run(args: &BenchArgs, out: &mut dyn Write) -> Result<(), Error> {
    let (options, eval) = (args.options(), args.eval.params());
    info!(
        "bench at depth {} with {} thread(s) and {} MiB of hash",
        options.depth, options.threads, options.hash_mb
    );
    let mut progress = Progress::new();
    let start = Instant::now();
    let report = super::in_background(
        |_: &Sender<()>| bench_with(&options, &eval),
        |_| {
            let seconds = start.elapsed().as_secs_f64();
            progress.update(|| format!("bench at depth {}: {seconds:.1} s", options.depth));
        },
    );
    progress.clear();
    super::print(out, &report, args.json)
}

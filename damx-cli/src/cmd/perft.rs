//! `damx perft`: the number of leaf nodes of the legal-move tree, the time and the speed, as
//! damx-engine's [`PerftReport`] counts and writes them; this module keeps a progress line
//! (subtrees counted so far) and prints.

use std::io::Write;
use std::sync::Mutex;

use damx_engine::PerftReport;

use crate::args::PerftArgs;
use crate::error::Error;
use crate::log::info;
use crate::progress::Progress;

/// Counts and prints.
pub(crate) fn run(args: &PerftArgs, out: &mut dyn Write) -> Result<(), Error> {
    let (position, depth, threads) = (&args.position, args.depth, usize::from(args.threads));
    info!("perft {depth} of {position} on {threads} thread(s)");
    let progress = Mutex::new(Progress::new());
    let report = PerftReport::count(position, depth, threads, args.divide, &|done, all| {
        // A thread that finds the display busy skips this update; the next one redraws.
        if let Ok(mut progress) = progress.try_lock() {
            progress.update(|| format!("perft {depth}: {done} of {all} subtrees counted"));
        }
    });
    drop(progress); // erases the line
    super::print(out, &report, args.json)
}

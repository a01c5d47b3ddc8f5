//! `damx perft`: the number of leaf nodes of the legal-move tree, the time and the speed, as
//! damx-engine's [`PerftReport`] counts and writes them; this module keeps a progress line
//! (subtrees counted so far) and prints.

use std::io::Write;
use std::sync::Mutex;

use damx_engine::PerftReport;
use damx_rules::Position;

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

/// Counts and prints.
pub(crate) fn run(config: &Config, out: &mut dyn Write) -> Result<(), Error> {
    let (position, depth) = (&config.position, config.depth);
    info!(
        "perft {depth} of {position} on {} thread(s)",
        config.threads
    );
    let progress = Mutex::new(Progress::new());
    let report = PerftReport::count(
        position,
        depth,
        config.threads,
        config.divide,
        &|done, all| {
            // A thread that finds the display busy skips this update; the next one redraws.
            if let Ok(mut progress) = progress.try_lock() {
                progress.update(|| format!("perft {depth}: {done} of {all} subtrees counted"));
            }
        },
    );
    drop(progress); // erases the line
    super::print(out, &report, config.json)
}

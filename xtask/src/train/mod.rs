//! `cargo xtask train`: the training pipeline of the pattern evaluation, in three stages that
//! each read the previous one's files, so that the expensive first stage can be spread over
//! many machines.
//!
//! - `games`: self-play at a fixed node count from the built-in ballots with a few random
//!   plies, every game played to its end by the rules or, with `--egdb`, until the referee's
//!   judge by the endgame databases gives its result (a quiet position they hold, a win only
//!   where the draw rules' counts cannot stop it); one text line per game. Shard `I/N` plays the games whose global number is `I + N * k`, so shards of one
//!   run have disjoint seeds and openings and write one file each; a file is resumed where
//!   it stopped (its header must match the settings).
//! - `positions`: every quiet position of those games (no capture for the side to move: the
//!   positions the search evaluates), labelled with the game's result, deduplicated over all
//!   input files (the first occurrence is kept), in a compact binary file; optionally each
//!   searched to a node count too, its score kept beside the result, or (`--deviations`)
//!   instead positions one random move off the games' lines, labelled by that score alone.
//! - `fit`: logistic regression of the result on the pattern evaluation over all input files
//!   pooled, with a held-out validation set, an L2 penalty on the region weights that is part
//!   of the minimised loss, and the losses printed per epoch; writes a weights file (the
//!   epoch with the lowest validation loss).
//!
//! Three more stages serve tests of the evaluation: `endings` (start positions from the
//! games), `scale` (the region weights of a file times a factor) and `calibrate` (how sure
//! the evaluation is of the results, by material). Each stage has its file (`scale` is with
//! `fit`, the positions file format with `positions`); this one holds the command line and
//! the helpers they share.
//!
//! Everything is seeded; with one search thread per game and a node limit the same command
//! gives the same files.

mod calibrate;
mod endings;
mod fit;
mod games;
mod positions;
#[cfg(test)]
mod tests;

use std::path::Path;

use anyhow::{Context, bail};
use damx_engine::gauntlet::Rng;

use self::calibrate::calibrate;
use self::endings::endings;
use self::fit::{fit, scale};
use self::games::games;
use self::positions::positions;

pub(crate) const ABOUT: &str = "\
the pattern evaluation's training pipeline (see README,
\"The pattern evaluation and its training\"):
  games: self-play games played to their end, at NODES (default 3000) nodes a move with
    WEIGHTS (default tuned; hand, pattern or a .dxw file), from the ballots plus up to
    RANDOM-PLIES (default 4) random plies; GAMES games (default 1000) for shard I/N (default
    0/1) into DIR/games-SEED-I-of-N.txt (DIR default train/); resumable; THREADS games at once
    (default: every core); with EGDB (a database directory or `default`) the players search
    with the endgame databases and a game ends where they judge it as `damx match
    --adjudicate egdb` does (a quiet position they hold; a win only where the draw rules'
    counts cannot stop it)
  positions: the quiet positions of GAMES-FILEs labelled with each game's result, deduplicated,
    into OUT (a compact binary file); plies before MIN-PLY (default 6) are skipped; with
    LABEL-NODES each position is also searched to that many nodes with WEIGHTS (default tuned)
    on THREADS threads (default: every core), and White's score is kept beside the result
    (resumable: the scores go to OUT.scores as they come); with DEVIATIONS N, OUT holds
    instead positions off the games' lines: from every Nth position, where a random legal
    move leads when that is quiet, labelled by their search score alone (LABEL-NODES needed)
  endings: from each game of GAMES-FILEs, the first quiet position of MIN-PIECES (default 6)
    to PIECES (default 7) pieces, as FEN lines into OUT (openings for `strength --openings`);
    with DECIDED (an endgame database directory or `default`) only those it calls won; with
    BAND (LOW,HIGH) only those that a search of NODES (default 100000) nodes with WEIGHTS
    (default pattern) on THREADS threads scores LOW to HIGH centi-men for one side
  fit: logistic regression of the results of POSITIONS-FILEs (pooled) on the pattern
    evaluation: EPOCHS epochs (default 30) of Adam over batches of BATCH (default 16384) at
    rate LR (default 2) times DECAY (default 0.75) to the power of the epochs before, the
    batches drawn afresh every epoch (SHUFFLE epoch, the default) or once (once), L2
    penalty L2 (default 1e-7) on the region weights, VALIDATION
    (default 0.1) of the positions held out (the last games of the last files); starts from START (builtin, zero or a .dxw file; default builtin, zero on the hand base);
    on BASE (zero, the default: the weights are the whole evaluation; or hand: the regions
    correct the hand evaluation, the globals stay zero);
    with LAMBDA (default 1) below 1 the training positions' targets blend the result
    (LAMBDA) with the prediction of their search scores (1 - LAMBDA), the validation ones stay
    the results, and positions off the games' lines train with their search scores alone
    (never held out); writes OUT (.dxw) with the weights of the best validation epoch, and OUT.log;
    MODEL (regions, the engine's, by default) may add to the regions a second table set for
    the side not to move (tempo; the engine plays it, and a START of two sets needs it) or 18
    regions of two rows by four squares (wide), or both (tempo+wide), or a table of the
    kings' squares (kings, e.g. tempo+kings): wide and kings fit only to compare their loss
    with the engine's model on the same positions, and write OUT.log alone; on the hand base, regions+hand also corrects the hand
    features' weights (all but the man's) and writes them to OUT.hand; --fixed regions keeps
    the region weights at START's and fits the rest alone (the globals, or the hand
    corrections); ANCHOR (default 0) adds a penalty of ANCHOR times the squared distance of
    every region and correction weight from its start value, so that a fit from fitted
    weights on fewer or other games refines them instead of forgetting them
  scale: WEIGHTS (a .dxw file, or builtin) with every region weight times FACTOR, rounded,
    into OUT (.dxw); the globals and the base stay: a test of whether the fitted scale is the
    one the search plays best with
  calibrate: how sure the evaluation with WEIGHTS (default pattern: the engine's) is of the
    results of POSITIONS-FILEs, by material: the positions grouped by which side has kings
    and by how many men the side the evaluation favours is ahead, and for each group the
    scale k that fits its results best as a multiple of the one that fits all positions
    (below 1: the evaluation is too sure there, as in drawish endings; above 1: not sure
    enough), with the loss at both";

pub(crate) const ARGS: &str = "games [--games N] [--nodes N] [--seed N] [--shard I/N] [--dir DIR] [--weights W] \
                               [--random-plies N] [--threads N] [--egdb DIR] | positions --out FILE [--min-ply N] [--label-nodes N] [--weights W] [--threads N] [--deviations N] GAMES-FILE... | \
                               fit --out FILE.dxw [--epochs N] [--batch N] [--lr X] [--decay X] [--shuffle epoch|once] [--l2 X] [--validation X] \
                               [--seed N] [--start S] [--base zero|hand] [--threads N] [--model M] [--lambda X] [--fixed regions] [--anchor X] POSITIONS-FILE... | \
                               endings --out FILE [--pieces N] [--min-pieces N] [--decided DIR] [--band LOW,HIGH [--nodes N] [--weights W] [--threads N]] GAMES-FILE... | \
                               scale --out FILE.dxw --factor X WEIGHTS | \
                               calibrate [--weights W] [--threads N] POSITIONS-FILE...";

pub(crate) fn run(args: &[String]) -> anyhow::Result<()> {
    let Some(stage) = args.first() else {
        bail!("say which stage: games, positions, fit, endings, scale or calibrate");
    };
    let rest = &args[1..];
    match stage.as_str() {
        "games" => games(rest),
        "positions" => positions(rest),
        "fit" => fit(rest),
        "endings" => endings(rest),
        "scale" => scale(rest),
        "calibrate" => calibrate(rest),
        other => {
            bail!("unknown stage `{other}` (games, positions, fit, endings, scale, calibrate)")
        }
    }
}

fn thread_pool(threads: usize) -> anyhow::Result<rayon::ThreadPool> {
    let mut builder = rayon::ThreadPoolBuilder::new();
    if threads > 0 {
        builder = builder.num_threads(threads);
    }
    builder.build().context("cannot start the thread pool")
}

/// A seed from a run's seed and a number (splitmix64 of both).
fn mix(seed: u64, number: u64) -> u64 {
    Rng::new(seed ^ number.wrapping_mul(0x9e37_79b9_7f4a_7c15)).next_u64()
}

fn write_atomically(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let partial = path.with_extension("partial");
    std::fs::write(&partial, bytes)
        .with_context(|| format!("cannot write {}", partial.display()))?;
    std::fs::rename(&partial, path).with_context(|| format!("cannot write {}", path.display()))
}

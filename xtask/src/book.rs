//! `cargo xtask book`: derives a book of slightly unbalanced starts for engine tests.
//!
//! At longer time controls self-play from the balanced ballots ends in nothing but draws (one
//! game in 30 s: `docs/strength.md`), and a test learns nothing from its games. From a start
//! where one side is a little better (a fraction of a man, not a piece) the favoured side can
//! win, and the pentanomial SPRT of `strength` (each start played twice, colours swapped)
//! cancels the imbalance itself. At one game in 10 s the ballots see more, and stay the
//! default.
//!
//! The starts are random lines of a few plies from the start position (seeded, so the book is
//! reproducible), each searched to a fixed depth; a line is kept when its score lies in the
//! window, at most one line per position.

use std::collections::HashSet;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, bail};
use damx_engine::gauntlet::Rng;
use damx_engine::openings::{Ballot, write_ballots};
use damx_rules::{Game, Move, Position};

use crate::args;
use crate::ballots::white_scores;
use crate::players;

pub(crate) const ABOUT: &str = "\
derive a book of slightly unbalanced starts (for `strength --openings FILE`): random lines of
PLIES plies (default 6) from the start, seeded by SEED (default 1), each searched to DEPTH
(default 12); keep COUNT (default 1000) lines whose score, for either side, lies within
LOW..HIGH centi-men (default 25..60), one per position, and write them to OUT as FEN lines";

pub(crate) const ARGS: &str =
    "--out FILE [--plies N] [--window LOW..HIGH] [--depth N] [--count N] [--seed N]";

/// The lines searched in one batch, as a multiple of the starts still wanted.
const BATCH_FACTOR: usize = 4;

/// Batches tried before giving up on a window that keeps (almost) nothing.
const MAX_BATCHES: usize = 20;

pub(crate) fn run(args: &[String]) -> anyhow::Result<()> {
    let mut out = None;
    let (mut plies, mut depth, mut count, mut seed) = (6usize, 12u32, 1000usize, 1u64);
    let (mut low, mut high) = (25i32, 60i32);
    let known = ["out", "plies", "window", "depth", "count", "seed"];
    for (name, value) in args::named(args, &known)? {
        let number = || -> anyhow::Result<u64> {
            value
                .parse()
                .with_context(|| format!("--{name} wants a number, got `{value}`"))
        };
        match name {
            "out" => out = Some(PathBuf::from(value)),
            "plies" => plies = number()?.clamp(1, 40) as usize,
            "depth" => depth = number()?.clamp(1, 40) as u32,
            "count" => count = number()?.clamp(1, 100_000) as usize,
            "seed" => seed = number()?,
            _ => (low, high) = parse_window(value)?,
        }
    }
    let Some(out) = out else {
        bail!("--out FILE is required");
    };

    println!(
        "book: {count} starts of {plies} random plies, depth {depth}, window {low}..{high}, seed {seed}, load {}",
        players::load_average()
    );
    let start = Instant::now();
    let mut rng = Rng::new(seed);
    let mut seen = HashSet::new();
    let mut kept: Vec<(Ballot, i32)> = Vec::new();
    let mut searched = 0usize;
    for _ in 0..MAX_BATCHES {
        if kept.len() >= count {
            break;
        }
        let lines = random_lines(
            &mut rng,
            &mut seen,
            plies,
            (count - kept.len()) * BATCH_FACTOR,
        );
        let games: Vec<Game> = lines.iter().map(Ballot::game).collect();
        let scores = white_scores(&games, depth);
        searched += lines.len();
        for (line, score) in lines.into_iter().zip(scores) {
            if kept.len() < count && (low..=high).contains(&score.abs()) {
                kept.push((line, score));
            }
        }
        println!(
            "book: {} of {count} kept after {searched} lines searched, {:.0?}",
            kept.len(),
            start.elapsed()
        );
    }
    if kept.is_empty() {
        bail!("no line scored within {low}..{high}: widen the window or change the plies");
    }

    let white = kept.iter().filter(|(_, score)| *score > 0).count();
    let header = format!(
        "# Slightly unbalanced starts for engine tests (`cargo xtask strength --openings FILE`),\n\
         # derived by `cargo xtask book --plies {plies} --window {low}..{high} --depth {depth} --count {count} --seed {seed}`:\n\
         # random lines of {plies} plies from the start, searched to depth {depth}, kept when one side is\n\
         # {low} to {high} centi-men better. {} of {searched} lines kept ({white} favour White).\n\
         # Format: FEN # moves from the start.\n",
        kept.len()
    );
    let ballots: Vec<Ballot> = kept.into_iter().map(|(ballot, _)| ballot).collect();
    std::fs::write(&out, header + &write_ballots(&ballots))
        .with_context(|| format!("cannot write {}", out.display()))?;
    println!(
        "book: wrote {} starts to {} in {:.0?}",
        ballots.len(),
        out.display(),
        start.elapsed()
    );
    Ok(())
}

/// `LOW..HIGH` in centi-men, `0 <= LOW <= HIGH`.
fn parse_window(text: &str) -> anyhow::Result<(i32, i32)> {
    args::centi_men_range("window", text, "..")
}

/// Up to `wanted` random lines of `plies` plies from the start, each reaching a position not
/// in `seen` (which they are added to). A line that reaches the end of the game early is
/// dropped.
fn random_lines(
    rng: &mut Rng,
    seen: &mut HashSet<Position>,
    plies: usize,
    wanted: usize,
) -> Vec<Ballot> {
    let mut lines = Vec::new();
    // Bounded: a small opening tree (few plies) can run out of new positions.
    for _ in 0..wanted * 20 {
        if lines.len() == wanted {
            break;
        }
        let mut position = Position::initial();
        let mut moves: Vec<Move> = Vec::with_capacity(plies);
        while moves.len() < plies {
            let legal = position.legal_moves();
            if legal.is_empty() {
                break;
            }
            let mv = legal[rng.below(legal.len())];
            position = position.play(&mv);
            moves.push(mv);
        }
        if moves.len() == plies && position.has_legal_move() && seen.insert(position) {
            lines.push(Ballot { position, moves });
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The window reads as two bounds and refuses reversed, negative or malformed ones.
    #[test]
    fn window_syntax() {
        assert_eq!(parse_window("25..60").unwrap(), (25, 60));
        assert_eq!(parse_window("0..0").unwrap(), (0, 0));
        for bad in ["60..25", "-5..10", "25", "a..b", "25..", ""] {
            assert!(parse_window(bad).is_err(), "{bad}");
        }
    }

    /// Lines are seeded (the same seed draws the same lines), have the asked length, lead to
    /// distinct positions that are not over, and replay to the position they name.
    #[test]
    fn random_lines_are_reproducible_and_distinct() {
        let draw = |seed| random_lines(&mut Rng::new(seed), &mut HashSet::new(), 6, 50);
        let lines = draw(7);
        assert_eq!(lines, draw(7));
        assert_ne!(lines, draw(8));
        assert_eq!(lines.len(), 50);
        let positions: HashSet<_> = lines.iter().map(|line| line.position).collect();
        assert_eq!(positions.len(), lines.len());
        for line in &lines {
            assert_eq!(line.moves.len(), 6);
            assert!(line.position.has_legal_move());
            assert_eq!(line.game().position(), &line.position);
        }
    }

    /// A shallow search scores a position where White is a man up as better for White, with
    /// White or Black to move.
    #[test]
    fn scores_are_from_whites_side() {
        let games: Vec<Game> = ["W:W31,32,33,34,35:B1,2,3,4", "B:W31,32,33,34,35:B1,2,3,4"]
            .iter()
            .map(|fen| Game::new(Position::from_fen(fen).unwrap()))
            .collect();
        let scores = white_scores(&games, 4);
        assert!(scores.iter().all(|score| *score > 50), "{scores:?}");
    }
}

//! `cargo xtask ballots`: derives the engine's built-in opening ballots.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use anyhow::Context;
use damx_engine::openings::{Ballot, write_ballots};
use damx_engine::{Engine, EngineOptions, Limits, StopSignal};
use damx_rules::{Color, Game, Position};

use crate::args;
use crate::players;

pub(crate) const ABOUT: &str = "\
derive the opening ballots: every sequence of 2 and 3 plies from the start position, one per
resulting position, searched to DEPTH (default 12); keep those whose score is within WINDOW
centi-men of equal (default 20) and write them to damx-engine/data/ballots.txt";

pub(crate) const ARGS: &str = "[--depth N] [--window CENTI-MEN]";

pub(crate) fn run(args: &[String]) -> anyhow::Result<()> {
    let mut depth = 12u32;
    let mut window = 20i32;
    for (name, value) in args::named(args, &["depth", "window"])? {
        let number: i64 = value
            .parse()
            .with_context(|| format!("--{name} wants a number, got `{value}`"))?;
        match name {
            "depth" => depth = number.clamp(1, 40) as u32,
            _ => window = number.clamp(0, 1000) as i32,
        }
    }

    let candidates = sequences();
    println!(
        "ballots: {} distinct positions after 2 and 3 plies, depth {depth}, window {window}, load {}",
        candidates.len(),
        players::load_average()
    );
    let start = Instant::now();
    let games: Vec<Game> = candidates.iter().map(Ballot::game).collect();
    let scores = white_scores(&games, depth);
    let total = candidates.len();
    let kept: Vec<Ballot> = candidates
        .into_iter()
        .zip(&scores)
        .filter(|(_, score)| score.abs() <= window)
        .map(|(ballot, _)| ballot)
        .collect();
    let two = kept.iter().filter(|b| b.moves.len() == 2).count();
    let header = format!(
        "# Opening ballots for damx-engine, derived by `cargo xtask ballots --depth {depth} --window {window}`:\n\
         # every 2- and 3-ply sequence from the start (one per position), searched to depth {depth};\n\
         # kept if the score is within {window} centi-men of equal. {} of {} positions ({two} after 2 plies).\n\
         # Format: FEN # moves from the start.\n",
        kept.len(),
        total
    );
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../damx-engine/data/ballots.txt");
    std::fs::write(&path, header + &write_ballots(&kept))
        .with_context(|| format!("cannot write {}", path.display()))?;
    let mut histogram = [0usize; 7];
    for score in &scores {
        histogram[(score.unsigned_abs() as usize / 10).min(6)] += 1;
    }
    println!("|score| by 10 centi-men: {histogram:?}");
    println!(
        "kept {} ({two} of 2 plies) in {:.0?}; wrote {}",
        kept.len(),
        start.elapsed(),
        path.display()
    );
    Ok(())
}

/// The score of each game's last position from White's side, searched to `depth` with a
/// fresh table on every core (so the same games always get the same scores).
pub(crate) fn white_scores(games: &[Game], depth: u32) -> Vec<i32> {
    let next = AtomicUsize::new(0);
    let scores = Mutex::new(vec![0i32; games.len()]);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    std::thread::scope(|scope| {
        for _ in 0..cores {
            scope.spawn(|| {
                let mut engine = Engine::new(EngineOptions {
                    hash_mb: 32,
                    ..EngineOptions::default()
                });
                let stop = StopSignal::new();
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(game) = games.get(index) else {
                        break;
                    };
                    engine.new_game();
                    let result = engine.search(game, &Limits::depth(depth), &stop, &mut |_| {});
                    let white = match game.position().side_to_move() {
                        Color::White => result.score.value(),
                        Color::Black => -result.score.value(),
                    };
                    scores.lock().unwrap_or_else(|e| e.into_inner())[index] = white;
                }
            });
        }
    });
    scores.into_inner().unwrap_or_else(|e| e.into_inner())
}

/// Every 2- and 3-ply sequence from the start as a ballot, in move-generation order, keeping
/// the first sequence that reaches each position.
fn sequences() -> Vec<Ballot> {
    let mut seen = HashSet::new();
    let mut found = Vec::new();
    for plies in [2, 3] {
        let mut stack = vec![(Position::initial(), Vec::new())];
        while let Some((position, moves)) = stack.pop() {
            if moves.len() == plies {
                if seen.insert(position) {
                    found.push(Ballot { position, moves });
                }
                continue;
            }
            // Reversed so that the stack pops in generation order.
            for mv in position.legal_moves().iter().rev() {
                let mut longer = moves.clone();
                longer.push(*mv);
                stack.push((position.play(mv), longer));
            }
        }
    }
    found
}

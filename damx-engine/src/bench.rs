//! The bench: a fixed set of positions searched to a fixed depth. Its total node count is the
//! engine's behaviour signature (any change to search or evaluation changes it); its speed is
//! the engine's nodes a second.

use std::time::{Duration, Instant};

use damx_rules::{Game, Move, Position};

use crate::engine::{Engine, EngineOptions, per_second};
use crate::eval::EvalParams;
use crate::limits::{Limits, StopSignal};
use crate::score::Score;

/// The bench positions (FEN): the start, the Woldouby position, openings, middle games and
/// endings from games between early versions of the engine, and two endings with kings.
pub const BENCH_POSITIONS: &[&str] = &[
    "W:W31-50:B1-20",
    // Woldouby, the classic perft position.
    "W:B12,13,14,16,18,19,21,23,24,26:W25,27,28,30,32,33,34,35,37,38",
    // From games between early versions of the engine.
    "W:W26,27,29,31,32,33,34,35,38,39,40,41,42,43,44,46,47,48,49,50:B1,2,3,4,6,7,8,9,10,12,13,14,15,16,17,18,20,22,23,24",
    "W:W24,27,32,34,36,37,38,39,40,41,42,43,44,46,47,48,49,50:B1,2,3,4,6,7,8,9,10,11,12,13,14,15,16,17,23,25",
    "W:W26,27,31,32,34,35,37,40,42,44,46,47,48,49,50:B1,2,3,4,7,8,9,10,11,12,16,17,18,19,24",
    "W:W23,26,28,29,32,33,35,38,39,40,42,43,44,47,48,49:B2,3,7,9,12,14,15,16,17,18,19,20,21,22,24,25",
    "W:W26,27,31,32,33,34,37,39,42,43,45,47,48:B2,3,4,6,7,8,12,15,16,17,18,19,21",
    "W:W28,29,33,34,38,39,41,43,44,47,48,49:B2,3,9,12,14,15,16,17,18,20,25,35",
    "W:W26,27,28,30,31,32,33,35,37,38,39,48:B2,3,6,8,13,16,17,18,19,21,23,24",
    "W:W16,24,25,26,32,36:B7,11,13,14,18,22",
    // Endings with kings.
    "B:W28,32,37,38,K46:B11,12,17,K5",
    "W:WK46,K50,33:BK3,16,27",
];

/// The default bench depth.
pub const BENCH_DEPTH: u32 = 12;

/// How to run the bench.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BenchOptions {
    /// Depth for every position.
    pub depth: u32,
    /// Search threads (the node count is a signature only with one).
    pub threads: usize,
    /// Transposition table size in MiB.
    pub hash_mb: usize,
}

impl Default for BenchOptions {
    fn default() -> BenchOptions {
        BenchOptions {
            depth: BENCH_DEPTH,
            threads: 1,
            hash_mb: 16,
        }
    }
}

/// One bench position's result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BenchLine {
    /// The position, as given.
    pub fen: String,
    /// The move found.
    pub best_move: Option<Move>,
    /// Its score.
    pub score: Score,
    /// Nodes searched.
    pub nodes: u64,
    /// Time taken.
    pub elapsed: Duration,
}

/// The bench result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BenchReport {
    /// The options it ran with.
    pub options: BenchOptions,
    /// Per position.
    pub lines: Vec<BenchLine>,
    /// The depth searched.
    pub depth: u32,
    /// Total nodes: the behaviour signature (with one thread).
    pub nodes: u64,
    /// Total time.
    pub elapsed: Duration,
    /// Nodes a second over the whole bench.
    pub nodes_per_second: u64,
}

/// Searches every [`BENCH_POSITIONS`] entry to `options.depth` with a fresh table and history
/// each (so that one thread gives the same node count every run), with the default weights.
pub fn bench(options: &BenchOptions) -> BenchReport {
    bench_with(options, &EvalParams::default())
}

/// [`bench()`] with the evaluation `eval` (the signature of another weight set or evaluation).
pub fn bench_with(options: &BenchOptions, eval: &EvalParams) -> BenchReport {
    let engine = EngineOptions {
        threads: options.threads,
        hash_mb: options.hash_mb,
        eval: eval.clone(),
        ..EngineOptions::default()
    };
    bench_positions(&engine, options.depth, BENCH_POSITIONS)
}

/// The bench on other positions with any engine settings: each FEN of `fens` searched to
/// `depth` with a fresh table and history, to compare search variants by their time to depth
/// (a FEN that is not a position is skipped; check them first to report them).
pub fn bench_positions<S: AsRef<str>>(
    engine: &EngineOptions,
    depth: u32,
    fens: &[S],
) -> BenchReport {
    let options = BenchOptions {
        depth,
        threads: engine.threads,
        hash_mb: engine.hash_mb,
    };
    let mut engine = Engine::new(engine.clone());
    let stop = StopSignal::new();
    let limits = Limits::depth(depth);
    let start = Instant::now();
    let mut lines = Vec::with_capacity(fens.len());
    for fen in fens.iter().map(AsRef::as_ref) {
        let Ok(position) = fen.parse::<Position>() else {
            continue;
        };
        engine.new_game();
        let result = engine.search(&Game::new(position), &limits, &stop, &mut |_| {});
        lines.push(BenchLine {
            fen: fen.to_string(),
            best_move: result.best_move,
            score: result.score,
            nodes: result.nodes,
            elapsed: result.elapsed,
        });
    }
    let elapsed = start.elapsed();
    let nodes = lines.iter().map(|line| line.nodes).sum();
    BenchReport {
        options,
        lines,
        depth,
        nodes,
        elapsed,
        nodes_per_second: per_second(nodes, elapsed),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every bench position is a valid position with a move to make.
    #[test]
    fn bench_positions_are_playable() {
        for fen in BENCH_POSITIONS {
            let position: Position = fen.parse().unwrap_or_else(|e| panic!("{fen}: {e}"));
            assert!(position.has_legal_move(), "{fen}");
        }
    }
}

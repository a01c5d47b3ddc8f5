//! A parallel alpha-beta search and evaluation for international draughts.
//!
//! `damx-engine` takes a game from `damx-rules`, searches its current position within the
//! [`Limits`] it is given and returns plain data: a [`SearchResult`] with the best move, its
//! [`Score`] and the principal variation. It knows nothing of DXP or sockets and never prints;
//! progress goes to an observer as [`Progress`] reports, and a [`StopSignal`] ends a search
//! from any thread within a few milliseconds.
//!
//! - [`Engine`] owns the shared transposition table and the search threads (Lazy SMP on a
//!   rayon pool; with one thread a search to a given depth is deterministic).
//! - The search: iterative deepening, principal-variation alpha-beta with aspiration windows,
//!   a quiescence that searches pending captures (a position with a capture is never
//!   evaluated statically), move ordering by table move, killers and history, late-move
//!   reductions, ProbCut, a singular extension, an internal iterative reduction, an extension
//!   for forced moves, static pruning near the horizon, and the draw rules of
//!   [`damx_rules::Game`].
//! - [`evaluate`]: the static evaluation; [`eval`] describes its features and weights, and
//!   [`pattern`] the pattern evaluation (region tables fitted to game results, weights as a
//!   file) that [`EvalParams::with_patterns`] selects.
//! - [`egdb`]: endgame databases: building them by retrograde analysis, probing, verifying.
//! - [`bench()`]: the fixed-depth bench whose node count is the behaviour signature.
//! - [`openings`]: the built-in balanced 2- and 3-ply ballots (derived by `cargo xtask
//!   ballots`), for matches and tournaments.
//! - [`perft`]: perft and divide on several threads (the rules' perft, split over a rayon
//!   pool).
//! - [`endings`]: a test set of won endings and their conversion in self-play by the rules.
//! - [`gauntlet`]: players (the engine, a random mover, a one-ply material player), one game
//!   between two of them, and the Elo estimate of a match; `cargo xtask strength` runs
//!   matches with them.
//! - What a front end shows, as plain data with `Display` (and `Serialize` with the feature
//!   `serde`): [`AnalysisLine`] (a line per completed depth, then the result), the
//!   [`BenchReport`], a [`PerftReport`]; the databases' reports are in [`egdb`].
//!
//! ```
//! use damx_engine::{Engine, EngineOptions, Limits, StopSignal};
//! use damx_rules::Game;
//!
//! let mut engine = Engine::new(EngineOptions { hash_mb: 4, ..EngineOptions::default() });
//! let game = Game::default();
//! let result = engine.search(&game, &Limits::depth(4), &StopSignal::new(), &mut |progress| {
//!     assert!(progress.depth <= 4);
//! });
//! let best = result.best_move.expect("the start position has moves");
//! assert!(game.position().is_legal(&best));
//! assert_eq!(result.depth, 4);
//! println!("{best} {}", result.score);
//! ```
#![deny(unsafe_code)]

mod bench;
mod board;
pub mod egdb;
mod endgame;
pub mod endings;
mod engine;
pub mod eval;
mod features;
mod files;
pub mod gauntlet;
mod hints;
mod limits;
pub mod openings;
pub mod pattern;
pub mod perft;
mod report;
mod score;
mod search;
mod tt;
mod weights;

pub use bench::{
    BENCH_DEPTH, BENCH_POSITIONS, BenchLine, BenchOptions, BenchReport, bench, bench_positions,
    bench_with,
};
pub use engine::{Engine, EngineOptions, MAX_CONTEMPT, Progress, SearchResult};
pub use eval::{EvalKind, EvalParams, evaluate_with};
pub use features::SearchFeatures;
pub use limits::{Clock, DEFAULT_PACE, Limits, StopSignal};
pub use report::{AnalysisLine, MoveCount, PerftReport};
pub use score::Score;
pub use search::MAX_DEPTH;

use damx_rules::Position;

/// The static evaluation of `position` with the default weights, from the side to move (for
/// analysis and tuning; the search evaluates only quiet positions).
pub fn evaluate(position: &Position) -> Score {
    eval::evaluate_with(position, &EvalParams::default())
}

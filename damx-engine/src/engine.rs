//! The engine: options, the transposition table and the threads, and one search call.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use damx_rules::{Game, Move};

use crate::egdb::play::{Probing, SharedEgdb};
use crate::eval::EvalParams;
use crate::features::SearchFeatures;
use crate::limits::{DEFAULT_PACE, Limits, Pacer, StopSignal, TimePlan};
use crate::score::Score;
use crate::search::{Completed, IterationReport, MAX_DEPTH, Shared, Worker};
use crate::tt::TranspositionTable;

/// How an [`Engine`] is set up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineOptions {
    /// Search threads (at least 1; 0 counts as 1). With one thread the search is
    /// deterministic for a given depth.
    pub threads: usize,
    /// Transposition table size in MiB (rounded down to a power of two of 64-byte buckets).
    pub hash_mb: usize,
    /// Evaluation weights.
    pub eval: EvalParams,
    /// Search techniques that can be switched off, to measure what each is worth.
    pub search: SearchFeatures,
    /// Endgame databases to probe (none: the search works without).
    pub egdb: Option<SharedEgdb>,
    /// On a game clock, the percent of a move's share of the time left after which no new
    /// iteration starts ([`DEFAULT_PACE`]; lower plays faster and keeps more time back).
    pub pace: u32,
    /// How much worse than zero, in centi-men, the engine counts a draw for the side it
    /// searches for (the side to move at the root), and how much better for its opponent:
    /// positive contempt avoids draws (repetitions, the draw rules, drawn database endings)
    /// where an alternative scores no more than this below zero, as against a weaker
    /// opponent; negative seeks them. 0 (the default) scores every draw zero. Clamped to
    /// [`MAX_CONTEMPT`] either way.
    pub contempt: i32,
}

/// The largest [`EngineOptions::contempt`], either way: one man.
pub const MAX_CONTEMPT: i32 = 100;

impl Default for EngineOptions {
    /// One thread, 64 MiB, the default evaluation, every search technique on, no databases.
    fn default() -> EngineOptions {
        EngineOptions {
            threads: 1,
            hash_mb: 64,
            eval: EvalParams::default(),
            search: SearchFeatures::default(),
            egdb: None,
            pace: DEFAULT_PACE,
            contempt: 0,
        }
    }
}

/// A report after each completed iteration, for display.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Progress {
    /// The depth just completed.
    pub depth: u32,
    /// Its score, from the side to move at the root.
    pub score: Score,
    /// Nodes searched so far (all threads).
    pub nodes: u64,
    /// Nodes a second so far.
    pub nodes_per_second: u64,
    /// Time since the search started.
    pub elapsed: Duration,
    /// The principal variation, starting with the best move.
    pub pv: Vec<Move>,
    /// Transposition table use by this search, in per mille (sampled).
    pub hash_permille: u32,
}

/// What a search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchResult {
    /// The move to play; `None` only when the side to move has no legal move.
    pub best_move: Option<Move>,
    /// The score of the move, from the side to move.
    pub score: Score,
    /// The last completed depth (0 if stopped before the first iteration completed).
    pub depth: u32,
    /// Nodes searched (all threads).
    pub nodes: u64,
    /// Time taken.
    pub elapsed: Duration,
    /// The principal variation, starting with the best move.
    pub pv: Vec<Move>,
}

/// A draughts engine: a transposition table, the search threads and their memory.
///
/// One `Engine` plays one game at a time; call [`Engine::new_game`] between games.
pub struct Engine {
    options: EngineOptions,
    tt: TranspositionTable,
    workers: Vec<Worker>,
    /// Helper threads for parallel search (`threads - 1` of them); `None` with one thread.
    pool: Option<rayon::ThreadPool>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("options", &self.options)
            .field("hash_bytes", &self.tt.bytes())
            .field("threads", &self.workers.len())
            .finish()
    }
}

impl Engine {
    /// An engine with `options`. If the helper threads cannot be started, it searches with
    /// one thread ([`Engine::threads`] tells).
    pub fn new(mut options: EngineOptions) -> Engine {
        options.threads = options.threads.max(1);
        options.contempt = options.contempt.clamp(-MAX_CONTEMPT, MAX_CONTEMPT);
        let pool = if options.threads > 1 {
            rayon::ThreadPoolBuilder::new()
                .num_threads(options.threads - 1)
                .thread_name(|i| format!("damx-search-{}", i + 1))
                .build()
                .ok()
        } else {
            None
        };
        let threads = if pool.is_some() { options.threads } else { 1 };
        let tt = TranspositionTable::new(options.hash_mb);
        if tt.shrunk() {
            // What the system gave, where it refused as much as asked for.
            options.hash_mb = (tt.bytes() >> 20).max(1);
        }
        Engine {
            tt,
            workers: (0..threads).map(|_| Worker::new()).collect(),
            pool,
            options,
        }
    }

    /// The options the engine was made with.
    pub fn options(&self) -> &EngineOptions {
        &self.options
    }

    /// The threads that actually search.
    pub fn threads(&self) -> usize {
        self.workers.len()
    }

    /// Forgets everything learnt in the previous game (table, killers, history), so that the
    /// next search behaves as in a fresh engine.
    pub fn new_game(&mut self) {
        self.tt.clear();
        for worker in &mut self.workers {
            worker.clear();
        }
    }

    /// Searches the position at the end of `game` (its history gives repetitions and the
    /// draw-rule counters). Returns when a limit is reached or `stop` is raised (then within a
    /// few milliseconds, with the best move found so far). `observer` hears of every completed
    /// iteration. Never prints.
    pub fn search(
        &mut self,
        game: &Game,
        limits: &Limits,
        stop: &StopSignal,
        observer: &mut dyn FnMut(&Progress),
    ) -> SearchResult {
        let start = Instant::now();
        self.tt.new_search();
        let root_moves = game.position().legal_moves();
        let mut max_depth = limits.depth.unwrap_or(MAX_DEPTH).clamp(1, MAX_DEPTH);
        let timed = limits.move_time.is_some() || limits.clock.is_some();
        if root_moves.len() == 1 && timed && limits.depth.is_none() {
            // A forced move: answer at once, with a shallow score.
            max_depth = 1;
        }
        let pieces = game.position().occupied().count();
        let solved = match &self.options.egdb {
            Some(egdb) if self.options.search.database_time => egdb.max_pieces(),
            _ => 0,
        };
        let plan = TimePlan::with_pace(
            limits,
            pieces,
            solved,
            self.options.search.adaptive_time,
            self.options.pace,
        );
        let mut pacer = plan.soft.filter(|_| plan.adaptive).map(Pacer::new);
        let mut previous_best: Option<Move> = None;
        let shared = Shared {
            tt: &self.tt,
            stop,
            abort: AtomicBool::new(false),
            start,
            plan,
            node_limit: limits.nodes,
            nodes: AtomicU64::new(0),
            params: &self.options.eval,
            features: &self.options.search,
            egdb: Probing::new(
                self.options.egdb.as_deref(),
                game.position(),
                self.options.search.database_progress,
            ),
            parallel: self.workers.len() > 1,
            draw: Shared::draw_scores(game.position(), self.options.contempt),
            key_salt: Shared::key_salt(game.position(), self.options.contempt),
        };
        let tt = &self.tt;
        let mut on_iteration = |worker: &Worker, report: &IterationReport<'_>| {
            let elapsed = shared.elapsed();
            let nodes = shared.nodes.load(Ordering::Relaxed).max(worker.nodes());
            observer(&Progress {
                depth: report.depth,
                score: Score(report.score),
                nodes,
                nodes_per_second: per_second(nodes, elapsed),
                elapsed,
                pv: report.pv.to_vec(),
                hash_permille: tt.permille_full(),
            });
            // Past the soft limit another iteration would not finish in time.
            let best = report.pv.first().copied();
            let soft = match pacer.as_mut() {
                Some(pacer) => {
                    let changed = previous_best.is_some() && best != previous_best;
                    Some(pacer.update(report.depth, changed, report.score))
                }
                None => plan.soft,
            };
            previous_best = best;
            let past_soft = soft.is_some_and(|soft| elapsed >= soft);
            let proven = Score(report.score)
                .plies_to_end()
                .is_some_and(|plies| plies.unsigned_abs() < report.depth)
                && limits.depth.is_none();
            if past_soft || proven {
                shared.abort.store(true, Ordering::Relaxed);
            }
        };

        let (main, helpers) = self
            .workers
            .split_first_mut()
            .expect("an engine has at least one worker");
        let completed: Completed = match &self.pool {
            Some(pool) if !helpers.is_empty() => pool.in_place_scope(|scope| {
                for (index, helper) in helpers.iter_mut().enumerate() {
                    let shared = &shared;
                    let mut game = game.clone();
                    scope.spawn(move |_| {
                        helper.think(shared, &mut game, index + 1, max_depth, &mut |_, _| {});
                    });
                }
                let completed =
                    main.think(&shared, &mut game.clone(), 0, max_depth, &mut on_iteration);
                shared.abort.store(true, Ordering::Relaxed);
                completed
            }),
            _ => main.think(&shared, &mut game.clone(), 0, max_depth, &mut on_iteration),
        };
        let nodes = shared.nodes.load(Ordering::Relaxed);
        SearchResult {
            best_move: completed.best_move,
            score: if completed.best_move.is_some() {
                Score(completed.score)
            } else {
                Score::loss_in(0)
            },
            depth: completed.depth,
            nodes,
            elapsed: start.elapsed(),
            pv: completed.pv,
        }
    }
}

/// Nodes a second, without dividing by zero.
pub(crate) fn per_second(nodes: u64, elapsed: Duration) -> u64 {
    let micros = elapsed.as_micros().max(1);
    (u128::from(nodes) * 1_000_000 / micros).min(u128::from(u64::MAX)) as u64
}

//! The search of one thread: iterative deepening, principal-variation alpha-beta with
//! aspiration windows, a capture quiescence, and move ordering by the transposition table,
//! killers and history. Late quiet moves are searched with reduced depth first (one ply, two
//! for the latest at non-PV nodes), a single legal move does not use up depth, and near the
//! horizon quiet positions whose evaluation is far outside the window are cut; ProbCut (a
//! shallower search that beats beta by a margin cuts a deep non-PV node) cuts too, and a
//! singular extension searches the table's move a ply deeper when no other move comes near it
//! (each of these is a switch in [`SearchFeatures`](crate::SearchFeatures), measured in
//! self-play).
//!
//! The search plays and takes back moves on a [`Game`], so that the rules crate decides
//! repetitions, the 25-move rule and the endgame rules. Inside the tree a position that occurred
//! before counts as a draw at once (repeating it further cannot gain anything). A draw scores
//! zero, or with contempt ([`EngineOptions::contempt`](crate::EngineOptions::contempt)) below
//! zero for the side to move at the root and above for its opponent. Each thread keeps the
//! evaluations of recent positions, by their key, to reuse them.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use damx_rules::{
    Color, DrawReason, ENDGAME5_DRAW_PLIES, ENDGAME16_DRAW_PLIES, Game, KING_MOVES_DRAW_PLIES,
    Move, MoveList, Position,
};

use crate::board;
use crate::egdb::play as egdb;
use crate::endgame;
use crate::eval::{EvalParams, evaluate_raw};
use crate::features::SearchFeatures;
use crate::limits::{StopSignal, TimePlan};
use crate::score::Score;
use crate::tt::{Bound, Entry, MoveCode, TranspositionTable};

/// The deepest ply the search reaches (extensions included).
pub(crate) const MAX_PLY: usize = 128;
/// The deepest iteration: a search limited to a greater depth ([`crate::Limits::depth`]) stops
/// here.
pub const MAX_DEPTH: u32 = 100;

const INFINITY: i32 = Score::WIN.0 + 1;
const WIN: i32 = Score::WIN.0;
/// Scores beyond this are wins or losses (adjusted by ply in the table).
const DECISIVE: i32 = WIN - Score::MAX_PLIES;

/// ProbCut: the least depth it is tried at, the plies its search is shallower, and the margin
/// above beta it must beat (centi-men).
const PROBCUT_MIN_DEPTH: i32 = 6;
const PROBCUT_REDUCTION: i32 = 4;
const PROBCUT_MARGIN: i32 = 100;

/// Singular extension: the least depth it is tried at, and the margin below the table's score
/// (centi-men a ply of depth) that every other move must fall short of.
const SINGULAR_MIN_DEPTH: i32 = 8;
const SINGULAR_MARGIN: i32 = 3;

/// How often (in nodes) a thread looks at the clock and the stop flags.
const POLL_INTERVAL: u64 = 1024;

/// What all threads of one search share.
pub(crate) struct Shared<'a> {
    pub(crate) tt: &'a TranspositionTable,
    pub(crate) stop: &'a StopSignal,
    /// Raised when the search must end (limit reached, caller's stop, main thread done).
    pub(crate) abort: AtomicBool,
    pub(crate) start: Instant,
    pub(crate) plan: TimePlan,
    pub(crate) node_limit: Option<u64>,
    /// Nodes of all threads, published every [`POLL_INTERVAL`] nodes.
    pub(crate) nodes: AtomicU64,
    pub(crate) params: &'a EvalParams,
    pub(crate) features: &'a SearchFeatures,
    /// Endgame databases, probed at quiet nodes within their piece count.
    pub(crate) egdb: Option<egdb::Probing<'a>>,
    /// Whether more than one thread searches (then node limits are approximate).
    pub(crate) parallel: bool,
    /// The score of a draw for White and for Black to move (see
    /// [`EngineOptions::contempt`](crate::EngineOptions::contempt)): zero for both without
    /// contempt.
    pub(crate) draw: [i32; 2],
    /// Mixed into every table key: with contempt, a search for Black keeps its scores apart
    /// from one for White (their draws score differently); zero otherwise.
    pub(crate) key_salt: u64,
}

impl Shared<'_> {
    pub(crate) fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// The draw scores of a search from `root` with `contempt`: the side to move at the root
    /// counts a draw `contempt` below zero, its opponent as much above.
    pub(crate) fn draw_scores(root: &Position, contempt: i32) -> [i32; 2] {
        let mut draw = [contempt; 2];
        draw[side_index(root.side_to_move())] = -contempt;
        draw
    }

    /// The [`Shared::key_salt`] of a search from `root` with `contempt`.
    pub(crate) fn key_salt(root: &Position, contempt: i32) -> u64 {
        if contempt != 0 && root.side_to_move() == Color::Black {
            mix(0x636f_6e74_656d_7074)
        } else {
            0
        }
    }

    /// The score of a draw for the side to move in `position`.
    #[inline(always)]
    fn draw_score(&self, position: &Position) -> i32 {
        self.draw[side_index(position.side_to_move())]
    }

    /// A database `score` of `position` with a draw given its contempt score.
    #[inline(always)]
    fn database_score(&self, position: &Position, score: i32) -> i32 {
        if score == Score::DRAW.value() {
            self.draw_score(position)
        } else {
            score
        }
    }
}

/// The result of the iterations a thread completed.
#[derive(Clone, Debug)]
pub(crate) struct Completed {
    pub(crate) best_move: Option<Move>,
    pub(crate) score: i32,
    pub(crate) depth: u32,
    pub(crate) pv: Vec<Move>,
}

/// One iteration's report to the engine (main thread only).
pub(crate) struct IterationReport<'a> {
    pub(crate) depth: u32,
    pub(crate) score: i32,
    pub(crate) pv: &'a [Move],
}

/// The state a search thread keeps between searches of one game.
pub(crate) struct Worker {
    killers: Vec<[Option<Move>; 2]>,
    /// `history[color][from][to]` (square indices), for quiet moves.
    history: Vec<i32>,
    lists: Vec<MoveList>,
    /// Ordering scores of the moves at each ply, parallel to `lists`.
    order: Vec<Vec<i32>>,
    pv: Vec<[Option<Move>; MAX_PLY + 1]>,
    pv_len: Vec<usize>,
    nodes: u64,
    published: u64,
    aborted: bool,
    /// The depth of the current iteration.
    root_depth: u32,
    /// A move of the current iteration that beat the previous best move.
    root_change: Option<Completed>,
    reductions: [[u8; 64]; 64],
    /// Evaluations of recent positions (see [`EvalCache`]).
    evals: EvalCache,
    /// Whether a ProbCut search is under way (the scaled form tries none inside another).
    in_probcut: bool,
}

const HISTORY_MAX: i32 = 1 << 16;

impl Worker {
    pub(crate) fn new() -> Worker {
        let mut reductions = [[0u8; 64]; 64];
        for (depth, row) in reductions.iter_mut().enumerate().skip(1) {
            for (index, r) in row.iter_mut().enumerate().skip(1) {
                let value = 0.25 + (depth as f64).ln() * (index as f64).ln() / 2.5;
                *r = value.max(0.0) as u8;
            }
        }
        Worker {
            killers: vec![[None; 2]; MAX_PLY + 1],
            history: vec![0; 2 * 50 * 50],
            lists: (0..=MAX_PLY).map(|_| MoveList::new()).collect(),
            order: (0..=MAX_PLY).map(|_| Vec::with_capacity(128)).collect(),
            pv: vec![[None; MAX_PLY + 1]; MAX_PLY + 1],
            pv_len: vec![0; MAX_PLY + 1],
            nodes: 0,
            published: 0,
            aborted: false,
            root_depth: 0,
            root_change: None,
            reductions,
            evals: EvalCache::new(),
            in_probcut: false,
        }
    }

    /// Forgets killers and history (a new game).
    pub(crate) fn clear(&mut self) {
        self.killers.fill([None; 2]);
        self.history.fill(0);
    }

    /// Nodes searched in the current search.
    pub(crate) fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Runs iterative deepening on `game` until `max_depth` or an abort; `helper` threads
    /// (index > 0) start one ply deeper on odd indices so that the threads spread over depths.
    /// `report` is called after each completed iteration.
    pub(crate) fn think(
        &mut self,
        shared: &Shared<'_>,
        game: &mut Game,
        thread: usize,
        max_depth: u32,
        report: &mut dyn FnMut(&Worker, &IterationReport<'_>),
    ) -> Completed {
        self.nodes = 0;
        self.published = 0;
        self.aborted = false;
        // The evaluation's weights may differ from the last search's.
        self.evals.clear();
        for killers in &mut self.killers {
            *killers = [None; 2];
        }

        let position = *game.position();
        let mut root = MoveList::new();
        position.legal_moves_into(&mut root);
        let mut completed = Completed {
            best_move: None,
            score: -WIN,
            depth: 0,
            pv: Vec::new(),
        };
        if root.is_empty() {
            return completed;
        }
        egdb::filter_root(shared.egdb.map(egdb::Probing::egdb), &position, &mut root);
        // Before any iteration completes, the table's move (or the first) is the answer.
        let first = shared
            .tt
            .probe(tt_key(game) ^ shared.key_salt)
            .and_then(|entry| entry.mv.find(&root))
            .unwrap_or(0);
        root.swap(0, first);
        completed.best_move = Some(root[0]);
        completed.score = self.evaluate(game, shared);
        completed.pv = vec![root[0]];

        let mut previous = completed.score;
        let mut depth = 1 + (thread as u32 & 1);
        while depth <= max_depth {
            self.root_change = None;
            let score = self.aspiration(shared, game, &mut root, depth, previous);
            if self.aborted {
                if let Some(change) = self.root_change.take() {
                    // The depth reported stays the last one completed.
                    completed = Completed {
                        depth: completed.depth,
                        ..change
                    };
                }
                break;
            }
            previous = score;
            completed = Completed {
                best_move: Some(root[0]),
                score,
                depth,
                pv: self.pv[0][..self.pv_len[0]]
                    .iter()
                    .flatten()
                    .copied()
                    .collect(),
            };
            report(
                self,
                &IterationReport {
                    depth,
                    score,
                    pv: &completed.pv,
                },
            );
            if shared.abort.load(Ordering::Relaxed) {
                break;
            }
            depth += 1;
        }
        self.publish(shared);
        completed
    }

    /// One iteration, with a narrow window around the previous score first.
    fn aspiration(
        &mut self,
        shared: &Shared<'_>,
        game: &mut Game,
        root: &mut MoveList,
        depth: u32,
        previous: i32,
    ) -> i32 {
        self.root_depth = depth;
        let mut delta = 30;
        let (mut alpha, mut beta) =
            if shared.features.aspiration && depth >= 5 && previous.abs() < DECISIVE {
                (previous - delta, previous + delta)
            } else {
                (-INFINITY, INFINITY)
            };
        loop {
            let score = self.root(shared, game, root, depth as i32, alpha, beta);
            if self.aborted {
                return score;
            }
            if score <= alpha && alpha > -INFINITY {
                alpha = (score - delta).max(-INFINITY);
                if alpha < -DECISIVE {
                    alpha = -INFINITY;
                }
            } else if score >= beta && beta < INFINITY {
                beta = (score + delta).min(INFINITY);
                if beta > DECISIVE {
                    beta = INFINITY;
                }
            } else {
                return score;
            }
            delta *= 2;
        }
    }

    /// The root: every move in order, the best moved to the front.
    fn root(
        &mut self,
        shared: &Shared<'_>,
        game: &mut Game,
        root: &mut MoveList,
        depth: i32,
        mut alpha: i32,
        beta: i32,
    ) -> i32 {
        self.pv_len[0] = 0;
        let mut best = -INFINITY;
        let extend = root.len() == 1 && shared.features.single_reply_extension;
        let child_depth = if extend { depth } else { depth - 1 };
        for index in 0..root.len() {
            let mv = root[index];
            game.play(mv);
            let score = if index == 0 {
                -self.search(shared, game, -beta, -alpha, child_depth, 1)
            } else {
                let mut score = -self.search(shared, game, -alpha - 1, -alpha, child_depth, 1);
                if score > alpha && score < beta && !self.aborted {
                    score = -self.search(shared, game, -beta, -alpha, child_depth, 1);
                }
                score
            };
            game.undo();
            if self.aborted {
                return best;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    self.update_pv(0, mv);
                    if index > 0 {
                        // Better than the move the last iteration chose: worth playing even if
                        // this iteration does not finish.
                        self.root_change = Some(Completed {
                            best_move: Some(mv),
                            score,
                            depth: depth as u32,
                            pv: self.pv[0][..self.pv_len[0]]
                                .iter()
                                .flatten()
                                .copied()
                                .collect(),
                        });
                    }
                    // Keep the order: the new best to the front, the others shifted.
                    root[..=index].rotate_right(1);
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        best
    }

    fn update_pv(&mut self, ply: usize, mv: Move) {
        let child_len = if ply < MAX_PLY {
            self.pv_len[ply + 1].max(ply + 1)
        } else {
            ply + 1
        };
        self.pv[ply][ply] = Some(mv);
        for i in ply + 1..child_len {
            self.pv[ply][i] = self.pv[ply + 1][i];
        }
        self.pv_len[ply] = child_len;
    }

    /// The table's move at a deep node, when it is singular: the table holds a score for it
    /// from nearly this depth that is not an upper bound, and every other move, searched half
    /// as deep with a null window just below that score (less a margin), falls short of it.
    /// Then it is the only move that holds, and the caller searches it a ply deeper.
    fn singular_move(
        &mut self,
        shared: &Shared<'_>,
        game: &mut Game,
        entry: Option<Entry>,
        tt_move: Option<usize>,
        depth: i32,
        ply: usize,
    ) -> Option<Move> {
        let (entry, tt_index) = (entry?, tt_move?);
        let tt_score = score_from_tt(entry.score, ply);
        if depth < SINGULAR_MIN_DEPTH
            || self.lists[ply].len() < 2
            || ply >= 2 * self.root_depth as usize
            || entry.bound == Bound::Upper
            || entry.depth < depth - 3
            || tt_score.abs() >= DECISIVE
        {
            return None;
        }
        let singular_beta = tt_score - SINGULAR_MARGIN * depth;
        for index in 0..self.lists[ply].len() {
            if index == tt_index {
                continue;
            }
            let mv = self.lists[ply][index];
            game.play(mv);
            let score = -self.search(
                shared,
                game,
                -singular_beta,
                -singular_beta + 1,
                (depth - 1) / 2,
                ply + 1,
            );
            game.undo();
            if self.aborted || score >= singular_beta {
                return None;
            }
        }
        Some(self.lists[ply][tt_index])
    }

    /// Counts a node and, now and then, looks at the limits. Returns whether to abort.
    #[inline(always)]
    fn count_node(&mut self, shared: &Shared<'_>) -> bool {
        self.nodes += 1;
        if let Some(limit) = shared.node_limit
            && !shared.parallel
            && self.nodes >= limit
        {
            self.abort(shared);
        }
        if self.nodes.is_multiple_of(POLL_INTERVAL) {
            self.poll(shared);
        }
        self.aborted
    }

    fn abort(&mut self, shared: &Shared<'_>) {
        self.aborted = true;
        shared.abort.store(true, Ordering::Relaxed);
    }

    fn publish(&mut self, shared: &Shared<'_>) {
        shared
            .nodes
            .fetch_add(self.nodes - self.published, Ordering::Relaxed);
        self.published = self.nodes;
    }

    #[cold]
    fn poll(&mut self, shared: &Shared<'_>) {
        self.publish(shared);
        if shared.abort.load(Ordering::Relaxed) {
            self.aborted = true;
            return;
        }
        if shared.stop.is_stopped() {
            self.abort(shared);
            return;
        }
        if let Some(hard) = shared.plan.hard
            && shared.elapsed() >= hard
        {
            self.abort(shared);
            return;
        }
        if let Some(limit) = shared.node_limit
            && shared.nodes.load(Ordering::Relaxed) >= limit
        {
            self.abort(shared);
        }
    }

    /// The main search: a fail-soft principal-variation search.
    fn search(
        &mut self,
        shared: &Shared<'_>,
        game: &mut Game,
        mut alpha: i32,
        mut beta: i32,
        mut depth: i32,
        ply: usize,
    ) -> i32 {
        if depth <= 0 {
            // A quiet position where the opponent threatens to capture is not quiet enough to
            // evaluate: give the side to move one more ply to answer the threat (up to twice
            // the iteration depth, so that chains of threats stay bounded).
            let position = game.position();
            if shared.features.threat_extension
                && ply < 2 * self.root_depth as usize
                && !position.has_capture()
                && waiting_capture(position)
            {
                depth = 1;
            } else {
                return self.quiescence(shared, game, alpha, beta, ply);
            }
        }
        self.pv_len[ply] = ply;
        if self.count_node(shared) {
            return 0;
        }
        let position = *game.position();
        if is_rule_draw(game) {
            // The rules check for a lost position first.
            return if position.has_legal_move() {
                shared.draw_score(&position)
            } else {
                -WIN + ply as i32
            };
        }
        // No line from here can be quicker than a win right now.
        alpha = alpha.max(-WIN + ply as i32);
        beta = beta.min(WIN - ply as i32 - 1);
        if alpha >= beta {
            return alpha;
        }
        if let Some(score) = egdb::probe_node(shared.egdb, game) {
            return shared.database_score(&position, score);
        }
        if ply >= MAX_PLY - 1 {
            return self.evaluate(game, shared);
        }
        let pv_node = beta - alpha > 1;

        // The table may answer before any move is generated.
        let key = tt_key(game) ^ shared.key_salt;
        let entry = shared.tt.probe(key);
        if let Some(entry) = entry
            && !pv_node
            && entry.depth >= depth
        {
            let score = score_from_tt(entry.score, ply);
            let usable = match entry.bound {
                Bound::Exact => true,
                Bound::Lower => score >= beta,
                Bound::Upper => score <= alpha,
            };
            if usable {
                return score;
            }
        }

        // ProbCut: at a deep non-PV node, a shallower search that beats beta by a margin
        // predicts that the full search fails high too (see `probcut_plan`). Not where a
        // capture is pending (the move is forced), nor with a table entry that already says
        // the node fails low, nor when an opponent man is three steps or fewer from promotion:
        // a breakthrough lies just beyond the shallow search's horizon, and its prediction is
        // worthless.
        if let Some((shallow, margin)) = self.probcut_plan(shared.features, depth)
            && !pv_node
            && beta.abs() < DECISIVE - margin
            && !entry.is_some_and(|entry| {
                entry.bound != Bound::Lower
                    && entry.depth >= shallow
                    && score_from_tt(entry.score, ply) < beta + margin
            })
            && !position.has_capture()
            && !near_promotion(&position, !position.side_to_move())
        {
            let raised = beta + margin;
            let nested = std::mem::replace(&mut self.in_probcut, true);
            let score = self.search(shared, game, raised - 1, raised, shallow, ply);
            self.in_probcut = nested;
            if self.aborted {
                return 0;
            }
            if score >= raised {
                return if shared.features.scaled_probcut {
                    score - margin
                } else {
                    score
                };
            }
        }

        position.legal_moves_into(&mut self.lists[ply]);
        let move_count = self.lists[ply].len();
        if move_count == 0 {
            return -WIN + ply as i32;
        }
        let tt_move = entry.and_then(|entry| entry.mv.find(&self.lists[ply]));

        let capturing = self.lists[ply][0].is_capture();

        // Near the horizon, a quiet position far from the window is decided by its evaluation:
        // far above beta it will fail high, far below alpha it will fail low. Not when the
        // opponent threatens a capture, which the evaluation cannot judge. (The lower half
        // also cuts the side that has just sacrificed, and so can hide a shot; without it the
        // search is no stronger: docs/strength.md, "Changes to the search".)
        if shared.features.static_pruning
            && !pv_node
            && depth <= 3
            && !capturing
            && alpha.abs() < DECISIVE
            && beta.abs() < DECISIVE
            && !waiting_capture(&position)
        {
            let eval = self.evaluate(game, shared);
            if eval - 80 * depth >= beta {
                return eval;
            }
            if eval + 120 * depth <= alpha {
                return eval;
            }
        }

        // A deep node the table knows no move for is searched a ply shallower: its move
        // ordering is a guess, and the next iteration finds it with a table move.
        if shared.features.internal_reduction && depth >= 4 && tt_move.is_none() && !capturing {
            depth -= 1;
        }
        let extend = move_count == 1 && shared.features.single_reply_extension;
        let new_depth = if extend { depth } else { depth - 1 };
        self.score_moves(&position, ply, tt_move, capturing);
        if new_depth >= 1 {
            // The children will probe the table: start their cache lines together.
            for mv in self.lists[ply].iter() {
                shared.tt.touch(position.play(mv).hash());
            }
        } else {
            // The children are leaves, most of them evaluated: start their cached evaluations.
            for mv in self.lists[ply].iter() {
                self.evals.touch(position.play(mv).hash());
            }
        }

        let singular = if shared.features.singular_extension {
            self.singular_move(shared, game, entry, tt_move, depth, ply)
        } else {
            None
        };
        if self.aborted {
            return 0;
        }

        let original_alpha = alpha;
        let mut best = -INFINITY;
        let mut best_move = None;
        let mut quiets_tried: [Option<Move>; 32] = [None; 32];
        let mut quiet_count = 0;
        // Near the horizon, the last quiet moves of a long list are rarely better than the
        // first ones (ordered by history): skip them at non-PV nodes.
        let late_move_limit = if shared.features.late_move_pruning && !pv_node && depth <= 3 {
            3 + (depth * depth) as usize
        } else {
            usize::MAX
        };
        for index in 0..move_count {
            let mv = pick(&mut self.lists[ply], &mut self.order[ply], index);
            let quiet = !capturing && !promotes(&position, &mv);
            if quiet && quiet_count >= late_move_limit && best > -DECISIVE {
                break;
            }
            let new_depth = new_depth + i32::from(singular == Some(mv));
            game.play(mv);
            let score = if index == 0 {
                -self.search(shared, game, -beta, -alpha, new_depth, ply + 1)
            } else {
                let reduction = if quiet && shared.features.late_move_reductions {
                    self.late_move_reduction(
                        shared.features,
                        game.position(),
                        pv_node,
                        (ply, mv),
                        depth,
                        index,
                    )
                    .min(new_depth - 1)
                    .max(0)
                } else {
                    0
                };
                let mut score = -self.search(
                    shared,
                    game,
                    -alpha - 1,
                    -alpha,
                    new_depth - reduction,
                    ply + 1,
                );
                if score > alpha && reduction > 0 && !self.aborted {
                    score = -self.search(shared, game, -alpha - 1, -alpha, new_depth, ply + 1);
                }
                if score > alpha && score < beta && !self.aborted {
                    score = -self.search(shared, game, -beta, -alpha, new_depth, ply + 1);
                }
                score
            };
            game.undo();
            if self.aborted {
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    best_move = Some(mv);
                    alpha = score;
                    if pv_node {
                        self.update_pv(ply, mv);
                    }
                    if score >= beta {
                        if quiet {
                            self.reward(&position, mv, ply, depth, &quiets_tried[..quiet_count]);
                        }
                        break;
                    }
                }
            }
            if quiet && quiet_count < quiets_tried.len() {
                quiets_tried[quiet_count] = Some(mv);
                quiet_count += 1;
            }
        }

        let bound = if best >= beta {
            Bound::Lower
        } else if best > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        shared.tt.store(
            key,
            Entry {
                mv: best_move.map_or(MoveCode::NONE, |mv| MoveCode::of(&mv)),
                score: score_to_tt(best, ply),
                depth,
                bound,
            },
        );
        best
    }

    /// ProbCut at a node `depth` plies deep: the depth of its shallow search and the margin
    /// above beta that search must beat, or `None` where it is not tried. Fixed: from
    /// [`PROBCUT_MIN_DEPTH`] on, [`PROBCUT_REDUCTION`] plies shallower, [`PROBCUT_MARGIN`] above
    /// beta. Scaled ([`SearchFeatures::scaled_probcut`]): from three plies on, two fifths as
    /// deep, 5 centi-men a ply above beta, never inside another ProbCut search.
    #[inline(always)]
    fn probcut_plan(&self, features: &SearchFeatures, depth: i32) -> Option<(i32, i32)> {
        if !features.probcut {
            return None;
        }
        if features.scaled_probcut {
            return (depth >= 3 && !self.in_probcut).then(|| (depth * 2 / 5, 5 * depth));
        }
        (depth >= PROBCUT_MIN_DEPTH).then_some((depth - PROBCUT_REDUCTION, PROBCUT_MARGIN))
    }

    /// The plies by which a late quiet move, the `index`th of a node `depth` plies deep, is
    /// searched less deep first (`after`: the position it leads to; `(ply, mv)`: the move and
    /// the ply it is played at). In two steps ([`SearchFeatures::stepped_reductions`]), or else
    /// by the logarithms of depth and move number from the fourth move on, killers exempt; a
    /// move that threatens a capture is exempt in both with
    /// [`SearchFeatures::unreduced_threats`].
    #[inline(always)]
    fn late_move_reduction(
        &self,
        features: &SearchFeatures,
        after: &Position,
        pv_node: bool,
        (ply, mv): (usize, Move),
        depth: i32,
        index: usize,
    ) -> i32 {
        if depth < 3 || (features.unreduced_threats && waiting_capture(after)) {
            return 0;
        }
        if features.stepped_reductions {
            let first = if pv_node { 3 } else { 1 };
            return if index < first {
                0
            } else {
                1 + i32::from(!pv_node && index >= 6)
            };
        }
        if index < 3 || self.killers[ply].contains(&Some(mv)) {
            return 0;
        }
        i32::from(self.reductions[(depth as usize).min(63)][index.min(63)]) - i32::from(pv_node)
    }

    /// Captures are compulsory, so a position with a capture is never evaluated: its captures
    /// are searched. A quiet position is evaluated as it stands.
    fn quiescence(
        &mut self,
        shared: &Shared<'_>,
        game: &mut Game,
        mut alpha: i32,
        beta: i32,
        ply: usize,
    ) -> i32 {
        self.pv_len[ply] = ply;
        if self.count_node(shared) {
            return 0;
        }
        let position = *game.position();
        if !position.has_capture() {
            if !position.has_legal_move() {
                return -WIN + ply as i32;
            }
            if is_rule_draw(game) {
                return shared.draw_score(&position);
            }
            return match egdb::probe_node(shared.egdb, game) {
                Some(score) => shared.database_score(&position, score),
                None => self.evaluate(game, shared),
            };
        }
        if is_rule_draw(game) {
            return shared.draw_score(&position);
        }
        if ply >= MAX_PLY - 1 {
            return self.evaluate(game, shared);
        }
        position.legal_moves_into(&mut self.lists[ply]);
        let mut best = -INFINITY;
        for index in 0..self.lists[ply].len() {
            let mv = self.lists[ply][index];
            game.play(mv);
            let score = -self.quiescence(shared, game, -beta, -alpha, ply + 1);
            game.undo();
            if self.aborted {
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    self.update_pv(ply, mv);
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        best
    }

    /// The evaluation of the position at the end of `game`, from the side to move, with the
    /// search's endgame knowledge: the terms against a lone king, and the score shrinking as a
    /// draw rule comes near (see [`endgame`]).
    #[inline]
    fn evaluate(&mut self, game: &Game, shared: &Shared<'_>) -> i32 {
        let position = game.position();
        let mut score = self.evals.get(position, shared.params);
        if !shared.features.endgame_knowledge {
            return score;
        }
        let white = endgame::lone_king_terms(position);
        if white != 0 {
            score += match position.side_to_move() {
                Color::White => white,
                Color::Black => -white,
            };
        }
        // Towards the score of a draw, which is not zero with contempt.
        let draw = shared.draw_score(position);
        draw + endgame::scaled_for_rules(score - draw, game)
    }

    /// Fills the ordering scores of the moves at `ply`: the table move, then for quiet moves
    /// killers and history, for captures the kings they take, then history.
    fn score_moves(
        &mut self,
        position: &Position,
        ply: usize,
        tt_move: Option<usize>,
        capturing: bool,
    ) {
        let side = side_index(position.side_to_move());
        let history = &self.history[side * 2500..][..2500];
        let killers = self.killers[ply];
        let opponent_kings = position.kings(!position.side_to_move());
        let order = &mut self.order[ply];
        order.clear();
        for mv in self.lists[ply].iter() {
            let mut score = history[mv.from().index() * 50 + mv.to().index()];
            if capturing {
                score += ((mv.captured() & opponent_kings).count() as i32) << 20;
            } else if killers[0] == Some(*mv) {
                score += 1 << 24;
            } else if killers[1] == Some(*mv) {
                score += 1 << 23;
            }
            order.push(score);
        }
        if let Some(i) = tt_move {
            order[i] = 1 << 30;
        }
    }

    /// A quiet move refuted the opponent's last move: make it a killer and raise its history,
    /// lower the history of the quiet moves tried before it.
    fn reward(
        &mut self,
        position: &Position,
        mv: Move,
        ply: usize,
        depth: i32,
        tried: &[Option<Move>],
    ) {
        let killers = &mut self.killers[ply];
        if killers[0] != Some(mv) {
            killers[1] = killers[0];
            killers[0] = Some(mv);
        }
        let bonus = (depth * depth).min(400);
        let side = side_index(position.side_to_move()) * 2500;
        let update = |entry: &mut i32, bonus: i32| {
            *entry += bonus * 32 - *entry * bonus.abs() * 32 / HISTORY_MAX;
        };
        update(
            &mut self.history[side + mv.from().index() * 50 + mv.to().index()],
            bonus,
        );
        for other in tried.iter().flatten() {
            update(
                &mut self.history[side + other.from().index() * 50 + other.to().index()],
                -bonus,
            );
        }
    }
}

/// The evaluations of recent positions, by Zobrist key: the search evaluates many positions
/// more than once (each iteration's horizon crosses the last one's, and a node near the
/// horizon is evaluated for pruning before its children are). An entry holds the full key,
/// so it answers only for the position it was computed for (as the transposition table does).
struct EvalCache {
    entries: Vec<CachedEval>,
}

#[derive(Clone, Copy, Default)]
struct CachedEval {
    key: u64,
    eval: i32,
    filled: bool,
}

/// The entries of an [`EvalCache`] (a power of two): 256 KiB, small enough to stay near the
/// core beside the pattern tables.
const EVAL_CACHE_ENTRIES: usize = 1 << 14;

impl EvalCache {
    fn new() -> EvalCache {
        EvalCache {
            entries: vec![CachedEval::default(); EVAL_CACHE_ENTRIES],
        }
    }

    fn clear(&mut self) {
        self.entries.fill(CachedEval::default());
    }

    /// Asks for the cache line of `key`'s entry, so that it is on its way before
    /// [`EvalCache::get`] needs it.
    #[inline]
    fn touch(&self, key: u64) {
        crate::hints::prefetch(&self.entries[key as usize & (EVAL_CACHE_ENTRIES - 1)]);
    }

    /// [`evaluate_raw`] of `position`, from the cache when it holds the position.
    #[inline]
    fn get(&mut self, position: &Position, params: &EvalParams) -> i32 {
        let key = position.hash();
        let entry = &mut self.entries[key as usize & (EVAL_CACHE_ENTRIES - 1)];
        if entry.filled && entry.key == key {
            return entry.eval;
        }
        let eval = evaluate_raw(position, params);
        *entry = CachedEval {
            key,
            eval,
            filled: true,
        };
        eval
    }
}

/// Brings the best-scored remaining move to `index` and returns it.
#[inline(always)]
fn pick(moves: &mut MoveList, order: &mut [i32], index: usize) -> Move {
    let mut best = index;
    for i in index + 1..moves.len() {
        if order[i] > order[best] {
            best = i;
        }
    }
    moves.swap(index, best);
    order.swap(index, best);
    moves[index]
}

fn side_index(side: Color) -> usize {
    match side {
        Color::White => 0,
        Color::Black => 1,
    }
}

/// Whether the side not to move could capture if it were its turn: before a move, the
/// opponent's threat; after one, the threat the move just played makes (a quiet move that
/// threatens is tactics, a shot is usually prepared by one, not a late move to reduce).
fn waiting_capture(position: &Position) -> bool {
    position
        .with_side_to_move(!position.side_to_move())
        .has_capture()
}

/// The squares from which a man of each colour (White, Black) is three steps or fewer from
/// promotion: rows 1 to 3 for White, 6 to 8 for Black.
const NEAR_PROMOTION: [u64; 2] = [
    board::row_bits(1) | board::row_bits(2) | board::row_bits(3),
    board::row_bits(6) | board::row_bits(7) | board::row_bits(8),
];

/// Whether `side` has a man three steps or fewer from promotion.
fn near_promotion(position: &Position, side: Color) -> bool {
    position.men(side).bits() & NEAR_PROMOTION[side_index(side)] != 0
}

/// Whether a man's move ends on its promotion row.
fn promotes(position: &Position, mv: &Move) -> bool {
    let side = position.side_to_move();
    if !position.men(side).contains(mv.from()) {
        return false;
    }
    match side {
        Color::White => mv.to().row() == 0,
        Color::Black => mv.to().row() == 9,
    }
}

/// Whether the game is drawn by rule now: the 25-move rule, an endgame count run out, or a
/// position that occurred before (in the search a repetition is as good as a draw). The side to
/// move is known to have a move.
#[inline]
pub(crate) fn is_rule_draw(game: &Game) -> bool {
    let reversible = game.reversible_plies();
    if reversible >= KING_MOVES_DRAW_PLIES {
        return true;
    }
    if let Some((reason, plies)) = game.endgame_count() {
        let limit = match reason {
            DrawReason::Endgame16 => ENDGAME16_DRAW_PLIES,
            DrawReason::Endgame5 => ENDGAME5_DRAW_PLIES,
            _ => usize::MAX,
        };
        if plies >= limit {
            return true;
        }
    }
    reversible >= 4 && game.repetitions() >= 2
}

/// The table key: the position's key, with the draw-rule counters mixed in where they can
/// decide the result (an endgame count, a 25-move count near its end).
#[inline]
pub(crate) fn tt_key(game: &Game) -> u64 {
    let mut key = game.position().hash();
    if let Some((_, plies)) = game.endgame_count() {
        key ^= mix(plies as u64 + 1);
    }
    let reversible = game.reversible_plies();
    if reversible >= KING_MOVES_DRAW_PLIES - endgame::RULE_HORIZON {
        key ^= mix(reversible as u64 + 1_000);
    }
    key
}

fn mix(value: u64) -> u64 {
    let mut z = value.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z ^ (z >> 31)
}

/// Win and loss scores count plies from the root; in the table they count from the node.
fn score_to_tt(score: i32, ply: usize) -> i32 {
    if score > DECISIVE {
        score + ply as i32
    } else if score < -DECISIVE {
        score - ply as i32
    } else {
        score
    }
}

fn score_from_tt(score: i32, ply: usize) -> i32 {
    if score > DECISIVE {
        score - ply as i32
    } else if score < -DECISIVE {
        score + ply as i32
    } else {
        score
    }
}

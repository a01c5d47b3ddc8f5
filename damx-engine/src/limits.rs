//! What bounds a search: depth, nodes, time, a game clock, and a stop flag.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The limits of one search. All unset means "until stopped".
///
/// Several limits may be set at once; the search ends at the first one reached.
#[derive(Clone, Default, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Search this many plies deep (iterations of iterative deepening), then return.
    pub depth: Option<u32>,
    /// Stop after about this many nodes (exactly, with one thread).
    pub nodes: Option<u64>,
    /// A fixed time for this move.
    pub move_time: Option<Duration>,
    /// A game clock: the engine budgets its own time from it.
    pub clock: Option<Clock>,
}

impl Limits {
    /// Limits with only a depth.
    pub fn depth(depth: u32) -> Limits {
        Limits {
            depth: Some(depth),
            ..Limits::default()
        }
    }

    /// Limits with only a node count.
    pub fn nodes(nodes: u64) -> Limits {
        Limits {
            nodes: Some(nodes),
            ..Limits::default()
        }
    }

    /// Limits with only a fixed time for the move.
    pub fn move_time(time: Duration) -> Limits {
        Limits {
            move_time: Some(time),
            ..Limits::default()
        }
    }

    /// A fixed strength from the optional depth, node and move-time bounds a user gives, or
    /// `None` when none is given (the caller's default then applies: a clock, or a time of
    /// its own).
    pub fn fixed(
        depth: Option<u32>,
        nodes: Option<u64>,
        move_time: Option<Duration>,
    ) -> Option<Limits> {
        (depth.is_some() || nodes.is_some() || move_time.is_some()).then_some(Limits {
            depth,
            nodes,
            move_time,
            clock: None,
        })
    }

    /// The limits a front end searches with: the user's fixed bounds ([`Limits::fixed`]) when
    /// any is given, else `default` a move; `None` (no bound and no default) leaves the
    /// strength to the game clock. Every command's own default goes through here.
    pub fn fixed_or(
        depth: Option<u32>,
        nodes: Option<u64>,
        move_time: Option<Duration>,
        default: Option<Duration>,
    ) -> Option<Limits> {
        Limits::fixed(depth, nodes, move_time).or_else(|| default.map(Limits::move_time))
    }

    /// The words for a player's strength: `fixed limits: depth 6` for fixed limits, else
    /// `playing by the game clock`.
    pub fn describe_fixed(fixed: Option<&Limits>) -> String {
        match fixed {
            Some(limits) => format!("fixed limits: {limits}"),
            None => "playing by the game clock".to_owned(),
        }
    }

    /// Limits with only a game clock.
    pub fn clock(clock: Clock) -> Limits {
        Limits {
            clock: Some(clock),
            ..Limits::default()
        }
    }
}

/// In words, for logs: `depth 8, 1.5 s a move`, `4m 59s on the clock, 20 moves to go`, or
/// `no limit`.
impl fmt::Display for Limits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        if let Some(depth) = self.depth {
            parts.push(format!("depth {depth}"));
        }
        if let Some(nodes) = self.nodes {
            parts.push(format!("{nodes} nodes"));
        }
        if let Some(time) = self.move_time {
            parts.push(format!("{} s a move", time.as_secs_f64()));
        }
        if let Some(clock) = &self.clock {
            let seconds = clock.remaining.as_secs();
            parts.push(format!("{}m {}s on the clock", seconds / 60, seconds % 60));
            if let Some(moves) = clock.moves_to_go {
                parts.push(format!("{moves} moves to go"));
            }
        }
        if parts.is_empty() {
            f.write_str("no limit")
        } else {
            f.write_str(&parts.join(", "))
        }
    }
}

/// A game clock as DXP gives it: the time left for the rest of the game and, under a move limit,
/// the moves still to make within it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clock {
    /// Our time left for the rest of the game (or until the move limit).
    pub remaining: Duration,
    /// The moves we still have to make within `remaining`, if the game has a move limit.
    pub moves_to_go: Option<u32>,
}

/// A stop flag the caller can raise from any thread; the search returns within a few
/// milliseconds with the best move found so far.
///
/// Clones share the flag.
#[derive(Clone, Default, Debug)]
pub struct StopSignal(Arc<AtomicBool>);

impl StopSignal {
    /// A lowered flag.
    pub fn new() -> StopSignal {
        StopSignal::default()
    }

    /// Raises the flag: the search in progress (and any started before `reset`) stops.
    pub fn stop(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Whether the flag is raised.
    pub fn is_stopped(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// Lowers the flag for the next search.
    pub fn reset(&self) {
        self.0.store(false, Ordering::Relaxed);
    }
}

/// The time plan of one search: when to stop starting iterations, and when to stop outright.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TimePlan {
    /// Do not start a new iteration after this (before the adjustments of a [`Pacer`]).
    pub(crate) soft: Option<Duration>,
    /// Abort the search at this point.
    pub(crate) hard: Option<Duration>,
    /// Whether the soft bound follows the search (a game clock with adaptive time management).
    pub(crate) adaptive: bool,
}

/// Time kept back from every clock budget for the transmission of the move and the scheduling
/// of threads: 50 ms and a fiftieth of the time left (a loaded machine may not run the
/// search thread for a while).
fn clock_reserve(remaining: Duration) -> Duration {
    Duration::from_millis(50) + remaining / 50
}

/// The adaptive plan's soft bound, in percent of a move's share of the clock: new iterations
/// start until then (scaled by the pacer, which stretches and shrinks it). An iteration ends
/// past the bound, so a move takes somewhat more than it on average. (80 lost to 60 in
/// self-play at 10 s a game: spending more of the clock early costs more later than it
/// gains; 100 at 30 s a game was level, Elo +4 +/- 19 over 260 games; at one minute, Elo -23
/// +/- 27 over 61 games.)
pub const DEFAULT_PACE: u32 = 60;

/// The fixed plan's assumption of the moves still to come without a move limit.
const FIXED_MOVES_TO_GO: u32 = 30;

/// The moves a side still expects to make in a game without a move limit, from the pieces on
/// the board: 36 at the start (40 pieces), 23 in the middle game (20 pieces), never fewer
/// than 10, since king endings run long. Endgame databases of up to `solved` pieces play the
/// endings they hold at once, which take those moves off the clock: each piece they hold takes
/// one move off, up to five. The budget is a fraction of what is left, recomputed every move,
/// so a long game slows the pace down instead of running out.
pub(crate) fn expected_moves_to_go(pieces: u32, solved: u32) -> u32 {
    10 + pieces.min(40) * 2 / 3 - solved.min(5)
}

impl TimePlan {
    /// The plan for `limits` in a position with `pieces` pieces on the board; `adaptive`
    /// chooses the phase-dependent budget whose soft bound a [`Pacer`] moves (else the fixed
    /// plan: 30 moves to go, iterations stop at half the target). `None` bounds mean no time
    /// limit.
    #[cfg(test)]
    pub(crate) fn new(limits: &Limits, pieces: u32, adaptive: bool) -> TimePlan {
        TimePlan::with_pace(limits, pieces, 0, adaptive, DEFAULT_PACE)
    }

    /// [`TimePlan::new`] with endgame databases of up to `solved` pieces (0: none), and the
    /// adaptive plan's soft bound at `pace` percent of the target (instead of
    /// [`DEFAULT_PACE`]).
    pub(crate) fn with_pace(
        limits: &Limits,
        pieces: u32,
        solved: u32,
        adaptive: bool,
        pace: u32,
    ) -> TimePlan {
        let mut plan = TimePlan {
            soft: None,
            hard: None,
            adaptive: false,
        };
        if let Some(time) = limits.move_time {
            // A fixed move time is a hard budget; iterations may start until it runs out.
            plan.hard = Some(time);
        }
        if let Some(clock) = limits.clock {
            let (soft, hard) = if adaptive {
                clock_budget(clock, pieces, solved, pace)
            } else {
                fixed_clock_budget(clock)
            };
            plan.soft = min_some(plan.soft, Some(soft));
            plan.hard = min_some(plan.hard, Some(hard));
            plan.adaptive = adaptive;
        }
        plan
    }
}

/// The adaptive clock budget: (soft, hard). The target is the time left spread over the moves
/// expected to go (with a move limit, the moves still owed, plus one kept for safety). New
/// iterations start until `pace` percent of the target, which a [`Pacer`] scales between 0.35 and 2.5
/// times; an iteration is aborted at four targets or a quarter of what is left, whichever is
/// less, but never before the target.
fn clock_budget(clock: Clock, pieces: u32, solved: u32, pace: u32) -> (Duration, Duration) {
    let usable = clock
        .remaining
        .saturating_sub(clock_reserve(clock.remaining));
    let expected = expected_moves_to_go(pieces, solved);
    let spread = match clock.moves_to_go {
        Some(owed) => owed.max(1).min(expected) + 1,
        None => expected,
    };
    let target = usable / spread;
    let soft = target.mul_f64(f64::from(pace.clamp(10, 200)) / 100.0);
    // The target itself is at most half of what is left (the spread is at least two).
    let hard = (target * 4).min(usable / 4).max(target);
    (soft, hard)
}

/// The plan used before the adaptive one (kept to measure against): 30 moves to go, iterations
/// start until half the target, aborted at three targets or a third of what is left.
fn fixed_clock_budget(clock: Clock) -> (Duration, Duration) {
    let usable = clock.remaining.saturating_sub(Duration::from_millis(30));
    let moves = clock.moves_to_go.unwrap_or(FIXED_MOVES_TO_GO).max(1);
    let spread = if clock.moves_to_go.is_some() {
        moves + 1
    } else {
        moves
    };
    let target = usable / spread;
    let soft = target / 2;
    let hard = (target * 3).min(usable / 3).max(soft);
    (soft, hard)
}

/// Moves the soft bound of a clock search between iterations: more time while the best move
/// changes or the score falls, less when one move has stayed best for several iterations.
#[derive(Clone, Debug)]
pub(crate) struct Pacer {
    base: Duration,
    /// Decaying count of best-move changes (each change adds one, each iteration halves it).
    instability: f64,
    /// Iterations in a row that kept the best move.
    stable: u32,
    previous_score: Option<i32>,
    factor: f64,
}

impl Pacer {
    /// The widest scaling of the soft bound.
    pub(crate) const MAX_FACTOR: f64 = 2.5;
    /// The narrowest scaling of the soft bound.
    pub(crate) const MIN_FACTOR: f64 = 0.35;

    /// A pacer for the soft bound `base`.
    pub(crate) fn new(base: Duration) -> Pacer {
        Pacer {
            base,
            instability: 0.0,
            stable: 0,
            previous_score: None,
            factor: 1.0,
        }
    }

    /// Takes in a completed iteration: whether its best move differs from the previous
    /// iteration's, and its score (centi-men, from the side to move). Returns the soft bound
    /// now in force.
    pub(crate) fn update(&mut self, depth: u32, best_changed: bool, score: i32) -> Duration {
        self.instability *= 0.5;
        if best_changed {
            self.instability += 1.0;
            self.stable = 0;
        } else {
            self.stable += 1;
        }
        let mut factor = 1.0 + 0.6 * self.instability;
        // A score that falls between iterations: the search has seen a danger; look further.
        // (Decisive scores are left out: their distance is not a measure of danger.)
        if let Some(previous) = self.previous_score
            && previous.abs() < DECISIVE_EVAL
            && score.abs() < DECISIVE_EVAL
        {
            let drop = (previous - score).clamp(0, 100);
            if drop > 15 {
                factor *= 1.0 + f64::from(drop) / 100.0;
            }
        }
        self.previous_score = Some(score);
        // The shallow iterations change their minds for little reason; only a best move that
        // has survived some depth is trusted to save time.
        if depth >= 6 {
            factor *= match self.stable {
                0..=2 => 1.0,
                3..=5 => 0.75,
                _ => 0.55,
            };
        }
        self.factor = factor.clamp(Pacer::MIN_FACTOR, Pacer::MAX_FACTOR);
        self.soft()
    }

    /// The soft bound now in force.
    pub(crate) fn soft(&self) -> Duration {
        self.base.mul_f64(self.factor)
    }
}

/// Scores beyond this are treated as decided by the pacer (an evaluation never gets near).
const DECISIVE_EVAL: i32 = 10_000;

fn min_some(a: Option<Duration>, b: Option<Duration>) -> Option<Duration> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, None) => a,
        (None, b) => b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fixed strength is whatever bounds were given, and nothing when none was.
    #[test]
    fn fixed_limits_take_the_bounds_given() {
        assert_eq!(Limits::fixed(None, None, None), None);
        assert_eq!(Limits::fixed(Some(3), None, None), Some(Limits::depth(3)));
        let both = Limits::fixed(Some(3), None, Some(Duration::from_secs(1))).unwrap();
        assert_eq!(
            (both.depth, both.move_time),
            (Some(3), Some(Duration::from_secs(1)))
        );
        assert_eq!(both.clock, None);
        let second = Some(Duration::from_secs(1));
        assert_eq!(Limits::fixed_or(None, None, None, None), None);
        let default = Limits::fixed_or(None, None, None, second);
        assert_eq!(default, Some(Limits::move_time(Duration::from_secs(1))));
        let given = Limits::fixed_or(None, Some(500), None, second);
        assert_eq!(given, Some(Limits::nodes(500)));
        assert_eq!(
            Limits::describe_fixed(given.as_ref()),
            "fixed limits: 500 nodes"
        );
        assert_eq!(Limits::describe_fixed(None), "playing by the game clock");
    }

    /// Limits read as words in logs.
    #[test]
    fn limits_in_words() {
        assert_eq!(Limits::default().to_string(), "no limit");
        let limits = Limits {
            depth: Some(8),
            move_time: Some(Duration::from_millis(1500)),
            ..Limits::default()
        };
        assert_eq!(limits.to_string(), "depth 8, 1.5 s a move");
        let clock = Limits {
            clock: Some(Clock {
                remaining: Duration::from_secs(299),
                moves_to_go: Some(20),
            }),
            ..Limits::default()
        };
        assert_eq!(clock.to_string(), "4m 59s on the clock, 20 moves to go");
    }

    /// Clones share one flag; reset lowers it.
    #[test]
    fn stop_signal_is_shared() {
        let signal = StopSignal::new();
        let clone = signal.clone();
        assert!(!signal.is_stopped());
        clone.stop();
        assert!(signal.is_stopped());
        signal.reset();
        assert!(!clone.is_stopped());
    }

    fn clock(seconds: f64, moves_to_go: Option<u32>) -> Limits {
        Limits::clock(Clock {
            remaining: Duration::from_secs_f64(seconds),
            moves_to_go,
        })
    }

    /// The adaptive budget spends a fraction of the time left, never more than a quarter of it
    /// (half on the last move of a move limit), more early in the game than late.
    #[test]
    fn clock_budget() {
        let opening = TimePlan::new(&clock(60.0, None), 40, true);
        let hard = opening.hard.unwrap();
        let soft = opening.soft.unwrap();
        assert!(opening.adaptive);
        assert!(hard <= Duration::from_secs(15) && hard >= Duration::from_secs(2));
        assert!(soft < hard && soft.mul_f64(Pacer::MAX_FACTOR) <= hard);
        // The same clock buys more a move with fewer moves to go.
        let ending = TimePlan::new(&clock(60.0, None), 8, true);
        assert!(ending.soft.unwrap() > soft.mul_f64(1.5));

        let last_move = TimePlan::new(&clock(3.0, Some(1)), 20, true);
        let hard = last_move.hard.unwrap();
        assert!(hard <= Duration::from_millis(1500) && hard >= Duration::from_millis(1000));

        let limit = TimePlan::new(&clock(60.0, Some(5)), 40, true);
        assert!(limit.hard.unwrap() <= Duration::from_secs(15));
        assert!(limit.soft.unwrap() >= Duration::from_secs(5));

        let almost_out = TimePlan::new(&clock(0.01, None), 40, true);
        assert_eq!(almost_out.hard, Some(Duration::ZERO));

        let fixed = TimePlan::new(&Limits::move_time(Duration::from_millis(100)), 40, true);
        assert_eq!(fixed.hard, Some(Duration::from_millis(100)));
        assert_eq!(fixed.soft, None);
        assert!(!fixed.adaptive);
        assert_eq!(TimePlan::new(&Limits::depth(5), 40, true).hard, None);
    }

    /// The fixed plan is the one from before: 30 moves to go, half the target.
    #[test]
    fn fixed_clock_budget() {
        let plan = TimePlan::new(&clock(60.0, None), 40, false);
        assert!(!plan.adaptive);
        assert_eq!(plan.soft, Some(Duration::from_micros(999_500)));
        assert_eq!(plan.hard, Some(Duration::from_millis(5_997)));
        let last_move = TimePlan::new(&clock(3.0, Some(1)), 40, false);
        assert!(last_move.hard.unwrap() <= Duration::from_secs(1));
    }

    /// The soft bound grows while the best move changes or the score falls, and shrinks when
    /// one move stays best, within its bounds.
    #[test]
    fn pacer_follows_the_search() {
        let base = Duration::from_millis(1000);
        let mut calm = Pacer::new(base);
        for depth in 1..=12 {
            calm.update(depth, false, 20);
        }
        assert_eq!(calm.soft(), base.mul_f64(0.55));

        let mut unsure = Pacer::new(base);
        for depth in 1..=8 {
            unsure.update(depth, false, 20);
        }
        let changed = unsure.update(9, true, 20);
        assert!(changed > base.mul_f64(1.5), "{changed:?}");
        // The effect fades as the new move holds.
        let later = unsure.update(10, false, 20);
        assert!(later < changed && later > base);

        let mut falling = Pacer::new(base);
        falling.update(7, false, 50);
        let dropped = falling.update(8, false, -30);
        assert_eq!(dropped, base.mul_f64(1.8));
        // A deeper win is no danger.
        let mut winning = Pacer::new(base);
        winning.update(7, false, 29_000);
        assert_eq!(winning.update(8, false, 28_990), base);

        let mut wild = Pacer::new(base);
        wild.update(7, false, 100);
        let most = wild.update(8, true, -100);
        assert_eq!(most, base.mul_f64(Pacer::MAX_FACTOR));
    }

    /// Played out with a fixed share of each soft bound (an iteration ends past the bound, so
    /// a move takes about one and a half times it), a one-minute game spends most of its clock
    /// however long it lasts, and never runs out, even if every move takes its hard limit; with
    /// endgame databases of five pieces as without.
    #[test]
    fn a_game_on_the_clock() {
        let plan = |remaining: f64, pieces: u32, solved: u32| {
            TimePlan::with_pace(&clock(remaining, None), pieces, solved, true, DEFAULT_PACE)
        };
        for solved in [0, 5] {
            for moves in [40u32, 60, 80, 150, 300] {
                for share_of_soft in [1.5, 2.5] {
                    let mut remaining = 60.0f64;
                    for made in 0..moves {
                        let pieces = 40 - (34 * made / moves);
                        remaining -= plan(remaining, pieces, solved).soft.unwrap().as_secs_f64()
                            * share_of_soft;
                        assert!(remaining > 0.0, "{moves} moves, {share_of_soft}, {solved}");
                    }
                    if moves >= 60 && share_of_soft == 1.5 {
                        assert!(remaining < 12.0, "{moves} moves leave {remaining} s");
                    }
                }
                let mut remaining = 60.0f64;
                for made in 0..moves {
                    let pieces = 40 - (34 * made / moves);
                    remaining -= plan(remaining, pieces, solved).hard.unwrap().as_secs_f64();
                    assert!(remaining > 0.0);
                }
            }
        }
    }

    /// Databases that play the last moves at once leave more for each move before them.
    #[test]
    fn databases_shorten_the_moves_to_go() {
        assert_eq!(expected_moves_to_go(40, 0), 36);
        assert_eq!(expected_moves_to_go(40, 5), 31);
        assert_eq!(expected_moves_to_go(2, 5), 6);
        let without = TimePlan::with_pace(&clock(60.0, None), 20, 0, true, DEFAULT_PACE);
        let with = TimePlan::with_pace(&clock(60.0, None), 20, 5, true, DEFAULT_PACE);
        assert!(with.soft.unwrap() > without.soft.unwrap());
    }
}

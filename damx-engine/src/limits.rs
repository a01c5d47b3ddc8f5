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
    /// Do not start a new iteration after this.
    pub(crate) soft: Option<Duration>,
    /// Abort the search at this point.
    pub(crate) hard: Option<Duration>,
}

/// Time kept back from every clock budget for the transmission of the move and the scheduling
/// of threads.
const CLOCK_RESERVE: Duration = Duration::from_millis(30);

/// The moves assumed still to come when the game has no move limit. Draughts games run 50 to 80
/// moves a side; the budget shrinks with the clock, so overestimating costs little.
const ASSUMED_MOVES_TO_GO: u32 = 30;

impl TimePlan {
    /// The plan for `limits`; `None` bounds mean no time limit.
    pub(crate) fn new(limits: &Limits) -> TimePlan {
        let mut plan = TimePlan {
            soft: None,
            hard: None,
        };
        if let Some(time) = limits.move_time {
            // A fixed move time is a hard budget; iterations may start until it runs out.
            plan.hard = Some(time);
        }
        if let Some(clock) = limits.clock {
            let usable = clock.remaining.saturating_sub(CLOCK_RESERVE);
            let moves = clock.moves_to_go.unwrap_or(ASSUMED_MOVES_TO_GO).max(1);
            // With a move limit, keep a little for the last moves: divide by one more move.
            let spread = if clock.moves_to_go.is_some() {
                moves + 1
            } else {
                moves
            };
            let target = usable / spread;
            // An iteration takes about as long as all before it together (a branching factor
            // near two): stop starting them past half the target; abort at three targets or a
            // third of what is left, whichever is less.
            let soft = target / 2;
            let hard = (target * 3).min(usable / 3).max(soft);
            plan.soft = min_some(plan.soft, Some(soft));
            plan.hard = min_some(plan.hard, Some(hard));
        }
        plan
    }
}

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

    /// A clock budget spends a fraction of the time left, never more than a third of it, and
    /// spreads it over the moves still to make.
    #[test]
    fn clock_budget() {
        let plan = TimePlan::new(&Limits::clock(Clock {
            remaining: Duration::from_secs(60),
            moves_to_go: None,
        }));
        let hard = plan.hard.unwrap();
        assert!(hard <= Duration::from_secs(20) && hard >= Duration::from_secs(2));
        assert!(plan.soft.unwrap() < hard);

        let last_move = TimePlan::new(&Limits::clock(Clock {
            remaining: Duration::from_secs(3),
            moves_to_go: Some(1),
        }));
        assert!(last_move.hard.unwrap() <= Duration::from_secs(1));

        let almost_out = TimePlan::new(&Limits::clock(Clock {
            remaining: Duration::from_millis(10),
            moves_to_go: None,
        }));
        assert_eq!(almost_out.hard, Some(Duration::ZERO));

        let fixed = TimePlan::new(&Limits::move_time(Duration::from_millis(100)));
        assert_eq!(fixed.hard, Some(Duration::from_millis(100)));
        assert_eq!(fixed.soft, None);
        assert_eq!(TimePlan::new(&Limits::depth(5)).hard, None);
    }
}

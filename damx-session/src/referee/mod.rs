//! The referee: one game between two DXP programs, with damx as the Initiator towards both.
//!
//! The referee sends each program a GAMEREQ with opposite colours and the same start and
//! clock, checks every MOVE against the rules before relaying it to the other program, keeps
//! both clocks, and ends the game by the rules, by a program's GAMEEND, by adjudication or by a
//! forfeit. It speaks DXP through the session's own pieces: a [`Connection`](crate::Connection)
//! per program (framing, decoding, frame spacing, transcripts), [`convert`](crate::convert)
//! for positions and moves ([`match_move`](crate::convert::match_move) is the only move
//! matcher), and [`GameRecord`](crate::GameRecord) for the PDN.
//!
//! - [`RefereeMachine`]: the game as a state machine without I/O (two programs' messages and
//!   clock ticks in, messages out); every decision below lives there.
//! - [`play_game`]: drives the machine over two running [`Instance`]s in one `select!` loop.
//! - [`Participant`] and [`Instance`]: who plays (the built-in engine, in process, as a DXP
//!   Follower on a loopback socket; or an external program started by command line and
//!   reached by connecting or by listening) and a running copy of it (start, crash check,
//!   stop).
//! - [`Judge`]: adjudication (the built-in engine's search, the endgame rules and the
//!   material count, or the endgame databases).
//! - [`RefereeControl`]: finish or abort running games from another thread (Ctrl-C).
//!
//! # Decisions
//!
//! - **Requests.** The GAMEREQ goes first to the program that does not move first, then, once
//!   it has accepted, to the one that does; so no move can arrive before both have accepted.
//!   The Initiator name in each GAMEREQ is the opponent's tournament name. The normal start
//!   goes as `A`, any other start as `B`. A refusal (`A…1/2/3`) or no GAMEACC within
//!   [`RefereeConfig::reply_timeout`] forfeits the game for that program.
//! - **Relaying.** A MOVE from the program to move is matched against the legal moves (from,
//!   to, set of captured squares). A legal one is played on the referee's game and sent on with
//!   the full captured list and the whole seconds that program used. An illegal move, a move out
//!   of turn, a GAMEREQ or GAMEACC during the game, or a frame that does not decode (except what
//!   [`frame_fault`](crate::dialogue::frame_fault) finds harmless or a broken CHAT) forfeits; so does such a frame in place of the GAMEACC. BACKREQ is answered `K1` (take-backs are not
//!   supported in refereed games); CHAT is reported and changes nothing.
//! - **Noise.** Bad frames, chats, take-back requests and the messages only noted count against
//!   [`RefereeConfig::noise`], as for a damx player's connection; a program past it forfeits
//!   (`noise`), gets a GAMEEND with stop code `1` and is disconnected.
//! - **Clocks** are the referee's: a program's time runs from the moment the referee sent it
//!   the opponent's move (for the first mover, from its GAMEACC) to the arrival of its MOVE.
//!   With [`RefereeConfig::time_loss`], a program past its time by more than
//!   [`RefereeConfig::time_margin`] forfeits (`time`); without it, time is recorded only. A
//!   program that sends nothing for its remaining time plus [`RefereeConfig::silence_margin`]
//!   (or, without a clock, [`RefereeConfig::move_timeout`]) forfeits (`silent`), gets a
//!   GAMEEND with stop code `1` and is disconnected.
//! - **The end of a game, by the referee.** When a move ends the game (the opponent has no
//!   legal move, a draw rule applies) or reaches the move cap, that move is not relayed: the
//!   referee owes each program a move at that moment, so its GAMEEND goes to both on its own
//!   turn, as dxp.md §3 wants. A program that is thinking when the game is decided elsewhere
//!   (its opponent crashed, say) gets its GAMEEND after its move arrives (not relayed), or
//!   after [`RefereeConfig::reply_timeout`] at the latest. A forfeiting program gets its
//!   GAMEEND at once. The GAMEEND reason is informative, as from the opponent's seat: `1` to
//!   the winner, `3` to the loser, `2` for a draw, `0` otherwise.
//! - **A program's GAMEEND** (on its turn, or out of turn as pydraughts may send it: honoured
//!   all the same) is acknowledged at once and read as a claim. Reason `1`: it resigns. Reasons
//!   `2` (draw), `3` (win) and `0` (no reason): a rules verdict in the position decides first;
//!   otherwise [`ClaimPolicy`] says: adjudicate the position (the default), trust the claim, or
//!   forfeit the claimant (`false-claim`).
//! - **Adjudication** at [`Adjudication::max_moves`] moves each, and for claims: the built-in
//!   engine's search at a small depth (a forced win, or a score past a threshold, wins; else a
//!   draw), or the endgame rules and the material count, or simply a draw. The reason and the
//!   figures are recorded in the verdict's detail. With the endgame databases
//!   ([`AdjudicationMethod::Egdb`]) a game also ends as soon as a move leaves a quiet position
//!   within them whose value the draw rules' counters cannot change (reason `egdb`).
//! - **Crashes and lost connections.** A program whose connection ends during the game
//!   forfeits: `crash` when its process has exited (with the status), else `connection-lost`.
//! - **Stop codes.** The referee's GAMEEND carries stop code `1` when the program is not
//!   needed after this game ([`GameSetup::stop_after`], [`RefereeControl::finish`],
//!   [`RefereeControl::last_games`]) or the game is aborted;
//!   a program that answers or sends stop code `1` is disconnected after the handshake. A
//!   missing acknowledgement is noted, not penalised (GWD sends none).
//! - **Abort** ends the game at once: result `*`, reason `aborted`, GAMEEND with stop code `1`
//!   to both (to a thinking program after its move, or the reply time-out).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crossbeam_channel::{Receiver, Sender, unbounded};

use damx_rules::{Color, GameResult, Position};

use crate::config::NoiseBudget;

mod adjudicate;
mod machine;
mod participant;
mod run;

pub use adjudicate::{Adjudication, AdjudicationKind, AdjudicationMethod, Judge};
pub use machine::{GameReport, RefereeInput, RefereeMachine, RefereeOutput};
pub use participant::{
    BuiltinPlayer, External, Instance, LaunchError, Participant, ParticipantKind, Reach,
    StartOptions,
};
pub use run::play_game;

pub use crate::record::Reason;
pub(crate) use crate::record::win;

/// The referee's decision on a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// The result (`*` for an aborted game or a double forfeit).
    pub result: GameResult,
    /// Why.
    pub reason: Reason,
    /// Details in words: the offending frame, the adjudication's figures, the exit status.
    pub detail: String,
    /// The colours that forfeited (one, or both for a double forfeit).
    pub disqualified: Vec<Color>,
}

impl Verdict {
    /// `color` forfeits: the other side wins.
    pub fn forfeit(color: Color, reason: Reason, detail: impl Into<String>) -> Verdict {
        Verdict {
            result: win(!color),
            reason,
            detail: detail.into(),
            disqualified: vec![color],
        }
    }
}

/// How the referee reads a program's GAMEEND with reason `2` (draw), `3` (win) or `0` (no
/// reason) that the rules do not decide by themselves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ClaimPolicy {
    /// Adjudicate the position as at the move cap; the adjudication is the result.
    #[default]
    Adjudicate,
    /// Take the claim at its word: `2` is a draw, `3` a win for the claimant; `0` is
    /// adjudicated.
    Trust,
    /// A claim the rules do not back loses for the claimant (`false-claim`).
    Strict,
}

/// How the referee runs each game of a series.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefereeConfig {
    /// Thinking time per program for the whole game, in minutes (0: no clock). Sent in the
    /// GAMEREQ.
    pub minutes: u16,
    /// The DXP move limit sent in the GAMEREQ (0: none). It is the time control's number of
    /// moves; the referee's own cap is [`Adjudication::max_moves`].
    pub move_limit: u16,
    /// A program past its time (plus [`RefereeConfig::time_margin`]) loses on time.
    pub time_loss: bool,
    /// Tolerance for network and measurement before a loss on time.
    pub time_margin: Duration,
    /// How long past its remaining time a program may stay silent before it forfeits as
    /// silent (with a clock and without loss on time).
    pub silence_margin: Duration,
    /// A hard limit for each move (also with a clock); without a clock and without this limit,
    /// 60 seconds.
    pub move_timeout: Option<Duration>,
    /// For the answers a program owes at once: GAMEACC, the GAMEEND acknowledgement.
    pub reply_timeout: Duration,
    /// How GAMEEND claims are read.
    pub claims: ClaimPolicy,
    /// The move cap and how a game is adjudicated.
    pub adjudication: Adjudication,
    /// How many bad frames, chats, take-back requests and tolerated breaches a program may
    /// send; past it, it forfeits (`noise`) and is disconnected.
    pub noise: NoiseBudget,
}

/// The move time-out without a clock when none is configured.
pub const DEFAULT_MOVE_TIMEOUT: Duration = Duration::from_secs(60);

impl Default for RefereeConfig {
    /// 5 minutes a game, no DXP move limit, time recorded only (30 s of silence past the clock
    /// forfeits), replies within 10 s, claims adjudicated, a cap of 150 moves each adjudicated
    /// by the engine.
    fn default() -> RefereeConfig {
        RefereeConfig {
            minutes: 5,
            move_limit: 0,
            time_loss: false,
            time_margin: Duration::from_secs(1),
            silence_margin: Duration::from_secs(30),
            move_timeout: None,
            reply_timeout: Duration::from_secs(10),
            claims: ClaimPolicy::default(),
            adjudication: Adjudication::default(),
            noise: NoiseBudget::default(),
        }
    }
}

impl RefereeConfig {
    /// The thinking time per program, `None` without a clock.
    pub fn budget(&self) -> Option<Duration> {
        (self.minutes > 0).then(|| Duration::from_secs(60 * u64::from(self.minutes)))
    }
}

/// One game to referee.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameSetup {
    /// The game's number in the series (the PDN `Round`).
    pub number: u32,
    /// The names of the white and the black program ([`Color::index`] order), as the
    /// tournament knows them.
    pub names: [String; 2],
    /// The start position: `None` for the normal start (sent as `A`).
    pub start: Option<Position>,
    /// Whether each program is done after this game (its GAMEEND gets stop code `1`).
    pub stop_after: [bool; 2],
}

impl GameSetup {
    /// The start position.
    pub fn start_position(&self) -> Position {
        self.start.unwrap_or_else(Position::initial)
    }
}

/// Stops games from another thread (a Ctrl-C handler). Clones share the state.
#[derive(Clone, Debug)]
pub struct RefereeControl {
    finishing: Arc<AtomicBool>,
    last: Arc<AtomicBool>,
    abort: Arc<Mutex<Option<Sender<()>>>>,
    aborted: Receiver<()>,
}

impl Default for RefereeControl {
    fn default() -> RefereeControl {
        RefereeControl::new()
    }
}

impl RefereeControl {
    /// A control for one game or one series of games.
    pub fn new() -> RefereeControl {
        let (abort, aborted) = unbounded();
        RefereeControl {
            finishing: Arc::new(AtomicBool::new(false)),
            last: Arc::new(AtomicBool::new(false)),
            abort: Arc::new(Mutex::new(Some(abort))),
            aborted,
        }
    }

    /// Start no new game; the running ones play to their end, and their GAMEEND carries stop
    /// code `1`.
    pub fn finish(&self) {
        self.finishing.store(true, Ordering::SeqCst);
    }

    /// Start no new game, and end the running ones now (result `*`).
    pub fn abort(&self) {
        self.finish();
        // Dropping the only sender wakes every game's select.
        if let Ok(mut abort) = self.abort.lock() {
            abort.take();
        }
    }

    /// Whether [`RefereeControl::finish`] or [`RefereeControl::abort`] was called.
    pub fn is_finishing(&self) -> bool {
        self.finishing.load(Ordering::SeqCst)
    }

    /// The running games are the last ones: their GAMEENDs carry stop code `1`, and nothing
    /// else changes (a series calls this when its schedule runs out).
    pub fn last_games(&self) {
        self.last.store(true, Ordering::SeqCst);
    }

    /// Whether the programs of the running games are to be told to stop when they end.
    pub fn stops_after_games(&self) -> bool {
        self.is_finishing() || self.last.load(Ordering::SeqCst)
    }

    /// Disconnects (so that a `select!` on it wakes) once [`RefereeControl::abort`] is called.
    pub fn aborted(&self) -> &Receiver<()> {
        &self.aborted
    }
}

/// What happens during a refereed game, for the event stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RefereeEvent {
    /// A program answered the GAMEREQ with this DXP name.
    Identified {
        /// Its colour.
        color: Color,
        /// The name from its GAMEACC.
        name: String,
    },
    /// A move was played (and relayed, unless it ended the game).
    Moved {
        /// The number of moves (plies) played, this one included.
        ply: usize,
        /// Who played it.
        color: Color,
        /// The move in notation.
        text: String,
        /// Milliseconds it took, as the referee measured it.
        millis: u64,
    },
    /// A program forfeits the game.
    Disqualified {
        /// Its colour.
        color: Color,
        /// Why.
        reason: Reason,
        /// Details.
        detail: String,
    },
    /// A program chatted.
    Chat {
        /// Its colour.
        color: Color,
        /// The text.
        text: String,
    },
    /// Something worth a line in a log that changes nothing (a late acknowledgement, a
    /// take-back request, a stray message after the game).
    Note {
        /// Whose.
        color: Color,
        /// What, in words.
        what: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every reason's word reads back as that reason, and the words are distinct.
    #[test]
    fn reason_words_round_trip() {
        let mut words: Vec<&str> = Reason::ALL.iter().map(|r| r.word()).collect();
        for reason in Reason::ALL {
            assert_eq!(Reason::from_word(reason.word()), Some(reason));
            assert_eq!(reason.to_string(), reason.word());
        }
        words.sort_unstable();
        words.dedup();
        assert_eq!(words.len(), Reason::ALL.len());
        assert_eq!(Reason::from_word("checkmate"), None);
        assert!(Reason::Crash.is_forfeit() && !Reason::MoveCap.is_forfeit());
    }
}

//! What DXP allows, written once (dxp.md §3): the rules every role applies to a dialogue, with
//! no I/O and no policy.
//!
//! The player ([`PlayerMachine`](crate::PlayerMachine)), the referee
//! ([`RefereeMachine`](crate::referee::RefereeMachine)) and the [`monitor`](crate::monitor)
//! each keep their own state and decide what to do about a message (tolerate, answer, end,
//! forfeit, flag). What they share is here: the [`Observer`], which follows one dialogue
//! message by message from either end and says what each means ([`Meaning`]) and which rules
//! it breaks ([`Breach`]), with how the rules end its game ([`Observer::rules_ending`]) and
//! the GAMEEND that acknowledges ([`Observer::acknowledgement`]); beside it the GAMEREQ for a
//! game's settings ([`game_request`]), what a GAMEACC code says ([`game_answer`]), how bad a
//! frame that is not a message is ([`frame_fault`]), what a first GAMEEND's reason says
//! ([`claim_ending`], in the one vocabulary of [`Termination`]) and which reason says a result
//! (`claim_reason`), the time each side used (`Clock`) and what counts against a connection's
//! [`NoiseBudget`] (`NoiseMeter`).
//!
//! ```
//! use damx_session::dialogue::{FrameFault, frame_fault};
//! use damx_wire::Framer;
//!
//! let mut framer = Framer::new();
//! let mut buf = bytes::BytesMut::from(&b"\0Cbroken\xff\0Q\0"[..]);
//! let faults: Vec<FrameFault> = std::iter::from_fn(|| match framer.next_message(&mut buf) {
//!     Ok(Some(_)) | Ok(None) => None,
//!     Err(error) => Some(frame_fault(&error)),
//! })
//! .collect();
//! assert_eq!(faults, [FrameFault::Harmless, FrameFault::BrokenChat, FrameFault::Breach]);
//! ```

mod observer;

use std::time::{Duration, Instant};

use damx_rules::{Color, GameResult, Position};
use damx_wire::{
    AcceptCode, EndReason, FrameErrorKind, GameEnd, GameReq, Message, Minutes, MoveLimit, Name,
    ProtocolVersion, StopCode, StreamError,
};

use crate::config::NoiseBudget;
use crate::convert::{color_to_wire, start_to_wire};
use crate::record::{Termination, win};

pub use observer::{Breach, Meaning, Observed, Observer, Party, Rule};

/// Our end of a dialogue a role takes part in (the player's, the referee's seat's).
pub(crate) const US: Party = Party::A;
/// The other end: the peer, or the refereed program.
pub(crate) const PEER: Party = Party::B;

/// The GAMEREQ that asks for a game: the Follower plays `follower_color`, `minutes` of thinking
/// time each and `move_limit` moves (0: none), clamped to what the fields hold; `start` `None`
/// (or the normal start) goes as `A`.
pub fn game_request(
    initiator: Name,
    follower_color: Color,
    minutes: u16,
    move_limit: u16,
    start: Option<&Position>,
) -> GameReq {
    GameReq {
        version: ProtocolVersion::V1,
        initiator,
        follower_color: color_to_wire(follower_color),
        minutes: Minutes::new(minutes).unwrap_or(Minutes::MAX),
        move_limit: MoveLimit::new(move_limit).unwrap_or(MoveLimit::MAX),
        start: start_to_wire(start),
    }
}

/// A GAMEACC code in words, and whether the Initiator may ask for another game after it:
/// `A…2` refuses this game only, `A…1` (protocol version) and `A…3` (no games) refuse them
/// all.
pub const fn game_answer(code: AcceptCode) -> (&'static str, bool) {
    match code {
        AcceptCode::Accepted => ("accepted", true),
        AcceptCode::VersionNotSupported => ("protocol version not supported", false),
        AcceptCode::GameNotAcceptable => ("game not acceptable", true),
        AcceptCode::NoGames => ("no games at all", false),
    }
}

/// How much a frame that is not a DXP message matters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FrameFault {
    /// An empty frame (a lone NUL), or one cut off by the end of the stream: it carries
    /// nothing, so it is not worth telling.
    Harmless,
    /// A frame starting with `C` that does not decode: a broken CHAT, which changes no state.
    BrokenChat,
    /// Anything else: the dialogue cannot go on as if it had not come.
    Breach,
}

/// How much `error`'s frame matters; see [`FrameFault`].
pub fn frame_fault(error: &StreamError) -> FrameFault {
    let harmless = matches!(error, StreamError::Frame(frame)
        if matches!(frame.kind(), FrameErrorKind::Empty | FrameErrorKind::Truncated));
    if harmless {
        FrameFault::Harmless
    } else if error.raw().as_bytes().first() == Some(&b'C') {
        FrameFault::BrokenChat
    } else {
        FrameFault::Breach
    }
}

/// A GAMEEND with `reason`, asking to stop (stop code `1`) if `stop`.
pub const fn game_end(reason: EndReason, stop: bool) -> GameEnd {
    let stop = if stop {
        StopCode::Stop
    } else {
        StopCode::Continue
    };
    GameEnd { reason, stop }
}

/// The GAMEEND that sends a peer away (silent, or too noisy): reason `0`, stop code `1`.
pub const SEND_AWAY: GameEnd = game_end(EndReason::NoReason, true);

/// The thinking time of both sides, each against the same budget (`None`: no clock): a turn
/// runs from its start ([`Clock::since`]) to [`Clock::charge`], and is charged to the side
/// that moved. A side is out of time once past its budget by more than a grace.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Clock {
    /// Each side's time for the game, if there is a clock.
    pub(crate) budget: Option<Duration>,
    /// How far past its budget a side may go.
    grace: Duration,
    /// Time used per colour ([`Color::index`]).
    pub(crate) used: [Duration; 2],
    /// When the current turn started.
    pub(crate) since: Instant,
    /// The first side charged past its budget by more than the grace.
    pub(crate) flagged: Option<Color>,
}

impl Clock {
    /// A clock with nothing used; the first turn starts `now`.
    pub(crate) fn new(budget: Option<Duration>, grace: Duration, now: Instant) -> Clock {
        Clock {
            budget,
            grace,
            used: [Duration::ZERO; 2],
            since: now,
            flagged: None,
        }
    }

    /// Charges the time since the turn started to `color`, starts the next turn `now`, and
    /// returns the time charged.
    pub(crate) fn charge(&mut self, color: Color, now: Instant) -> Duration {
        let spent = now.saturating_duration_since(self.since);
        self.used[color.index()] += spent;
        self.since = now;
        if self.flagged.is_none() && self.is_past(color) {
            self.flagged = Some(color);
        }
        spent
    }

    /// What is left of its budget to `color`.
    pub(crate) fn remaining(&self, color: Color) -> Option<Duration> {
        (self.budget).map(|budget| budget.saturating_sub(self.used[color.index()]))
    }

    /// Whether `color` is past its budget by more than the grace.
    pub(crate) fn is_past(&self, color: Color) -> bool {
        (self.budget).is_some_and(|budget| self.used[color.index()] > budget + self.grace)
    }
}

/// What a first GAMEEND from `ender` with `reason` says, when the rules do not decide: reason
/// `1`, `ender` lost; `2`, a draw; `3`, `ender` won; `0` gives no result (`None`).
pub fn claim_ending(ender: Color, reason: EndReason) -> (Option<GameResult>, Termination) {
    match reason {
        EndReason::GiveUp => (Some(win(!ender)), Termination::GaveUp { by: ender }),
        EndReason::Draw => (
            Some(GameResult::Draw),
            Termination::DrawDeclared { by: ender },
        ),
        EndReason::Win => (Some(win(ender)), Termination::WinClaimed { by: ender }),
        EndReason::NoReason => (None, Termination::Ended { by: ender }),
    }
}

/// The GAMEEND reason that says `result` from `side`'s seat, as [`claim_ending`] reads it:
/// `1`, `side` lost; `2`, a draw; `3`, `side` won; `0`, no result.
pub(crate) fn claim_reason(side: Color, result: GameResult) -> EndReason {
    match result {
        GameResult::Draw => EndReason::Draw,
        GameResult::Unfinished => EndReason::NoReason,
        result if result == win(side) => EndReason::Win,
        _ => EndReason::GiveUp,
    }
}

/// Whether `message` counts against the [`NoiseBudget`]: a CHAT or a BACKREQ does (and so does
/// a frame that is not a message), the rest is the dialogue.
pub(crate) const fn is_noise(message: &Message) -> bool {
    matches!(message, Message::Chat(_) | Message::BackReq(_))
}

/// The noise one connection made so far against its [`NoiseBudget`]: a leaky bucket, the
/// breaches of the connection, and the CHAT replies of the current second.
#[derive(Clone, Debug, Default)]
pub(crate) struct NoiseMeter {
    budget: NoiseBudget,
    /// The bucket's level: one a noise, draining at the budget's rate a second.
    level: f64,
    /// When the level was last brought up to date.
    at: Option<Instant>,
    /// Breaches since the connection was made.
    breaches: u32,
    /// The second in which CHAT replies are counted, and how many were sent in it.
    replies: Option<(Instant, u32)>,
}

impl NoiseMeter {
    /// A meter with nothing counted.
    pub(crate) fn new(budget: NoiseBudget) -> NoiseMeter {
        NoiseMeter {
            budget,
            ..NoiseMeter::default()
        }
    }

    /// Counts one input at `now`, `noisy` ([`is_noise`], or a bad frame) or breaking the rules
    /// `breaches` times (an input that is neither costs nothing); `false` once the budget is
    /// spent.
    pub(crate) fn count(&mut self, now: Instant, noisy: bool, breaches: u32) -> bool {
        if !noisy && breaches == 0 {
            return true;
        }
        if let Some(at) = self.at {
            let drained =
                now.saturating_duration_since(at).as_secs_f64() * f64::from(self.budget.per_second);
            self.level = (self.level - drained).max(0.0);
        }
        self.at = Some(now);
        self.level += 1.0;
        self.breaches = self.breaches.saturating_add(breaches);
        // The replies are counted in the second that starts with a noisy input.
        self.replies = match self.replies {
            Some((since, sent))
                if now.saturating_duration_since(since) < Duration::from_secs(1) =>
            {
                Some((since, sent))
            }
            _ => Some((now, 0)),
        };
        self.level <= f64::from(self.budget.burst) && self.breaches <= self.budget.per_connection
    }

    /// Whether one more CHAT reply may go out in the second of the last noisy input counted.
    pub(crate) fn reply_allowed(&mut self, now: Instant) -> bool {
        let (since, sent) = self.replies.unwrap_or((now, 0));
        self.replies = Some((since, sent + 1));
        sent < self.budget.replies_per_second
    }

    /// The spent budget, in words.
    pub(crate) fn spent(&self) -> String {
        let budget = self.budget;
        format!(
            "too much noise: more than {} bad frames, chats or take-back requests at once \
             ({} a second after that) or {} violations in all",
            budget.burst, budget.per_second, budget.per_connection
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bucket holds the burst, drains at the rate, and the breaches count apart.
    #[test]
    fn the_noise_meter_holds_a_burst_and_drains() {
        let budget = NoiseBudget {
            burst: 3,
            per_second: 1,
            per_connection: 4,
            replies_per_second: 2,
        };
        let now = Instant::now();
        let mut meter = NoiseMeter::new(budget);
        assert!((0..3).all(|_| meter.count(now, true, 0)));
        assert!(!meter.count(now, true, 0), "the fourth at once is too much");
        let mut meter = NoiseMeter::new(budget);
        assert!((0..3).all(|_| meter.count(now, true, 0)));
        assert!(
            meter.count(now + Duration::from_secs(2), true, 0),
            "drained"
        );
        let mut meter = NoiseMeter::new(budget);
        let later = |s| now + Duration::from_secs(s);
        assert!((0..4).all(|s| meter.count(later(10 * s), false, 1)));
        assert!(
            !meter.count(later(100), false, 1),
            "the fifth breach in all"
        );
        let allowed: Vec<bool> = (0..3).map(|_| meter.reply_allowed(later(100))).collect();
        assert_eq!(allowed, [true, true, false]);
        meter.count(later(101), true, 0);
        assert!(meter.reply_allowed(later(101)), "a new second");
    }

    /// The clock charges the side that moved, starts the next turn, and flags the first side
    /// past its budget and the grace.
    #[test]
    fn the_clock_charges_the_mover() {
        let now = Instant::now();
        let budget = Some(Duration::from_secs(2));
        let mut clock = Clock::new(budget, Duration::from_secs(1), now);
        let spent = clock.charge(Color::White, now + Duration::from_secs(3));
        assert_eq!(spent, Duration::from_secs(3));
        clock.charge(Color::Black, now + Duration::from_secs(4));
        assert_eq!(clock.used, [3, 1].map(Duration::from_secs));
        assert!(!clock.is_past(Color::White), "within the grace");
        assert_eq!(clock.remaining(Color::Black), Some(Duration::from_secs(1)));
        clock.charge(Color::White, now + Duration::from_secs(5));
        assert!(clock.is_past(Color::White));
        assert_eq!(clock.flagged, Some(Color::White));
        let no_clock = Clock::new(None, Duration::ZERO, now);
        assert_eq!(no_clock.remaining(Color::White), None);
    }

    /// A GAMEEND's reason, when the rules do not decide.
    #[test]
    fn claims_read_as_the_spec_says() {
        use Color::{Black, White};
        assert_eq!(
            claim_ending(White, EndReason::GiveUp).0,
            Some(GameResult::BlackWins)
        );
        assert_eq!(
            claim_ending(Black, EndReason::Win).0,
            Some(GameResult::BlackWins)
        );
        assert_eq!(
            claim_ending(Black, EndReason::Draw).0,
            Some(GameResult::Draw)
        );
        assert_eq!(
            claim_ending(White, EndReason::NoReason),
            (None, Termination::Ended { by: White })
        );
        for side in [White, Black] {
            for result in [
                GameResult::WhiteWins,
                GameResult::BlackWins,
                GameResult::Draw,
            ] {
                let reason = claim_reason(side, result);
                assert_eq!(
                    claim_ending(side, reason).0,
                    Some(result),
                    "{side} {reason:?}"
                );
            }
            let reason = claim_reason(side, GameResult::Unfinished);
            assert_eq!(reason, EndReason::NoReason);
        }
    }
}

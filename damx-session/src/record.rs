//! Finished games: [`GameRecord`], its result and why it ended.

use std::fmt;

use damx_rules::{Color, DrawReason, GameResult, Move, Outcome, Position, WinReason};

use crate::config::Role;

/// The win of `color`.
pub(crate) const fn win(color: Color) -> GameResult {
    match color {
        Color::White => GameResult::WhiteWins,
        Color::Black => GameResult::BlackWins,
    }
}

/// Why a game ended; its `Display` is the PDN `Termination` tag.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Termination {
    /// The side to move had no piece or no legal move.
    NoLegalMove {
        /// That side.
        loser: Color,
    },
    /// A draw rule applied.
    DrawRule(DrawReason),
    /// A side ended the game giving up (GAMEEND reason `1`).
    GaveUp {
        /// That side.
        by: Color,
    },
    /// A side ended the game declaring a draw (GAMEEND reason `2`).
    DrawDeclared {
        /// That side.
        by: Color,
    },
    /// A side ended the game claiming a win (GAMEEND reason `3`).
    WinClaimed {
        /// That side.
        by: Color,
    },
    /// A side's clock ran out (as we measured it).
    TimeForfeit {
        /// That side.
        loser: Color,
    },
    /// Each side made the game's number of moves.
    MoveLimit {
        /// The limit.
        moves: u16,
    },
    /// A side ended the game without giving a reason (GAMEEND reason `0`).
    Ended {
        /// That side.
        by: Color,
    },
    /// A side sent a move that is not legal.
    IllegalMove {
        /// That side.
        by: Color,
        /// The frame, escaped.
        raw: String,
        /// Why it is not legal.
        why: String,
    },
    /// A side sent a move when it was not its turn.
    OutOfTurn {
        /// That side.
        by: Color,
        /// The frame, escaped.
        raw: String,
    },
    /// A side sent a frame that is not a DXP message.
    Undecodable {
        /// That side.
        by: Color,
        /// The frame, escaped.
        raw: String,
        /// Why it does not decode.
        why: String,
    },
    /// A side sent nothing when it had to move.
    Silent {
        /// That side.
        by: Color,
        /// How long we waited, in seconds.
        seconds: u64,
    },
    /// A side's player failed (for example, chose an illegal move).
    PlayerFailed {
        /// That side.
        by: Color,
        /// What happened.
        why: String,
    },
    /// The connection was lost during the game.
    ConnectionLost,
    /// The user aborted the session during the game.
    Aborted,
}

impl Termination {
    /// The termination of a rules outcome.
    pub fn of_outcome(outcome: Outcome, side_to_move: Color) -> Termination {
        match outcome {
            Outcome::Win {
                reason: WinReason::NoMoves,
                ..
            } => Termination::NoLegalMove {
                loser: side_to_move,
            },
            Outcome::Draw(reason) => Termination::DrawRule(reason),
        }
    }
}

impl fmt::Display for Termination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Termination::NoLegalMove { loser } => write!(f, "{loser} has no legal move"),
            Termination::DrawRule(reason) => write!(f, "draw: {reason}"),
            Termination::GaveUp { by } => write!(f, "{by} gave up"),
            Termination::DrawDeclared { by } => write!(f, "{by} declared a draw"),
            Termination::WinClaimed { by } => write!(f, "{by} claimed a win"),
            Termination::TimeForfeit { loser } => write!(f, "{loser} ran out of time"),
            Termination::MoveLimit { moves } => write!(f, "move limit of {moves} moves reached"),
            Termination::Ended { by } => write!(f, "{by} ended the game without a reason"),
            Termination::IllegalMove { by, raw, why } => {
                write!(f, "{by} sent an illegal move: {raw} ({why})")
            }
            Termination::OutOfTurn { by, raw } => write!(f, "{by} sent a move out of turn: {raw}"),
            Termination::Undecodable { by, raw, why } => {
                write!(f, "{by} sent an undecodable message: {raw} ({why})")
            }
            Termination::Silent { by, seconds } => write!(f, "{by} sent nothing for {seconds} s"),
            Termination::PlayerFailed { by, why } => write!(f, "{by}'s player failed: {why}"),
            Termination::ConnectionLost => f.write_str("connection lost"),
            Termination::Aborted => f.write_str("aborted"),
        }
    }
}

/// A finished (or broken-off) game, with everything its PDN record needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    /// The game's number in the session, from 1 (the PDN `Round`).
    pub number: u32,
    /// Our role in the session.
    pub role: Role,
    /// White's DXP name.
    pub white: String,
    /// Black's DXP name.
    pub black: String,
    /// The colour we played.
    pub our_color: Color,
    /// Thinking time per player in minutes (0: no clock).
    pub minutes: u16,
    /// Number of moves for the game (each side), if limited.
    pub move_limit: Option<u16>,
    /// The start position.
    pub start: Position,
    /// The moves, each legal in its position.
    pub moves: Vec<Move>,
    /// Seconds each move took, as we measured it.
    pub seconds: Vec<u16>,
    /// The result.
    pub result: GameResult,
    /// Why the game ended.
    pub termination: Termination,
    /// Where it was played (the peer's address), filled in by the driver.
    pub site: Option<String>,
    /// When it was played (`YYYY.MM.DD`, UTC), filled in by the driver.
    pub date: Option<String>,
}

//! The blocking DamExchange (DXP) session driver.
//!
//! `damx-session` runs the DXP dialogue as an Initiator or a Follower over TCP. It is the one
//! place that translates between the wire types of `damx-wire` (field numbers, seconds, names)
//! and the rules types of `damx-rules` (squares, bitboards, moves).
#![forbid(unsafe_code)]

pub mod config;
pub mod convert;
pub mod event;
pub mod machine;
pub mod player;
pub mod record;

pub use config::{
    FollowerConfig, GameFilter, GameSettings, InitiatorConfig, PdnTarget, RecordOptions, Role,
    RoleConfig, SessionConfig, Timeouts,
};
pub use damx_rules::GameResult;
pub use event::{
    CloseReason, Command, Direction, Event, MovePlayed, Side, Violation, ViolationAction,
};
pub use machine::{Incoming, Input, Machine, Output, PhaseKind, ThinkRequest};
pub use player::{
    ClockState, FirstLegalPlayer, GameInfo, Player, RandomPlayer, ScriptedPlayer, StopSignal,
    TakeBackPolicy,
};
pub use record::{GameRecord, Termination};

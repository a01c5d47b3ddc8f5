//! The DamExchange (DXP) session: both roles, every message, any peer.
//!
//! `damx-session` runs the DXP dialogue (shared/spec/dxp.md §3) as an Initiator or a Follower,
//! over a TCP connection in either direction, IPv4 or IPv6. It is the one place that translates
//! between the wire types of `damx-wire` (field numbers, seconds, names) and the rules types of
//! `damx-rules` (squares, bitboards, moves): see [`convert`].
//!
//! - [`Machine`] is the dialogue as a state machine without I/O: inputs in (a message from the
//!   peer, our player's move, a user's [`Command`], a clock tick), [`Output`]s out (messages to
//!   send, thinking to start or stop, [`Event`]s, close). Its module documentation lists every
//!   decision taken where the spec is open or assumes a correct peer.
//! - [`Connection`] is a pair of channels with a reader and a writer thread behind them, over a
//!   `TcpStream` or an in-memory pipe ([`Connection::pair`]); it frames, decodes, spaces the
//!   frames it writes ([`SessionConfig::frame_gap`]) and can log a [`Transcript`].
//! - [`run_session`] drives a machine over a connection in one `select!` loop, with the
//!   [`Player`] thinking on its own thread; [`run`] does the same over an [`Endpoint`]
//!   (connect or listen), [`play_loopback`] plays two sessions against each other on
//!   127.0.0.1, and [`serve`] is a Follower that serves several connections at once.
//! - Players: [`EnginePlayer`] (the damx engine), [`FirstLegalPlayer`], [`RandomPlayer`],
//!   [`ScriptedPlayer`]; anything else implements [`Player`].
//! - Records: every game ends as a [`GameRecord`] (in [`Event::GameOver`] and the
//!   [`SessionReport`]), saved as PDN when [`RecordOptions::pdn`] says where.
//!
//! Two sessions over an in-memory connection, one game:
//!
//! ```
//! use std::time::Duration;
//!
//! use crossbeam_channel::unbounded;
//! use damx_session::{
//!     CloseReason, Connection, ConnectionOptions, Control, Event, FirstLegalPlayer,
//!     InitiatorConfig, RandomPlayer, SessionConfig, run_session,
//! };
//!
//! // No peer here loses merged frames, so no gap between them is needed.
//! let options = ConnectionOptions { frame_gap: Duration::ZERO, transcript: None };
//! let (near, far) = Connection::pair(options.clone(), options);
//! let follower = std::thread::spawn(move || {
//!     let (_control, commands) = Control::new();
//!     let (events, _) = unbounded();
//!     let config = SessionConfig::default(); // a Follower accepting every game
//!     run_session(far, &config, Box::new(FirstLegalPlayer::new("First")), commands, events)
//! });
//!
//! let (control, commands) = Control::new(); // `control.stop()` ends the game on our turn
//! let (events, seen) = unbounded();
//! let config = SessionConfig::initiator(InitiatorConfig::default()); // one game
//! let player = Box::new(RandomPlayer::new("Random", 1));
//! let report = run_session(near, &config, player, commands, events);
//!
//! assert_eq!(report.close_reason, CloseReason::SeriesComplete);
//! assert_eq!(report.games.len(), 1);
//! assert_eq!(follower.join().unwrap().games[0].moves, report.games[0].moves);
//! assert!(seen.try_iter().any(|event| matches!(event, Event::GameStarted(_))));
//! # drop(control);
//! ```
#![forbid(unsafe_code)]

pub mod config;
pub mod connection;
pub mod convert;
pub mod driver;
pub mod engine_player;
pub mod event;
pub mod machine;
pub mod player;
pub mod record;
pub mod server;

pub use config::{
    FollowerConfig, GameFilter, GameSettings, InitiatorConfig, PdnTarget, RecordOptions, Role,
    RoleConfig, SessionConfig, Timeouts,
};
pub use connection::{Connection, ConnectionOptions, Transcript};
pub use damx_rules::GameResult;
pub use driver::{
    Control, Endpoint, LoopbackSide, SessionError, SessionReport, accept, connect,
    connection_options, dxp_name, play_loopback, run, run_session,
};
pub use engine_player::{EnginePlayer, EnginePlayerOptions};
pub use event::{
    CloseReason, Command, Direction, Event, MovePlayed, Side, Violation, ViolationAction,
};
pub use machine::{Incoming, Input, Machine, Output, PhaseKind, ThinkRequest};
pub use player::{
    ClockState, FirstLegalPlayer, GameInfo, Player, RandomPlayer, ScriptedPlayer, StopSignal,
    TakeBackPolicy,
};
pub use record::{GameRecord, Termination};
pub use server::{DEFAULT_PORT, ServerConfig, ServerEvent, ServerReport, serve, serve_on};

//! The DamExchange (DXP) session: both roles, every message, any peer.
//!
//! `damx-session` runs the DXP dialogue (docs/spec/dxp.md §3) as an Initiator or a Follower,
//! over a TCP connection in either direction, IPv4 or IPv6. It is the one place that translates
//! between the wire types of `damx-wire` (field numbers, seconds, names) and the rules types of
//! `damx-rules` (squares, bitboards, moves): see [`convert`].
//!
//! - [`PlayerMachine`] is the dialogue as a state machine without I/O: inputs in (a message from the
//!   peer, our player's move, a user's [`Command`], a clock tick), [`Output`]s out (messages to
//!   send, thinking to start or stop, [`Event`]s, close). Its module documentation lists every
//!   decision taken where the spec is open or assumes a correct peer.
//! - [`Connection`] is a pair of channels with a reader and a writer thread behind them, over a
//!   `TcpStream` or an in-memory pipe ([`Connection::pair`]); it frames, decodes, spaces the
//!   frames it writes ([`SessionConfig::frame_gap`]) and can log a [`Transcript`].
//! - [`run_session`] drives a machine over a connection in one `select!` loop, with the
//!   [`Player`] thinking on its own thread; [`run`] does the same over an [`Endpoint`]
//!   (connect or listen), [`play_loopback`] plays two sessions against each other on
//!   127.0.0.1 ([`play_against_engine`]: any player against the built-in engine), and
//!   [`serve`] is a Follower that serves several connections at once. [`interrupt`] routes
//!   Ctrl-C, SIGTERM and SIGHUP to them: the first stops the running game properly, the
//!   second aborts it.
//! - Players: [`EnginePlayer`] (the damx engine), [`FirstLegalPlayer`], [`RandomPlayer`],
//!   [`ScriptedPlayer`]; anything else implements [`Player`]. A person plays through a
//!   [`ChannelPlayer`] and a [`seat::Seat`], which turns what they want into moves and commands
//!   and runs a text front end's conversation ([`seat::Seat::converse`], [`seat::play_person`]).
//! - Settings: [`words::Words`] are the words a person chooses them by, with their meanings.
//! - Records: every game ends as a [`GameRecord`] (in [`Event::GameOver`] and the
//!   [`SessionReport`]), saved as PDN when [`RecordOptions::pdn`] says where.
//! - Showing a session: [`render::Renderer`] turns its events into the lines a person reads
//!   (or JSON lines), as `damx follow` and the other session commands print them.
//! - Watching two programs: [`proxy`] relays a connection between them and logs it frame by
//!   frame with what each frame means and what breaks the spec, behind `damx proxy`.
//! - Refereeing: [`referee`] plays one game between two DXP programs with damx as the
//!   Initiator towards both (legality checks, clocks, forfeits, adjudication), and
//!   [`tournament`] runs matches (N games or an SPRT), round robins and gauntlets on it, with
//!   an event stream of one line an event ([`tournament::event`] lists its words).
//! - Hub, the line protocol of draughts GUIs: [`hub`] has the engine side ([`hub::run_hub`],
//!   behind `damx hub`) and [`hub::HubPlayer`], which lets a Hub engine program play over DXP.
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
//!
//! # Decisions
//!
//! Where dxp.md leaves room, or assumes a correct peer, this crate decides as follows (the
//! [`machine`] module has the full list with the reasons):
//!
//! - **Follower answers**: version other than `01` -> `A…1`; configured to refuse all ->
//!   `A…3`; a start the rules refuse, without a legal move, or refused by
//!   [`FollowerConfig::filter`] -> `A…2`; otherwise `A…0`, thinking time `000` included (a
//!   game without a clock). A GAMEREQ during a game -> `A…2`, and the game goes on.
//! - **Initiator**: `A…2` skips to the next game of its plan; `A…1`/`A…3` end the session.
//!   Colours alternate in [`InitiatorConfig::series`]; each opening is played with both.
//! - **GAMEEND** is sent on our turn instead of a move when we have no legal move (reason
//!   `1`), a draw rule applied (`2`), the opponent's clock is past its time plus the grace
//!   (`0`), each side made the game's number of moves (`0`; the limit counts moves per side),
//!   or the user asks. Its stop code is `1` when the user asked to stop or we want no more
//!   games; the acknowledgement carries `1` if either side asked. A GAMEEND that arrives on
//!   our turn is honoured all the same. A stray GAMEEND between games is ignored.
//! - **Results**: the rules first (no legal move, a draw rule met since the last take-back);
//!   otherwise reason `1` loses for its sender, `2` draws, `3` wins for its sender, `0` is
//!   unfinished (`*`) unless a clock ran out. The offender loses a game ended for a protocol
//!   violation.
//! - **Moves**: a received MOVE matches a legal move by (from, to, set of captured squares)
//!   and must list its captured squares; ours lists them all, ascending, with the whole
//!   seconds of our turn. Clocks are measured here: our turn from its start to our move, the
//!   peer's from our move to its answer.
//! - **Take-backs**: BACKREQ (n, colour) is the position before that colour's n-th move;
//!   accepted when it is in the game (policy of the [`Player`]), declined otherwise; our own
//!   holds our moves until the answer.
//! - **Violations** (undecodable frame, message out of place, illegal or out-of-turn move,
//!   silence past a time-out, connection lost) never panic or hang: each is an
//!   [`Event::Violation`] with the raw bytes, the peer is told by CHAT where that helps, a
//!   running game ends with our GAMEEND and is recorded. An empty frame or a broken CHAT ends
//!   nothing.
//! - **Writing**: at least [`SessionConfig::frame_gap`] (100 ms) between two frames, for
//!   pydraughts and DXC100.
//! - **Records** are saved the moment a game ends, before the GAMEEND handshake, so a peer
//!   that disappears cannot lose one; the transcript is one JSON line per frame.
#![forbid(unsafe_code)]

pub mod config;
pub mod connection;
pub mod convert;
pub mod dialogue;
pub mod driver;
pub mod engine_player;
pub mod event;
pub mod hub;
pub mod interrupt;
pub mod machine;
pub mod monitor;
pub mod player;
mod process;
pub mod proxy;
pub mod record;
pub mod referee;
pub mod render;
pub mod seat;
pub mod server;
pub mod tournament;
pub mod view;
pub mod words;

pub use config::{
    ChoiceError, DEFAULT_MAX_MINUTES, FollowerConfig, GameFilter, GameSettings, InitiatorConfig,
    NoiseBudget, PdnTarget, RecordOptions, Role, RoleConfig, SeriesColors, SeriesPlan,
    SessionConfig, Timeouts,
};
pub use connection::{Connection, ConnectionOptions, Transcript};
pub use damx_rules::GameResult;
pub use damx_wire::{AcceptCode, BackAccCode, EndReason, RawBytes};
pub use driver::{
    Address, AddressError, Control, Endpoint, LoopbackSide, Outcome, SessionError, SessionReport,
    accept, accept_and_run, accept_stream, connect, connect_stream, connection_options, dxp_name,
    play_loopback, run, run_session,
};
pub use engine_player::{
    EnginePlayer, EnginePlayerOptions, engine_games_text, play_against_engine,
};
pub use event::{
    CloseReason, Command, Direction, Event, MovePlayed, Side, Violation, ViolationAction,
};
pub use machine::{Incoming, Input, Output, PhaseKind, PlayerMachine, ThinkRequest};
pub use monitor::Monitor;
pub use player::{
    ChannelPlayer, ClockState, FirstLegalPlayer, GameInfo, MoveRequest, Player, RandomPlayer,
    ScriptedPlayer, StopSignal, TakeBackPolicy,
};
pub use record::{GameRecord, Termination};
pub use server::{
    DEFAULT_PORT, ServerConfig, ServerEvent, ServerReport, hash_per_session, serve, serve_on,
};
pub use view::GameView;

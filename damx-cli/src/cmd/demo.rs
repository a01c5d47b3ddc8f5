//! `damx demo`: a complete, real DXP game between two built-in engines, over TCP on
//! 127.0.0.1, shown as it is played.
//!
//! One engine is the Initiator, the other the Follower that listens on a free port of
//! 127.0.0.1 ([`damx_session::play_against_engine`]): every move goes through the DXP dialogue and
//! the sockets exactly as against another program. The game is shown from the Initiator's
//! side: a line a move, the board every `--board N` moves with both clocks, the result, the
//! whole game's moves, and the PDN file written (by default in `games/`, one file a game).
//! Each engine searches 0.2 s a move unless `--time`, `--depth` or `--minutes` says
//! otherwise. Ctrl-C ends the game properly (see [`crate::session`]).

use std::io::Write;

use crossbeam_channel::unbounded;
use damx_rules::Color;
use damx_session::{
    Control, EnginePlayer, EnginePlayerOptions, Event, InitiatorConfig, RecordOptions,
    SessionConfig, play_against_engine,
};

use crate::error::Error;
use crate::session::{on_interrupt, session_error, verdict};

use crate::show::{Options, Show};

/// What `damx demo` does.
#[derive(Debug)]
pub(crate) struct Config {
    /// How many games (colours alternate).
    pub(crate) games: u32,
    /// The clock sent in the GAMEREQ (the engines play by it unless they have fixed limits).
    pub(crate) minutes: u16,
    /// The Initiator's engine.
    pub(crate) initiator: EnginePlayerOptions,
    /// The Follower's engine.
    pub(crate) follower: EnginePlayerOptions,
    /// The least gap between frames.
    pub(crate) frame_gap: std::time::Duration,
    /// The Initiator's records (the Follower writes none: one record a game).
    pub(crate) records: RecordOptions,
    /// How to show the games.
    pub(crate) show: Options,
}

/// Plays and shows the games.
pub(crate) fn run(config: &Config, out: &mut dyn Write) -> Result<(), Error> {
    let quiet = !crate::log::enabled(crate::log::Level::Normal);
    if !config.show.json && !quiet {
        writeln!(out, "{}", header(config)).map_err(Error::stdout)?;
    }
    let mut initiator_config = SessionConfig::initiator(InitiatorConfig::series(
        config.games,
        Color::White,
        config.minutes,
        0,
        &[],
    ));
    initiator_config.frame_gap = config.frame_gap;
    initiator_config.records = config.records.clone();
    initiator_config.records.event = Some("damx demo".to_owned());

    let (control, commands) = Control::new();
    on_interrupt(move |command| {
        control.send(command);
    });
    let (events_tx, events) = unbounded::<Event>();
    let initiator = Box::new(EnginePlayer::new(config.initiator.clone()));
    let follower = config.follower.clone();
    let mut show = Show::new(config.show.clone(), false);
    let mut output: std::io::Result<()> = Ok(());
    let reports = std::thread::scope(|scope| {
        let games = scope.spawn(move || {
            play_against_engine(&initiator_config, initiator, follower, commands, events_tx)
        });
        for event in events {
            if output.is_ok() {
                output = show.event(None, &event, out);
            }
        }
        games
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    });
    output.map_err(Error::stdout)?;
    let (initiator, follower) = reports.map_err(session_error)?;
    verdict([&initiator, &follower])
}

/// What the demo plays, in one line.
fn header(config: &Config) -> String {
    format!(
        "damx demo: {} DXP game{} over TCP on 127.0.0.1, {} against {}, {}",
        config.games,
        if config.games == 1 { "" } else { "s" },
        config.initiator.name,
        config.follower.name,
        match &config.initiator.fixed {
            Some(limits) => match (limits.depth, limits.move_time) {
                (Some(depth), _) => format!("{depth} plies deep a move"),
                (None, Some(time)) => format!("{} s a move", time.as_secs_f64()),
                _ => "no limit".to_owned(),
            },
            None => format!("{} min each", config.minutes),
        }
    )
}

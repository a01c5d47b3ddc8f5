//! `damx initiate`: the built-in engine as a DXP Initiator.
//!
//! It connects to a Follower (default 127.0.0.1:27531) or listens for one (`--listen`), asks
//! for `--games` games with the clock, move limit, colours and start positions of the
//! options, and plays them. With openings (`--openings`, `--ballots`), each opening is played
//! twice in a row, damx white in one game and black in the other (`--color white` or `black`
//! keeps damx's colour and plays each opening once). Ctrl-C ends the running game properly
//! (see [`crate::session`]).

use std::io::Write;
use std::path::PathBuf;

use damx_rules::{Position, pdn};
use damx_session::{
    EnginePlayerOptions, GameSettings, InitiatorConfig, RoleConfig, SessionConfig, accept, connect,
    run_session,
};

use crate::args::ColorChoice;
use crate::error::Error;
use crate::input::read_text;
use crate::log::info;
use crate::session::{Peer, session_error, verdict};

use super::follow::{CONNECT_TIMEOUT, drive};
use super::show::{Options, Show};

/// Where the games start.
#[derive(Debug)]
pub(crate) enum Openings {
    /// The normal start.
    Normal,
    /// One position for every game.
    Fixed(Position),
    /// The positions of a file (FENs or PDN games).
    File(PathBuf),
    /// The engine's built-in ballots.
    Ballots,
}

/// What `damx initiate` does.
#[derive(Debug)]
pub(crate) struct Config {
    /// Connect or listen.
    pub(crate) peer: Peer,
    /// How many games.
    pub(crate) games: u32,
    /// Minutes per player.
    pub(crate) minutes: u16,
    /// Moves per side (0: no limit).
    pub(crate) move_limit: u16,
    /// Our colour.
    pub(crate) color: ColorChoice,
    /// Where the games start.
    pub(crate) openings: Openings,
    /// The engine.
    pub(crate) player: EnginePlayerOptions,
    /// A Hub engine program that plays instead of the engine.
    pub(crate) hub: Option<damx_session::hub::HubPlayerOptions>,
    /// The session (its plan is made here).
    pub(crate) session: SessionConfig,
    /// How to show it.
    pub(crate) show: Options,
}

/// Plays the games.
pub(crate) fn run(config: &Config, out: &mut dyn Write) -> Result<(), Error> {
    crate::session::check_records(&config.session.records)?;
    let openings = load_openings(&config.openings)?;
    let plan = plan(
        config.games,
        config.color,
        config.minutes,
        config.move_limit,
        &openings,
    );
    let mut session = config.session.clone();
    session.role = RoleConfig::Initiator(plan);
    info!("asking for {} game(s)", config.games);
    super::hub::check(config.hub.as_ref())?;
    let player = super::hub::local_player(&config.player, config.hub.as_ref());
    let report = match &config.peer {
        Peer::Connect(address) => {
            let connection =
                connect(address.to_string(), &session, CONNECT_TIMEOUT).map_err(session_error)?;
            drive(
                |commands, events| run_session(connection, &session, player, commands, events),
                &config.show,
                out,
            )?
        }
        Peer::Listen(address) => {
            let listener = address.bind()?;
            if let Ok(local) = listener.local_addr() {
                Show::new(config.show.clone(), false)
                    .listening(local, out)
                    .map_err(Error::stdout)?;
            }
            drive(
                |commands, events| match accept(&listener, &session, &commands) {
                    Ok(Some(connection)) => {
                        run_session(connection, &session, player, commands, events)
                    }
                    Ok(None) => stopped_before_connection(),
                    Err(error) => failed_before_connection(error),
                },
                &config.show,
                out,
            )?
        }
    };
    verdict([&report])?;
    // A Follower that answers every request with `A…2` ends the series without a game.
    if report.games.is_empty() && report.close_reason == damx_session::CloseReason::SeriesComplete {
        return Err(Error::Peer("the peer refused every game".to_owned()));
    }
    // A Follower that closes between games (a busy server's refusal, for one) leaves the
    // series unfinished.
    let played = report.games.len();
    if report.close_reason == damx_session::CloseReason::PeerClosed
        && played < config.games as usize
    {
        return Err(Error::Peer(format!(
            "the peer closed the connection after {played} of {} games",
            config.games
        )));
    }
    Ok(())
}

/// The report of a session stopped (Ctrl-C) before anyone connected.
pub(crate) fn stopped_before_connection() -> damx_session::SessionReport {
    damx_session::SessionReport {
        peer: None,
        games: Vec::new(),
        saved: Vec::new(),
        violations: 0,
        close_reason: damx_session::CloseReason::StopRequested,
    }
}

/// The report of a session whose connection could not be accepted.
pub(crate) fn failed_before_connection(
    error: damx_session::SessionError,
) -> damx_session::SessionReport {
    damx_session::SessionReport {
        close_reason: damx_session::CloseReason::ConnectionFailed(error.to_string()),
        ..stopped_before_connection()
    }
}

/// The games to ask for: our colour by `color`; with openings, each played twice in a row
/// with colours swapped when the colours alternate, else once each; the list is cycled.
pub(crate) fn plan(
    games: u32,
    color: ColorChoice,
    minutes: u16,
    move_limit: u16,
    openings: &[Position],
) -> InitiatorConfig {
    let per_opening = if color == ColorChoice::Alternate {
        2
    } else {
        1
    };
    let games = (0..games as usize)
        .map(|index| GameSettings {
            our_color: color.color(index),
            minutes,
            move_limit,
            start: (!openings.is_empty()).then(|| openings[(index / per_opening) % openings.len()]),
        })
        .collect();
    InitiatorConfig { games }
}

/// The start positions the options ask for (empty: the normal start).
fn load_openings(openings: &Openings) -> Result<Vec<Position>, Error> {
    Ok(match openings {
        Openings::Normal => Vec::new(),
        Openings::Fixed(position) => vec![*position],
        Openings::Ballots => damx_engine::openings::ballots()
            .iter()
            .map(|ballot| ballot.position)
            .collect(),
        Openings::File(path) => {
            let text = read_text(path)?;
            let name = path.display();
            let positions = if looks_like_pdn(&text) {
                let games =
                    pdn::parse_games(&text).map_err(|e| Error::Invalid(format!("{name}: {e}")))?;
                let mut positions = Vec::with_capacity(games.len());
                for (index, record) in games.iter().enumerate() {
                    let game = record
                        .to_game()
                        .map_err(|e| Error::Invalid(format!("{name}: game {}: {e}", index + 1)))?;
                    positions.push(*game.position());
                }
                positions
            } else {
                pdn::parse_fen_list(&text).map_err(|e| Error::Invalid(format!("{name}: {e}")))?
            };
            if let Some(index) = positions.iter().position(|p| !p.has_legal_move()) {
                return Err(Error::Invalid(format!(
                    "{name}: opening {} has no legal move",
                    index + 1
                )));
            }
            if positions.is_empty() {
                return Err(Error::Invalid(format!("{name}: no opening in the file")));
            }
            positions
        }
    })
}

/// Whether an openings file is PDN (tags or numbered moves) rather than a FEN list.
fn looks_like_pdn(text: &str) -> bool {
    text.lines()
        .map(str::trim)
        .find(|line| !line.is_empty() && !line.starts_with('#') && !line.starts_with('%'))
        .is_some_and(|line| line.starts_with('[') || line.starts_with(|c: char| c.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use damx_rules::Color;

    /// Alternating colours play each opening twice; a fixed colour plays each once.
    #[test]
    fn the_plan_pairs_openings_with_colours() {
        let a = Position::initial();
        let b: Position = "B:W31-50:B1-20".parse().unwrap();
        let plan = super::plan(4, ColorChoice::Alternate, 5, 0, &[a, b]);
        let colors: Vec<Color> = plan.games.iter().map(|g| g.our_color).collect();
        assert_eq!(
            colors,
            [Color::White, Color::Black, Color::White, Color::Black]
        );
        let starts: Vec<_> = plan.games.iter().map(|g| g.start).collect();
        assert_eq!(starts, [Some(a), Some(a), Some(b), Some(b)]);
        let plan = super::plan(3, ColorChoice::Black, 1, 40, &[a, b]);
        assert!(plan.games.iter().all(|g| g.our_color == Color::Black));
        let starts: Vec<_> = plan.games.iter().map(|g| g.start).collect();
        assert_eq!(starts, [Some(a), Some(b), Some(a)]);
        assert!(
            super::plan(2, ColorChoice::White, 5, 0, &[])
                .games
                .iter()
                .all(|g| g.start.is_none())
        );
    }

    /// PDN is told from a FEN list by its first line.
    #[test]
    fn openings_files_are_recognised() {
        assert!(looks_like_pdn("[Event \"x\"]\n1. 32-28 *"));
        assert!(looks_like_pdn("\n1. 32-28 19-23 *"));
        assert!(!looks_like_pdn("# ballots\nW:W31-50:B1-20\n"));
    }
}

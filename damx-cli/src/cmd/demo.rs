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

use damx_session::render::Renderer;
use damx_session::{EnginePlayer, play_against_engine};

use super::follow::drive;
use crate::args::DemoArgs;
use crate::error::Error;
use crate::session::verdict;

/// Plays and shows the games.
pub(crate) fn run(args: &DemoArgs, out: &mut dyn Write) -> Result<(), Error> {
    let (initiator, follower) = (args.player("damx initiator"), args.player("damx follower"));
    let show = args.show();
    if !show.json && crate::log::enabled(crate::log::Level::Normal) {
        let (games, s) = (args.games, if args.games == 1 { "" } else { "s" });
        let pace = match &initiator.fixed {
            Some(limits) => limits.to_string(),
            None => format!("{} min each", args.minutes()),
        };
        writeln!(
            out,
            "damx demo: {games} DXP game{s} over TCP on 127.0.0.1, {} against {}, {pace}",
            initiator.name, follower.name
        )
        .map_err(Error::stdout)?;
    }
    let session = args.session();
    let initiator = Box::new(EnginePlayer::new(initiator));
    let mut renderer = Renderer::new(show);
    let (initiator, follower) = drive(
        |commands, events| play_against_engine(&session, initiator, follower, commands, events),
        |event| renderer.event(None, event),
        out,
    )?;
    verdict([&initiator, &follower])
}

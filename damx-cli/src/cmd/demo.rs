//! `damx demo` (what the person sees: `damx demo --help`): two built-in engines play a real DXP
//! game over 127.0.0.1 through [`damx_session::play_against_engine`], shown from the
//! Initiator's side by [`drive`], Ctrl-C included (see [`crate::session`]).

use std::io::Write;

use damx_session::render::Renderer;
use damx_session::{EnginePlayer, engine_games_text, play_against_engine};

use crate::args::DemoArgs;
use crate::error::Error;
use crate::session::{drive, verdict};

/// Plays and shows the games.
pub(crate) fn run(args: &DemoArgs, out: &mut dyn Write) -> Result<(), Error> {
    let (initiator, follower) = (args.player("damx initiator"), args.player("damx follower"));
    let session = args.session();
    session.records.check()?;
    let show = args.show();
    if !show.json && crate::log::enabled(crate::log::Level::Normal) {
        let games = engine_games_text(&args.plan(), &initiator, &follower);
        writeln!(out, "damx demo: {games}").map_err(Error::stdout)?;
    }
    let initiator = Box::new(EnginePlayer::new(initiator));
    let mut renderer = Renderer::new(show);
    let (initiator, follower) = drive(
        |commands, events| play_against_engine(&session, initiator, follower, commands, events),
        |event| renderer.event(None, event),
        out,
    )?;
    verdict([&initiator, &follower])
}

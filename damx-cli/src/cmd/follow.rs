//! `damx follow`: the built-in engine as a DXP Follower.
//!
//! Listening (the default, on 127.0.0.1:27531), it serves up to `--max-connections`
//! connections at once through [`damx_session::serve`], one session and one engine each;
//! connecting (`--connect`), it plays one session. `--games N` stops after N games in all
//! ([`ServerConfig::max_games`]; connecting, [`damx_session::FollowerConfig::max_games`]).
//! Ctrl-C stops every session properly (see [`crate::session`]).
//!
//! `--hash` is the total for all the games at once: with `--max-connections N` each game's
//! engine gets `hash / N` MiB (at least 1), taken when the game starts and given back when it
//! ends, so the server's memory is bounded by the games it can run, not by its connections.

use std::io::Write;

use damx_engine::Limits;
use damx_session::hub::local_player;
use damx_session::render::Renderer;
use damx_session::{Address, Endpoint, ServerConfig, serve};

use crate::args::FollowArgs;
use crate::error::Error;
use crate::log::info;
use crate::session::{Side, drive, verdict};

/// Plays until the games are done, the peer stops or Ctrl-C.
pub(crate) fn run(args: &FollowArgs, out: &mut dyn Write) -> Result<(), Error> {
    args.check()?;
    let config = &args.side();
    super::hub::check(config.hub.as_ref())?;
    config.session.records.check()?;
    let engine = &config.player.engine;
    let strength = Limits::describe_fixed(config.player.fixed.as_ref());
    let (threads, hash) = (engine.threads, engine.hash_mb);
    info!("engine: {threads} thread(s), {hash} MiB of hash a game, {strength}");
    match &config.peer {
        Endpoint::Listen(address) => serve_connections(address, config, args.server(config), out),
        Endpoint::Connect(_) => verdict([&config.play(&config.session, out)?]),
    }
}

/// Listens on `address` and serves every connection as `server` says.
fn serve_connections(
    address: &Address,
    config: &Side,
    server: ServerConfig,
    out: &mut dyn Write,
) -> Result<(), Error> {
    let listener = address.bind()?;
    let players = || local_player(&config.player, config.hub.as_ref());
    let mut renderer = Renderer::new(config.show.clone()).tagged(server.max_sessions > 1);
    let report = drive(
        |commands, events| serve(listener, &server, players, commands, events),
        |event| renderer.server_event(event),
        out,
    )?;
    verdict(report.sessions.iter().map(|(_, report)| report))
}

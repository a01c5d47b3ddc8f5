//! `damx hub`: the engine behind a Hub client (a draughts GUI, pydraughts' `HubEngine`) on
//! standard input and output, through [`damx_session::hub::run_hub`]; and the player of
//! `follow` and `initiate` when `--engine hub:COMMAND` gives a Hub engine program.

use std::io::Write;

use damx_session::hub::{HubExit, HubOptions, HubPlayer, HubPlayerOptions, run_hub};
use damx_session::{EnginePlayer, EnginePlayerOptions, Player};

use damx_engine::Limits;

use crate::error::Error;
use crate::log::info;

/// What `damx hub` does.
#[derive(Debug)]
pub(crate) struct Config {
    /// The parameters' first values.
    pub(crate) options: HubOptions,
}

/// Serves the client on standard input until `quit` or the end of the input.
pub(crate) fn run(config: &Config, out: &mut dyn Write) -> Result<(), Error> {
    let exit = run_hub(
        std::io::stdin(),
        out,
        config.options.clone(),
        "damx",
        env!("CARGO_PKG_VERSION"),
    );
    match exit {
        Ok(HubExit::Quit) => info!("hub: quit"),
        Ok(HubExit::EndOfInput) => info!("hub: the input ended"),
        // The client has gone: nothing is left to say to it.
        Err(e) => info!("hub: the client has gone ({e})"),
    }
    Ok(())
}

/// The player of `follow` and `initiate`: the Hub engine program when one is given, else the
/// built-in engine.
pub(crate) fn local_player(
    engine: &EnginePlayerOptions,
    hub: Option<&HubPlayerOptions>,
) -> Box<dyn Player> {
    match hub {
        Some(options) => Box::new(HubPlayer::new(options.clone())),
        None => Box::new(EnginePlayer::new(engine.clone())),
    }
}

/// Starts the Hub engine program once and lets it go, so that a wrong command or an engine
/// that does not answer is reported before any connection is made.
pub(crate) fn check(hub: Option<&HubPlayerOptions>) -> Result<(), Error> {
    let Some(options) = hub else {
        return Ok(());
    };
    let mut player = HubPlayer::new(options.clone());
    player
        .start()
        .map_err(|e| Error::Usage(format!("hub engine {}: {e}", options.command.join(" "))))?;
    info!(
        "hub engine: {} ({}), {}",
        player.engine_name().unwrap_or("no name"),
        options.command.join(" "),
        Limits::describe_fixed(options.fixed.as_ref())
    );
    Ok(())
}

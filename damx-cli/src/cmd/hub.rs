//! `damx hub`: the engine behind a Hub client (a draughts GUI, pydraughts' `HubEngine`) on
//! standard input and output, through [`damx_session::hub::run_hub`]; and the check of the
//! Hub engine program that `--engine hub:COMMAND` gives `follow` and `initiate`.

use std::io::Write;

use damx_engine::Limits;
use damx_session::hub::{HubExit, HubOptions, HubPlayer, HubPlayerOptions, run_hub};

use crate::error::Error;
use crate::log::info;

/// Serves the client on standard input until `quit` or the end of the input.
pub(crate) fn run(options: HubOptions, out: &mut dyn Write) -> Result<(), Error> {
    let exit = run_hub(
        std::io::stdin(),
        out,
        options,
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

/// Starts the Hub engine program once, if one plays, so that a wrong command or an engine that
/// does not answer is reported before any connection is made ([`HubPlayer::check`]).
pub(crate) fn check(hub: Option<&HubPlayerOptions>) -> Result<(), Error> {
    let Some(options) = hub else {
        return Ok(());
    };
    let command = options.command.join(" ");
    let name = HubPlayer::check(options)
        .map_err(|e| Error::Usage(format!("hub engine {command}: {e}")))?;
    let name = name.as_deref().unwrap_or("no name");
    let strength = Limits::describe_fixed(options.fixed.as_ref());
    info!("hub engine: {name} ({command}), {strength}");
    Ok(())
}

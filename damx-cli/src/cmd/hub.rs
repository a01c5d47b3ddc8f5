//! `damx hub`: the engine behind a Hub client (a draughts GUI, pydraughts' `HubEngine`) on
//! standard input and output, through [`damx_session::hub::run_hub`].

use std::io::Write;

use damx_session::hub::{HubExit, HubOptions, run_hub};

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

//! The options of `damx hub`: the first values of the Hub parameters, which a client may
//! change with `set-param`.

use clap::Args;
use damx_session::hub::{HubOptions, MAX_SKILL};

use super::EngineArgs;

/// `damx hub`.
#[derive(Debug, Args)]
pub(crate) struct HubArgs {
    #[command(flatten)]
    engine: EngineArgs,

    /// Playing strength from 1 (a beginner can win) to 20 (full strength) (Hub parameter skill)
    #[arg(long, value_name = "N", default_value_t = MAX_SKILL, value_parser = clap::value_parser!(u32).range(1..=MAX_SKILL as i64))]
    skill: u32,
}

impl HubArgs {
    /// The parameters' first values.
    pub(crate) fn options(self) -> HubOptions {
        HubOptions {
            // The databases are opened at the first search, so that `init` is answered at once.
            engine: self.engine.options_without_egdb(),
            egdb: self.engine.egdb_dir(),
            // `--eval` and `--weights` are in the engine options; the Hub parameter `weights`
            // replaces them when a client sets it.
            weights: None,
            skill: self.skill,
        }
    }
}

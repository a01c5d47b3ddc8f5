//! The options of `damx hub`: the first values of the Hub parameters (a client may change
//! them with `set-param` before `init`).

use std::path::PathBuf;

use clap::Args;
use damx_session::hub::{HubOptions, MAX_SKILL};

use super::EngineArgs;
use crate::cmd;

/// `damx hub`.
#[derive(Debug, Args)]
pub(crate) struct HubArgs {
    #[command(flatten)]
    engine: EngineArgs,

    /// The endgame database directory (Hub parameter egdb)
    #[arg(long, value_name = "DIR")]
    egdb: Option<PathBuf>,

    /// A weights file for the evaluation (Hub parameter weights)
    #[arg(long, value_name = "FILE")]
    weights: Option<PathBuf>,

    /// Playing strength from 1 (a beginner can win) to 20 (full strength) (Hub parameter skill)
    #[arg(long, value_name = "N", default_value_t = MAX_SKILL, value_parser = clap::value_parser!(u32).range(1..=MAX_SKILL as i64))]
    skill: u32,
}

impl HubArgs {
    /// The validated configuration.
    pub(crate) fn into_config(self) -> cmd::hub::Config {
        cmd::hub::Config {
            options: HubOptions {
                engine: self.engine.options(),
                egdb: self.egdb,
                weights: self.weights,
                skill: self.skill,
            },
        }
    }
}

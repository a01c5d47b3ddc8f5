//! `damx egdb`: build, inspect, probe and verify the endgame databases.

use std::path::PathBuf;

use clap::Args;

use crate::cmd::egdb::Action;

/// `damx egdb`.
#[derive(Debug, Args)]
pub(crate) struct EgdbArgs {
    #[command(subcommand)]
    pub(crate) action: Action,

    /// The database directory [default: $DAMX_EGDB, else damx/egdb in the user's cache
    /// directory]
    #[arg(long, visible_alias = "dir", value_name = "DIR", global = true)]
    pub(crate) egdb: Option<PathBuf>,
}

pub(crate) const EGDB_EXAMPLES: &str = "\
Examples:
  damx egdb build --pieces 4
  damx egdb build --pieces 5 --dir /data/egdb
  damx egdb info
  damx egdb probe 'W:WK46,K47,K48:BK5'
  damx egdb verify --pieces 4

The databases hold the value (win, draw or loss for the side to move, without the draw-rule \
counters) of every position of up to N pieces, one file per material (KKM-K.egdb: White's \
kings and men, then Black's); slices of up to 4 pieces and kings-only slices also hold the \
distance to conversion. The engine (play, demo, follow, initiate, analyse, match and \
tournament participants) uses them from the same directory, or from --egdb DIR.";

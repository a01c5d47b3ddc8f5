//! `damx egdb`: build, inspect, probe and verify the endgame databases.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use damx_engine::egdb::MAX_SLICE_PIECES;
use damx_rules::Position;

use super::parse_position;
use crate::cmd;

/// `damx egdb`.
#[derive(Debug, Args)]
pub(crate) struct EgdbArgs {
    #[command(subcommand)]
    command: EgdbCommand,
}

/// The database directory, shared by the subcommands.
#[derive(Debug, Args)]
pub(crate) struct EgdbDirArgs {
    /// The database directory [default: $DAMX_EGDB, else damx/egdb in the user's cache
    /// directory]
    #[arg(long, visible_alias = "dir", value_name = "DIR", global = true)]
    egdb: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
enum EgdbCommand {
    /// Build every slice up to N pieces (finished slices are kept; an interrupted build resumes)
    Build {
        /// The most pieces on the board
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(2..=MAX_SLICE_PIECES as i64))]
        pieces: u32,
        #[command(flatten)]
        dir: EgdbDirArgs,
    },
    /// Show what the databases hold, the files that cannot be used, and the cost of a probe
    Info {
        #[command(flatten)]
        dir: EgdbDirArgs,
    },
    /// The value of a position, and of each of its moves
    Probe {
        /// The position, as a FEN such as "W:WK46,K47,K48:BK5"
        #[arg(value_parser = parse_position)]
        position: Position,
        #[command(flatten)]
        dir: EgdbDirArgs,
    },
    /// Check every stored position against its successors (exit code 1 on any mismatch)
    Verify {
        /// Only the slices of at most N pieces
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(2..=MAX_SLICE_PIECES as i64))]
        pieces: Option<u32>,
        #[command(flatten)]
        dir: EgdbDirArgs,
    },
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

impl EgdbArgs {
    /// The validated configuration.
    pub(crate) fn into_config(self) -> cmd::egdb::Config {
        let (action, dir) = match self.command {
            EgdbCommand::Build { pieces, dir } => (cmd::egdb::Action::Build { pieces }, dir),
            EgdbCommand::Info { dir } => (cmd::egdb::Action::Info, dir),
            EgdbCommand::Probe { position, dir } => (cmd::egdb::Action::Probe { position }, dir),
            EgdbCommand::Verify { pieces, dir } => (cmd::egdb::Action::Verify { pieces }, dir),
        };
        cmd::egdb::Config {
            action,
            dir: dir.egdb,
        }
    }
}

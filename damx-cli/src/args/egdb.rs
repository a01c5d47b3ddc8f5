//! `damx egdb`: build, inspect, probe and verify the endgame databases.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use damx_engine::egdb::MAX_SLICE_PIECES;
use damx_rules::Position;

use super::parse_position;

/// `damx egdb`.
#[derive(Debug, Args)]
pub(crate) struct EgdbArgs {
    #[command(subcommand)]
    pub(crate) action: EgdbAction,

    /// The database directory [default: $DAMX_EGDB, else damx/egdb in the user's cache
    /// directory]
    #[arg(long, visible_alias = "dir", value_name = "DIR", global = true)]
    pub(crate) egdb: Option<PathBuf>,
}

/// What `damx egdb` does.
#[derive(Debug, Subcommand)]
pub(crate) enum EgdbAction {
    /// Build every slice up to N pieces (finished slices are kept; an interrupted build resumes)
    Build {
        /// The most pieces on the board
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(2..=MAX_SLICE_PIECES as i64))]
        pieces: u32,
    },
    /// Show what the databases hold, the files that cannot be used, and the cost of a probe
    Info,
    /// The value of a position, and of each of its moves
    Probe {
        /// The position, as a FEN such as "W:WK46,K47,K48:BK5"
        #[arg(value_parser = parse_position)]
        position: Position,
    },
    /// Check every stored position against its successors (exit code 1 on any mismatch)
    Verify {
        /// Only the slices of at most N pieces
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(2..=MAX_SLICE_PIECES as i64))]
        pieces: Option<u32>,
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

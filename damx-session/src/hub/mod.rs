//! Hub, the line protocol of draughts GUIs (version 2, as defined with Scan 3), both ways.
//!
//! - [`protocol`]: the text: [`Line`] (`command key=value ...`, quoted values, any order),
//!   the 51-character position format and the move format with `x` captures.
//! - [`engine`]: [`HubState`], the engine side as a state machine without I/O, and
//!   [`serve`]: [`run_hub`], which runs it over a reader and a writer with the search on a
//!   thread of its own (`damx hub` is this over standard input and output).
//! - [`player`]: [`HubPlayer`], a Hub engine program as a session [`Player`](crate::Player),
//!   so that any Hub engine plays over DXP (`hub:CMD` participants).
//!
//! ```
//! use damx_session::hub::{Line, format_position, parse_position};
//!
//! let line = Line::parse("pos moves=\"32-28 19-23\" pos=Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww")?;
//! let position = parse_position(line.get("pos").unwrap())?;
//! assert_eq!(position, damx_rules::Position::initial());
//! assert_eq!(format_position(&position), line.get("pos").unwrap());
//! assert_eq!(Line::new("done").arg("move", "32-28").to_string(), "done move=32-28");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod engine;
pub mod player;
pub mod protocol;
pub mod serve;

pub use engine::{Action, GoMode, HubOptions, HubState, MAX_SKILL, SearchJob};
pub use player::{HubError, HubPlayer, HubPlayerOptions, local_player};
pub use protocol::{
    Line, LineError, TextError, format_move, format_position, parse_move, parse_position,
};
pub use serve::{HubExit, MAX_LINE, run_hub};

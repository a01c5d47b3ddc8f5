//! International draughts (FMJD rules, 10x10 board) on bitboards: legal moves, the draw rules,
//! FEN, move notation, PDN and perft.
//!
//! The vocabulary is small and `Copy`: [`Square`] (1..=50, PDN/DXP numbering), [`Color`],
//! [`Piece`], [`Bitboard`] (a set of squares in a padded 64-bit layout in which the four
//! diagonal steps are constant shifts) and [`Move`] (from, to and the set of captured squares,
//! the identity of a move in the rules). A [`Setup`] holds anything; a [`Position`] is a
//! validated board with its side to move and Zobrist key, and generates the legal moves with
//! every FMJD rule: men move forward and capture both ways, kings fly, captures are compulsory
//! and the longest capture must be taken, captured pieces stay on the board until the capture
//! ends, and duplicate capture paths are one move. [`Game`] adds the history and the
//! end-of-game rules (the [`game`] module documents how unclear cases are decided).
//!
//! Text: FEN through [`Position::from_fen`] / [`Position::to_fen`] (also `FromStr` /
//! `Display`); moves through [`Position::parse_move`] (every common form, resolved against the
//! legal moves) and [`Position::move_text`] (unambiguous, the landing path only when needed);
//! games through the [`pdn`] module ([`PdnGame`] writes PDN that pydraughts and other readers
//! accept, [`pdn::parse_games`] reads files with comments and variations). [`perft`] and
//! [`divide`] count the move tree with the published numbers as tests.
//!
//! With the `serde` feature, the vocabulary types, positions (as FEN), results and outcomes
//! serialize to readable forms.
//!
//! ```
//! use damx_rules::{perft, Position};
//!
//! let position: Position = "W:W31-50:B1-20".parse()?;
//! let moves = position.legal_moves();
//! assert_eq!(moves.len(), 9);
//!
//! let mv = position.parse_move("32-28")?;
//! assert!(position.is_legal(&mv));
//! let after = position.play(&mv);
//! assert_eq!(after.legal_moves().len(), 9);
//! assert_eq!(perft(&position, 4), 4_265);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![forbid(unsafe_code)]

pub mod bitboard;
pub mod fen;
pub mod game;
mod movegen;
mod moves;
pub mod notation;
pub mod pdn;
mod perft;
mod position;
#[cfg(feature = "serde")]
mod serde_impls;
mod square;
mod zobrist;

pub use bitboard::{Bitboard, Squares};
pub use fen::{FenError, FenErrorKind};
pub use game::{
    DrawReason, ENDGAME5_DRAW_PLIES, ENDGAME16_DRAW_PLIES, Game, KING_MOVES_DRAW_PLIES, Outcome,
    WinReason,
};
pub use moves::{Move, MoveList, MoveListIntoIter};
pub use notation::{MoveTextError, MoveTextErrorKind};
pub use pdn::{GameResult, PdnError, PdnErrorKind, PdnGame};
pub use perft::{divide, perft};
pub use position::{Diagram, IllegalMoveError, MAX_PIECES_PER_SIDE, Position, Setup, SetupError};
pub use square::{Color, ParseSquareError, Piece, Square};

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
//! end-of-game rules (see its module docs for how unclear cases are decided).
//!
//! Text: FEN through [`Position::from_fen`] / [`Position::to_fen`] (also `FromStr` /
//! `Display`), the start position's count checks through [`perft`] and [`divide`].
//!
//! ```
//! use damx_rules::{perft, Position};
//!
//! let position: Position = "W:W31-50:B1-20".parse()?;
//! let moves = position.legal_moves();
//! assert_eq!(moves.len(), 9);
//!
//! let after = position.play(&moves[0]);
//! assert_eq!(after.legal_moves().len(), 9);
//! assert_eq!(perft(&position, 4), 4_265);
//! # Ok::<(), damx_rules::FenError>(())
//! ```
#![forbid(unsafe_code)]

pub mod bitboard;
pub mod fen;
mod game;
mod movegen;
mod moves;
mod perft;
mod position;
mod square;
mod zobrist;

pub use bitboard::{Bitboard, Squares};
pub use fen::{FenError, FenErrorKind};
pub use game::{
    DrawReason, ENDGAME5_DRAW_PLIES, ENDGAME16_DRAW_PLIES, Game, KING_MOVES_DRAW_PLIES, Outcome,
    WinReason,
};
pub use moves::{Move, MoveList, MoveListIntoIter};
pub use perft::{divide, perft};
pub use position::{Diagram, IllegalMoveError, MAX_PIECES_PER_SIDE, Position, Setup, SetupError};
pub use square::{Color, ParseSquareError, Piece, Square};

//! The one place that translates between the wire types of `damx-wire` and the rules types of
//! `damx-rules`.
//!
//! - Squares and colours map one to one (`W`/`Z` on the wire, [`Color::White`]/[`Color::Black`]
//!   in the rules).
//! - A GAMEREQ's start (`A`, or `B` with a colour and 50 letters) becomes a validated
//!   [`Position`] through [`start_position`]; a board that the rules refuse (a man on its own
//!   promotion row, more than 20 pieces a side) or one whose side to move has no legal move is
//!   a [`StartPositionError`], which the Follower answers with `A…2`.
//! - A received MOVE is matched against the legal moves by (from, to, set of captured
//!   squares) in [`match_move`]: the captured list may come in any order (Scan sends it
//!   ascending, pydraughts in jump order) and is required for every capture (dxp.md §2). Our
//!   own MOVE ([`move_to_wire`]) always carries the full captured list, ascending, and the
//!   whole seconds spent.
//! - A BACKREQ (n, colour) names the position before that colour's n-th move;
//!   [`back_request_ply`] turns it into a ply of the game and [`back_request_for_ply`] back.

use std::fmt;
use std::time::Duration;

use damx_rules::{Bitboard, Color, Move, Piece, Position, Setup, SetupError, Square};
use damx_wire as wire;

/// The rules square of a wire square (both are 1..=50).
pub fn square_from_wire(square: wire::Square) -> Square {
    // Both newtypes hold exactly 1..=50, so this cannot fail.
    Square::new(square.get()).expect("wire squares are 1..=50")
}

/// The wire square of a rules square (both are 1..=50).
pub fn square_to_wire(square: Square) -> wire::Square {
    wire::Square::new(square.number()).expect("rules squares are 1..=50")
}

/// The rules colour of a wire colour (`W` white, `Z` black).
pub const fn color_from_wire(color: wire::Color) -> Color {
    match color {
        wire::Color::White => Color::White,
        wire::Color::Black => Color::Black,
    }
}

/// The wire colour of a rules colour.
pub const fn color_to_wire(color: Color) -> wire::Color {
    match color {
        Color::White => wire::Color::White,
        Color::Black => wire::Color::Black,
    }
}

/// Why a GAMEREQ's start position cannot be played.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StartPositionError {
    /// The board is not a position the rules can play from.
    Setup(SetupError),
    /// The side to move has no legal move (or no piece): there is no game to play.
    NoLegalMove {
        /// The side to move.
        side: Color,
    },
}

impl fmt::Display for StartPositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StartPositionError::Setup(error) => write!(f, "impossible start position: {error}"),
            StartPositionError::NoLegalMove { side } => {
                write!(
                    f,
                    "start position without a legal move for {side}, who is to move"
                )
            }
        }
    }
}

impl std::error::Error for StartPositionError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StartPositionError::Setup(error) => Some(error),
            StartPositionError::NoLegalMove { .. } => None,
        }
    }
}

/// The position a GAMEREQ's start field describes: the initial position for `A`, the given
/// board and side to move for `B`.
///
/// # Errors
/// A [`StartPositionError`] if the rules refuse the board or the side to move cannot move.
pub fn start_position(start: &wire::Start) -> Result<Position, StartPositionError> {
    let position = match start {
        wire::Start::Initial => Position::initial(),
        wire::Start::Position { to_move, position } => position_from_wire(*to_move, position)?,
    };
    if !position.has_legal_move() {
        return Err(StartPositionError::NoLegalMove {
            side: position.side_to_move(),
        });
    }
    Ok(position)
}

/// The rules position of a wire board and side to move (no check that the side to move can
/// move; see [`start_position`]).
///
/// # Errors
/// [`StartPositionError::Setup`] if the rules refuse the board.
pub fn position_from_wire(
    to_move: wire::Color,
    position: &wire::Position,
) -> Result<Position, StartPositionError> {
    let mut setup = Setup::empty(color_from_wire(to_move));
    for square in wire::Square::all() {
        let piece = match position.get(square) {
            wire::SquareContent::Empty => None,
            wire::SquareContent::WhiteMan => Some((Color::White, Piece::Man)),
            wire::SquareContent::BlackMan => Some((Color::Black, Piece::Man)),
            wire::SquareContent::WhiteKing => Some((Color::White, Piece::King)),
            wire::SquareContent::BlackKing => Some((Color::Black, Piece::King)),
        };
        setup.set(square_from_wire(square), piece);
    }
    Position::from_setup(&setup).map_err(StartPositionError::Setup)
}

/// The wire board of a position, with its side to move.
pub fn position_to_wire(position: &Position) -> (wire::Color, wire::Position) {
    let mut board = wire::Position::EMPTY;
    for square in Square::all() {
        let content = match position.piece_at(square) {
            None => wire::SquareContent::Empty,
            Some((Color::White, Piece::Man)) => wire::SquareContent::WhiteMan,
            Some((Color::Black, Piece::Man)) => wire::SquareContent::BlackMan,
            Some((Color::White, Piece::King)) => wire::SquareContent::WhiteKing,
            Some((Color::Black, Piece::King)) => wire::SquareContent::BlackKing,
        };
        board.set(square_to_wire(square), content);
    }
    (color_to_wire(position.side_to_move()), board)
}

/// The GAMEREQ start field for a game from `start`: `A` when `start` is `None`, else `B` with
/// the board (also for the initial position: the caller asked for it).
pub fn start_to_wire(start: Option<&Position>) -> wire::Start {
    match start {
        None => wire::Start::Initial,
        Some(position) => {
            let (to_move, position) = position_to_wire(position);
            wire::Start::Position { to_move, position }
        }
    }
}

/// Why a received MOVE is not a legal move of the position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveMatchError {
    kind: MoveMatchErrorKind,
    from: Square,
    to: Square,
}

/// What was wrong with a received MOVE.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum MoveMatchErrorKind {
    /// No legal move goes from `from` to `to`.
    NoSuchMove,
    /// A capture was sent without its captured squares (dxp.md §2: required on receipt).
    CapturedMissing,
    /// Legal captures go from `from` to `to`, but none captures exactly the squares sent.
    CapturedMismatch,
    /// The MOVE lists captured squares, but the only legal moves from `from` to `to` capture
    /// nothing.
    NotACapture,
}

impl MoveMatchError {
    /// What was wrong.
    pub const fn kind(&self) -> MoveMatchErrorKind {
        self.kind
    }
}

impl fmt::Display for MoveMatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (from, to) = (self.from, self.to);
        match self.kind {
            MoveMatchErrorKind::NoSuchMove => write!(f, "no legal move goes from {from} to {to}"),
            MoveMatchErrorKind::CapturedMissing => write!(
                f,
                "the capture {from}x{to} was sent without its captured squares"
            ),
            MoveMatchErrorKind::CapturedMismatch => write!(
                f,
                "no legal capture {from}x{to} takes exactly the squares sent"
            ),
            MoveMatchErrorKind::NotACapture => {
                write!(f, "{from}-{to} captures nothing, but squares were listed")
            }
        }
    }
}

impl std::error::Error for MoveMatchError {}

/// The legal move of `position` that a received MOVE stands for, matched by (from, to, set of
/// captured squares). The time field is informational and ignored here.
///
/// # Errors
/// A [`MoveMatchError`] saying why no legal move matches.
pub fn match_move(position: &Position, received: &wire::Move) -> Result<Move, MoveMatchError> {
    let from = square_from_wire(received.from);
    let to = square_from_wire(received.to);
    let captured: Bitboard = received
        .captured
        .as_slice()
        .iter()
        .map(|&square| square_from_wire(square))
        .collect();
    let legal = position.legal_moves();
    let mut same_ends = legal
        .iter()
        .filter(|mv| mv.from() == from && mv.to() == to)
        .peekable();
    if same_ends.peek().is_none() {
        return Err(MoveMatchError {
            kind: MoveMatchErrorKind::NoSuchMove,
            from,
            to,
        });
    }
    let mut any_capture = false;
    for mv in same_ends {
        if mv.captured() == captured {
            return Ok(*mv);
        }
        any_capture |= mv.is_capture();
    }
    let kind = if !any_capture {
        MoveMatchErrorKind::NotACapture
    } else if captured.is_empty() {
        MoveMatchErrorKind::CapturedMissing
    } else {
        MoveMatchErrorKind::CapturedMismatch
    };
    Err(MoveMatchError { kind, from, to })
}

/// The MOVE message for `mv`: from, to, every captured square in ascending order, and the
/// whole seconds of `spent` (at most 9999).
pub fn move_to_wire(mv: &Move, spent: Duration) -> wire::Move {
    let captured: Vec<wire::Square> = mv.captured().iter().map(square_to_wire).collect();
    let seconds = spent.as_secs().min(u64::from(wire::Seconds::MAX.get()));
    wire::Move {
        // In range: capped just above.
        seconds: wire::Seconds::new(seconds as u16).unwrap_or(wire::Seconds::MAX),
        from: square_to_wire(mv.from()),
        to: square_to_wire(mv.to()),
        // A move on a 10x10 board captures at most 20 distinct pieces.
        captured: wire::Captured::new(&captured).expect("a move captures at most 20 pieces"),
    }
}

/// The ply (number of moves played from the start) of the position before `color`'s
/// `move_number`-th move, in a game whose first move is made by `first`: a BACKREQ's target
/// (dxp.md §2). Move 1 of the side that starts is ply 0.
pub fn back_request_ply(first: Color, move_number: u16, color: Color) -> usize {
    let before = 2 * (usize::from(move_number.max(1)) - 1);
    if color == first { before } else { before + 1 }
}

/// The BACKREQ fields (move number, colour to move) that name the position after `ply` moves
/// of a game whose first move is made by `first`. `None` if the move number would not fit in
/// the three digits of the field.
pub fn back_request_for_ply(first: Color, ply: usize) -> Option<(wire::MoveNumber, wire::Color)> {
    let number = u16::try_from(ply / 2 + 1).ok()?;
    let number = wire::MoveNumber::new(number).ok()?;
    let color = if ply.is_multiple_of(2) { first } else { !first };
    Some((number, color_to_wire(color)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wsq(n: u8) -> wire::Square {
        wire::Square::new(n).unwrap()
    }

    fn received(bytes: &str) -> wire::Move {
        match wire::decode(bytes.as_bytes()).unwrap() {
            wire::Message::Move(mv) => mv,
            other => panic!("not a move: {other:?}"),
        }
    }

    /// Every square and colour survives the trip to the rules and back.
    #[test]
    fn squares_and_colors_round_trip() {
        for n in 1..=50 {
            let rules = square_from_wire(wsq(n));
            assert_eq!(rules.number(), n);
            assert_eq!(square_to_wire(rules), wsq(n));
        }
        for color in [Color::White, Color::Black] {
            assert_eq!(color_from_wire(color_to_wire(color)), color);
        }
        assert_eq!(color_to_wire(Color::Black).letter(), b'Z');
    }

    /// `A` and the spec's 50 letters of the normal start give the same position.
    #[test]
    fn normal_start_both_ways() {
        let letters: wire::Position = "zzzzzzzzzzzzzzzzzzzzeeeeeeeeeewwwwwwwwwwwwwwwwwwww"
            .parse()
            .unwrap();
        let b = wire::Start::Position {
            to_move: wire::Color::White,
            position: letters,
        };
        assert_eq!(start_position(&b).unwrap(), Position::initial());
        assert_eq!(
            start_position(&wire::Start::Initial).unwrap(),
            Position::initial()
        );
        assert_eq!(start_to_wire(Some(&Position::initial())), b);
        assert_eq!(start_to_wire(None), wire::Start::Initial);
    }

    /// A set-up position with kings and black to move converts both ways unchanged.
    #[test]
    fn set_up_position_round_trips() {
        let position: Position = "B:W33,K46:BK5,12,19".parse().unwrap();
        let (to_move, board) = position_to_wire(&position);
        assert_eq!(to_move, wire::Color::Black);
        assert_eq!(board.get(wsq(46)), wire::SquareContent::WhiteKing);
        assert_eq!(board.get(wsq(5)), wire::SquareContent::BlackKing);
        assert_eq!(board.get(wsq(12)), wire::SquareContent::BlackMan);
        assert_eq!(position_from_wire(to_move, &board).unwrap(), position);
    }

    /// Boards the rules refuse, and boards where the side to move cannot move, are start
    /// errors (the Follower answers them with A…2).
    #[test]
    fn unplayable_starts_are_refused() {
        // A white man on white's promotion row.
        let mut board = wire::Position::EMPTY;
        board.set(wsq(3), wire::SquareContent::WhiteMan);
        board.set(wsq(30), wire::SquareContent::BlackMan);
        let start = wire::Start::Position {
            to_move: wire::Color::White,
            position: board,
        };
        assert!(matches!(
            start_position(&start),
            Err(StartPositionError::Setup(
                SetupError::ManOnPromotionRow { .. }
            ))
        ));
        // An empty board: white to move has no piece.
        let start = wire::Start::Position {
            to_move: wire::Color::White,
            position: wire::Position::EMPTY,
        };
        assert_eq!(
            start_position(&start),
            Err(StartPositionError::NoLegalMove { side: Color::White })
        );
        // A blocked white man: 46 with black men on 41 and 37 behind it.
        let position: Position = "W:W46:B41,37".parse().unwrap();
        let (to_move, board) = position_to_wire(&position);
        let start = wire::Start::Position {
            to_move,
            position: board,
        };
        assert_eq!(
            start_position(&start),
            Err(StartPositionError::NoLegalMove { side: Color::White })
        );
    }

    /// A received capture matches whatever order its captured squares come in, and from == to
    /// is fine.
    #[test]
    fn captures_match_in_any_order() {
        // White man on 38 takes 33, 23 and 12 to land on 7 (dxp.md §5: M0000380703122333).
        let position: Position = "W:W38:B33,23,12,2".parse().unwrap();
        let expected = match_move(&position, &received("M0000380703122333")).unwrap();
        for order in ["M0000380703332312", "M0000380703231233"] {
            assert_eq!(match_move(&position, &received(order)).unwrap(), expected);
        }
        assert_eq!(expected.captured().count(), 3);
        // Our MOVE for it lists the squares ascending.
        assert_eq!(
            wire::Message::from(move_to_wire(&expected, Duration::from_millis(12_900))).to_string(),
            "M0012380703122333"
        );
    }

    /// A capture that comes back to its start square (from == to) goes out and matches.
    #[test]
    fn capture_back_to_the_start_square() {
        // The white man on 13 jumps 18, 24 (over 19), 33 (over 29), 22 (over 28), 13 (over 18).
        let position: Position = "W:W13:B18,19,28,29".parse().unwrap();
        let legal = position.legal_moves();
        assert_eq!(legal.len(), 1);
        let round = legal[0];
        assert_eq!((round.from().number(), round.to().number()), (13, 13));
        let sent = wire::Message::from(move_to_wire(&round, Duration::ZERO)).to_string();
        assert_eq!(sent, "M000013130418192829");
        assert_eq!(
            match_move(&position, &received("M000013130429182819")),
            Ok(round)
        );
    }

    /// Each kind of mismatch is told apart.
    #[test]
    fn mismatches_say_what_is_wrong() {
        let start = Position::initial();
        let err = match_move(&start, &received("M0000332700")).unwrap_err();
        assert_eq!(err.kind(), MoveMatchErrorKind::NoSuchMove);
        assert_eq!(err.to_string(), "no legal move goes from 33 to 27");
        let err = match_move(&start, &received("M000032280123")).unwrap_err();
        assert_eq!(err.kind(), MoveMatchErrorKind::NotACapture);

        let position: Position = "W:W38:B33,23,12,2".parse().unwrap();
        let err = match_move(&position, &received("M0000380700")).unwrap_err();
        assert_eq!(err.kind(), MoveMatchErrorKind::CapturedMissing);
        let err = match_move(&position, &received("M00003807021223")).unwrap_err();
        assert_eq!(err.kind(), MoveMatchErrorKind::CapturedMismatch);
    }

    /// Every legal move of the start position and of a capture-rich position survives
    /// move_to_wire + match_move.
    #[test]
    fn every_legal_move_round_trips() {
        for fen in [
            "W:W31-50:B1-20",
            "W:W27,28,32,37,38,42,43,47,48:B7,8,12,13,17,18,19,22,23",
            "B:WK46,K5,33,34:BK50,12,13,23",
        ] {
            let position: Position = fen.parse().unwrap();
            for mv in &position.legal_moves() {
                let sent = move_to_wire(mv, Duration::from_secs(3));
                let bytes = wire::Message::from(sent).to_bytes();
                let wire::Message::Move(back) = wire::decode(&bytes).unwrap() else {
                    panic!("a move")
                };
                assert_eq!(match_move(&position, &back).unwrap(), *mv, "{fen}: {mv}");
            }
        }
    }

    /// BACKREQ (n, colour) and plies agree with dxp.md §2, for white and for black starting.
    #[test]
    fn back_request_numbering() {
        use Color::{Black, White};
        // White starts: (1, W) is the start, (1, Z) after white's first move, (5, Z) ply 9.
        assert_eq!(back_request_ply(White, 1, White), 0);
        assert_eq!(back_request_ply(White, 1, Black), 1);
        assert_eq!(back_request_ply(White, 5, Black), 9);
        // Black starts: (1, Z) is the start, (1, W) after black's first move.
        assert_eq!(back_request_ply(Black, 1, Black), 0);
        assert_eq!(back_request_ply(Black, 1, White), 1);
        assert_eq!(back_request_ply(Black, 2, Black), 2);
        for first in [White, Black] {
            for ply in 0..40 {
                let (n, c) = back_request_for_ply(first, ply).unwrap();
                assert_eq!(back_request_ply(first, n.get(), color_from_wire(c)), ply);
            }
        }
        assert!(back_request_for_ply(White, 2 * 999).is_none());
    }
}

//! Set-ups (anything) and positions (validated), playing moves.

use std::fmt::{self, Write as _};
use std::hash::{Hash, Hasher};

use crate::bitboard::{ALL_BITS, BLACK_PROMOTION, Bitboard, WHITE_PROMOTION};
use crate::movegen::{self, Sides};
use crate::moves::{Move, MoveList};
use crate::square::{Color, Piece, Square};
use crate::zobrist::{BLACK_TO_MOVE, keys_of, piece_key};

/// The most pieces a side can have: the twenty it starts with.
pub const MAX_PIECES_PER_SIDE: u32 = 20;

/// An unvalidated board: a piece (or nothing) per square and a side to move.
///
/// Anything can be written into a `Setup`; [`Position::from_setup`] decides whether it is a
/// position the rules can play from.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Setup {
    /// The piece on each square, indexed by [`Square::index`].
    pub squares: [Option<(Color, Piece)>; 50],
    /// The side to move.
    pub side_to_move: Color,
}

impl Setup {
    /// An empty board with `side_to_move` to move.
    pub const fn empty(side_to_move: Color) -> Setup {
        Setup {
            squares: [None; 50],
            side_to_move,
        }
    }

    /// The piece on `square`.
    pub const fn get(&self, square: Square) -> Option<(Color, Piece)> {
        self.squares[square.index()]
    }

    /// Puts `piece` on `square` (`None` empties it); returns what was there.
    pub fn set(&mut self, square: Square, piece: Option<(Color, Piece)>) -> Option<(Color, Piece)> {
        std::mem::replace(&mut self.squares[square.index()], piece)
    }
}

impl Default for Setup {
    /// The initial position.
    fn default() -> Setup {
        Position::initial().setup()
    }
}

/// Why a [`Setup`] is not a playable position.
///
/// Rejected are boards that no game can reach by the rules and that would make the move rules
/// meaningless: a man on its own promotion row (it would have been crowned) and more than twenty
/// pieces for one side. A side without pieces is accepted (if it is to move, it has lost), and
/// so are other unreachable but playable boards.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum SetupError {
    /// A man stands on the row where its side promotes.
    ManOnPromotionRow {
        /// The square.
        square: Square,
        /// The man's colour.
        color: Color,
    },
    /// A side has more than [`MAX_PIECES_PER_SIDE`] pieces.
    TooManyPieces {
        /// The side.
        color: Color,
        /// How many pieces it has.
        count: u32,
    },
    /// A square is given two pieces (only [`Position::from_pieces`] can say so; a [`Setup`]
    /// holds one piece a square).
    SquareTwice {
        /// The square.
        square: Square,
    },
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetupError::ManOnPromotionRow { square, color } => {
                write!(f, "{color} man on {square} stands on its own promotion row")
            }
            SetupError::TooManyPieces { color, count } => write!(
                f,
                "{color} has {count} pieces, more than the {MAX_PIECES_PER_SIDE} a side starts with"
            ),
            SetupError::SquareTwice { square } => write!(f, "square {square} is given two pieces"),
        }
    }
}

impl std::error::Error for SetupError {}

/// A move that is not legal in the position it was tried in.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct IllegalMoveError {
    /// The move.
    pub mv: Move,
}

impl fmt::Display for IllegalMoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "illegal move {}", self.mv)?;
        if self.mv.is_capture() {
            let captured: Vec<String> = self.mv.captured().iter().map(|s| s.to_string()).collect();
            write!(f, " capturing {}", captured.join(","))?;
        }
        Ok(())
    }
}

impl std::error::Error for IllegalMoveError {}

/// A validated position: the pieces, the side to move and a Zobrist key.
///
/// It is small and `Copy` (four words and a colour), so the search copies it instead of undoing
/// moves. Equality compares pieces and side to move; `Hash` feeds the Zobrist key.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Position {
    white: u64,
    black: u64,
    kings: u64,
    key: u64,
    side: Color,
}

impl Position {
    /// The initial position: Black on 1..=20, White on 31..=50, White to move.
    pub fn initial() -> Position {
        let black = (0..20).fold(0, |bits, i| bits | 1 << crate::bitboard::bit_of_index(i));
        let white = (30..50).fold(0, |bits, i| bits | 1 << crate::bitboard::bit_of_index(i));
        Position::from_parts(white, black, 0, Color::White)
    }

    /// Builds a position from layout bits, computing the key.
    fn from_parts(white: u64, black: u64, kings: u64, side: Color) -> Position {
        let mut key = keys_of(Color::White, Piece::Man, white & !kings)
            ^ keys_of(Color::White, Piece::King, white & kings)
            ^ keys_of(Color::Black, Piece::Man, black & !kings)
            ^ keys_of(Color::Black, Piece::King, black & kings);
        if side == Color::Black {
            key ^= BLACK_TO_MOVE;
        }
        Position {
            white,
            black,
            kings,
            key,
            side,
        }
    }

    /// Validates a set-up (see [`SetupError`] for what is rejected).
    pub fn from_setup(setup: &Setup) -> Result<Position, SetupError> {
        let (mut white, mut black, mut kings) = (0u64, 0u64, 0u64);
        for square in Square::all() {
            let Some((color, piece)) = setup.get(square) else {
                continue;
            };
            let bit = 1u64 << square.bit();
            let promotion = match color {
                Color::White => WHITE_PROMOTION,
                Color::Black => BLACK_PROMOTION,
            };
            if piece == Piece::Man && bit & promotion != 0 {
                return Err(SetupError::ManOnPromotionRow { square, color });
            }
            match color {
                Color::White => white |= bit,
                Color::Black => black |= bit,
            }
            if piece == Piece::King {
                kings |= bit;
            }
        }
        check_piece_counts(white, black)?;
        Ok(Position::from_parts(
            white,
            black,
            kings,
            setup.side_to_move,
        ))
    }

    /// Validates a board given as four piece sets (see [`SetupError`]; a square in two of the
    /// sets is [`SetupError::SquareTwice`]). This is the fast path for code that builds many
    /// positions from bitboards, such as an endgame database generator.
    pub fn from_pieces(
        white_men: Bitboard,
        white_kings: Bitboard,
        black_men: Bitboard,
        black_kings: Bitboard,
        side_to_move: Color,
    ) -> Result<Position, SetupError> {
        let sets = [white_men, white_kings, black_men, black_kings].map(Bitboard::bits);
        let mut seen = 0u64;
        for bits in sets {
            if let Some(square) = Bitboard::from_bits(seen & bits).first() {
                return Err(SetupError::SquareTwice { square });
            }
            seen |= bits;
        }
        let [white_men, white_kings, black_men, black_kings] = sets;
        for (color, men, promotion) in [
            (Color::White, white_men, WHITE_PROMOTION),
            (Color::Black, black_men, BLACK_PROMOTION),
        ] {
            if let Some(square) = Bitboard::from_bits(men & promotion).first() {
                return Err(SetupError::ManOnPromotionRow { square, color });
            }
        }
        let (white, black) = (white_men | white_kings, black_men | black_kings);
        check_piece_counts(white, black)?;
        Ok(Position::from_parts(
            white,
            black,
            white_kings | black_kings,
            side_to_move,
        ))
    }

    /// The position as an editable set-up.
    pub fn setup(&self) -> Setup {
        let mut setup = Setup::empty(self.side);
        for square in Square::all() {
            setup.squares[square.index()] = self.piece_at(square);
        }
        setup
    }

    /// The side to move.
    #[inline]
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    /// The diagram symbol of `square`: `w`/`b` a man, `W`/`B` a king, `.` empty (see
    /// [`Position::diagram`]).
    pub fn symbol_at(&self, square: Square) -> char {
        match self.piece_at(square) {
            None => '.',
            Some((Color::White, Piece::Man)) => 'w',
            Some((Color::White, Piece::King)) => 'W',
            Some((Color::Black, Piece::Man)) => 'b',
            Some((Color::Black, Piece::King)) => 'B',
        }
    }

    /// The piece on `square`, if any.
    #[inline]
    pub fn piece_at(&self, square: Square) -> Option<(Color, Piece)> {
        let bit = 1u64 << square.bit();
        let color = if self.white & bit != 0 {
            Color::White
        } else if self.black & bit != 0 {
            Color::Black
        } else {
            return None;
        };
        let piece = if self.kings & bit != 0 {
            Piece::King
        } else {
            Piece::Man
        };
        Some((color, piece))
    }

    #[inline(always)]
    fn bits(&self, color: Color) -> u64 {
        match color {
            Color::White => self.white,
            Color::Black => self.black,
        }
    }

    /// The squares of `color`'s pieces.
    #[inline]
    pub fn pieces(&self, color: Color) -> Bitboard {
        Bitboard::from_bits(self.bits(color))
    }

    /// The squares of `color`'s men.
    #[inline]
    pub fn men(&self, color: Color) -> Bitboard {
        Bitboard::from_bits(self.bits(color) & !self.kings)
    }

    /// The squares of `color`'s kings.
    #[inline]
    pub fn kings(&self, color: Color) -> Bitboard {
        Bitboard::from_bits(self.bits(color) & self.kings)
    }

    /// The squares of `color`'s pieces of kind `piece`.
    #[inline]
    pub fn pieces_of(&self, color: Color, piece: Piece) -> Bitboard {
        match piece {
            Piece::Man => self.men(color),
            Piece::King => self.kings(color),
        }
    }

    /// The occupied squares.
    #[inline]
    pub fn occupied(&self) -> Bitboard {
        Bitboard::from_bits(self.white | self.black)
    }

    /// The empty squares.
    #[inline]
    pub fn empty(&self) -> Bitboard {
        Bitboard::from_bits(ALL_BITS & !(self.white | self.black))
    }

    /// The Zobrist key of the pieces and the side to move, updated incrementally by
    /// [`Position::play`].
    #[inline]
    pub fn hash(&self) -> u64 {
        self.key
    }

    /// The generator's view of the side to move.
    #[inline(always)]
    pub(crate) fn sides(&self) -> Sides {
        match self.side {
            Color::White => Sides {
                own: self.white,
                opp: self.black,
                kings: self.kings,
            },
            Color::Black => Sides {
                own: self.black,
                opp: self.white,
                kings: self.kings,
            },
        }
    }

    /// The legal moves: each distinct (from, to, captured set) once, only the longest captures
    /// when there are captures.
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.legal_moves_into(&mut list);
        list
    }

    /// Like [`Position::legal_moves`], but refills a list the caller keeps (no zeroing of a new
    /// list in hot loops).
    #[inline]
    pub fn legal_moves_into(&self, list: &mut MoveList) {
        match self.side {
            Color::White => movegen::generate::<true>(self.sides(), list),
            Color::Black => movegen::generate::<false>(self.sides(), list),
        }
    }

    /// The number of legal moves, counted without listing quiet moves.
    pub fn legal_move_count(&self) -> usize {
        let mut scratch = MoveList::new();
        self.count_moves_with(&mut scratch) as usize
    }

    /// The number of legal moves; `scratch` holds the captures if there are any.
    #[inline(always)]
    pub(crate) fn count_moves_with(&self, scratch: &mut MoveList) -> u64 {
        match self.side {
            Color::White => movegen::count::<true>(self.sides(), scratch),
            Color::Black => movegen::count::<false>(self.sides(), scratch),
        }
    }

    /// Whether the side to move has a capture (and so must capture).
    #[inline]
    pub fn has_capture(&self) -> bool {
        movegen::has_capture(self.sides())
    }

    /// Whether the side to move has any legal move; `false` means it has lost.
    #[inline]
    pub fn has_legal_move(&self) -> bool {
        match self.side {
            Color::White => movegen::has_move::<true>(self.sides()),
            Color::Black => movegen::has_move::<false>(self.sides()),
        }
    }

    /// Whether `mv` is one of the legal moves.
    pub fn is_legal(&self, mv: &Move) -> bool {
        self.legal_moves().contains(mv)
    }

    /// The position after `mv`, which must be legal (it is not checked: this is the search's
    /// hot path). An illegal move gives a meaningless position but never a panic.
    #[inline]
    pub fn play(&self, mv: &Move) -> Position {
        let from = 1u64 << mv.start_bit();
        let to = 1u64 << mv.end_bit();
        let captured = mv.captured().bits();
        let side = self.side;
        let mut next = *self;
        let mut key = self.key ^ BLACK_TO_MOVE;
        let (own, opp, promotion) = match side {
            Color::White => (&mut next.white, &mut next.black, WHITE_PROMOTION),
            Color::Black => (&mut next.black, &mut next.white, BLACK_PROMOTION),
        };
        *own ^= from ^ to;
        if captured != 0 {
            *opp &= !captured;
            let captured_kings = captured & self.kings;
            key ^= keys_of(!side, Piece::Man, captured ^ captured_kings)
                ^ keys_of(!side, Piece::King, captured_kings);
            next.kings &= !captured;
        }
        if self.kings & from != 0 {
            next.kings ^= from ^ to;
            key ^= piece_key(side, Piece::King, mv.start_bit())
                ^ piece_key(side, Piece::King, mv.end_bit());
        } else if to & promotion != 0 {
            next.kings |= to;
            key ^= piece_key(side, Piece::Man, mv.start_bit())
                ^ piece_key(side, Piece::King, mv.end_bit());
        } else {
            key ^= piece_key(side, Piece::Man, mv.start_bit())
                ^ piece_key(side, Piece::Man, mv.end_bit());
        }
        next.key = key;
        next.side = !side;
        next
    }

    /// The position after `mv` if it is legal.
    pub fn try_play(&self, mv: &Move) -> Result<Position, IllegalMoveError> {
        if self.is_legal(mv) {
            Ok(self.play(mv))
        } else {
            Err(IllegalMoveError { mv: *mv })
        }
    }

    /// The same pieces with the other side to move (for analysis and tests; not a legal move).
    #[must_use]
    pub fn with_side_to_move(&self, side: Color) -> Position {
        let mut position = *self;
        if position.side != side {
            position.side = side;
            position.key ^= BLACK_TO_MOVE;
        }
        position
    }

    /// A board drawing for people, White at the bottom, with the square numbers of each row at
    /// the side and a last line saying who is to move; [`Diagram`]'s methods change that.
    pub fn diagram(&self) -> Diagram<'_> {
        Diagram {
            position: self,
            numbered: false,
            indent: 0,
            side_to_move: true,
        }
    }
}

impl Default for Position {
    fn default() -> Self {
        Position::initial()
    }
}

impl Hash for Position {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.key);
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({self})")
    }
}

/// A position drawn as a board (see [`Position::diagram`]).
///
/// `w`/`b` are men, `W`/`B` kings, `.` an empty playable square; the light squares are blank.
#[derive(Clone, Copy, Debug)]
pub struct Diagram<'a> {
    position: &'a Position,
    numbered: bool,
    indent: usize,
    side_to_move: bool,
}

impl Diagram<'_> {
    /// Beside the board a second one with every square's number, instead of each row's range.
    #[must_use]
    pub fn numbered(mut self, numbered: bool) -> Self {
        self.numbered = numbered;
        self
    }

    /// Every line starts with this many spaces.
    #[must_use]
    pub fn indent(mut self, spaces: usize) -> Self {
        self.indent = spaces;
        self
    }

    /// Whether the last line says who is to move.
    #[must_use]
    pub fn side_to_move(mut self, shown: bool) -> Self {
        self.side_to_move = shown;
        self
    }
}

impl fmt::Display for Diagram<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let indent = " ".repeat(self.indent);
        for row in 0..10u8 {
            let mut line = String::with_capacity(32);
            let mut numbers = String::with_capacity(24);
            for column in 0..10u8 {
                if (row + column) % 2 == 0 {
                    line.push_str("  ");
                    numbers.push_str("  ");
                    continue;
                }
                let number = row * 5 + column / 2 + 1;
                let symbol = Square::new(number).map_or('.', |s| self.position.symbol_at(s));
                line.push(' ');
                line.push(symbol);
                write!(numbers, "{number:>2}")?;
            }
            if self.numbered {
                writeln!(f, "{indent}{line}    {numbers}")?;
            } else {
                writeln!(f, "{indent}{line}    {:>2}-{:<2}", row * 5 + 1, row * 5 + 5)?;
            }
        }
        if self.side_to_move {
            write!(f, "{indent}{} to move", self.position.side)?;
        }
        Ok(())
    }
}

/// At most [`MAX_PIECES_PER_SIDE`] pieces a side.
fn check_piece_counts(white: u64, black: u64) -> Result<(), SetupError> {
    for (color, bits) in [(Color::White, white), (Color::Black, black)] {
        let count = bits.count_ones();
        if count > MAX_PIECES_PER_SIDE {
            return Err(SetupError::TooManyPieces { color, count });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(squares: &[u8]) -> Bitboard {
        squares.iter().map(|&n| Square::new(n).unwrap()).collect()
    }

    /// The board has ten rows, the pieces where the position has them, and the numbers.
    #[test]
    fn diagrams_show_pieces_and_numbers() {
        let start = Position::initial();
        let text = start.diagram().to_string();
        let rows: Vec<&str> = text.lines().collect();
        assert_eq!(rows.len(), 11);
        assert_eq!(rows[0].matches('b').count(), 5);
        assert_eq!(rows[4].matches('.').count(), 5);
        assert!(rows[9].ends_with("46-50"), "{text}");
        assert_eq!(rows[10], "white to move");
        let numbered = start
            .diagram()
            .numbered(true)
            .indent(2)
            .side_to_move(false)
            .to_string();
        let first = numbered.lines().next().unwrap();
        assert!(first.starts_with("     b   b"), "{numbered}");
        assert!(
            first.trim_end().ends_with(" 1   2   3   4   5"),
            "{numbered}"
        );
        assert!(
            numbered.lines().last().unwrap().contains(" 46"),
            "{numbered}"
        );
        assert_eq!(numbered.lines().count(), 10);
    }

    #[test]
    fn from_pieces_agrees_with_fen_and_rejects_bad_sets() {
        let position = Position::from_pieces(
            set(&[28, 33]),
            set(&[1]),
            set(&[12]),
            set(&[50]),
            Color::Black,
        )
        .unwrap();
        assert_eq!(position, "B:WK1,28,33:BK50,12".parse().unwrap());
        assert_eq!(
            position.hash(),
            "B:WK1,28,33:BK50,12".parse::<Position>().unwrap().hash()
        );
        let twice = Position::from_pieces(set(&[28]), set(&[]), set(&[]), set(&[28]), Color::White);
        assert_eq!(
            twice,
            Err(SetupError::SquareTwice {
                square: Square::new(28).unwrap()
            })
        );
        let crowned = Position::from_pieces(set(&[3]), set(&[]), set(&[]), set(&[9]), Color::White);
        assert!(matches!(crowned, Err(SetupError::ManOnPromotionRow { .. })));
    }
}

//! The smallest vocabulary: squares, colours and piece kinds.

use std::fmt;
use std::num::ParseIntError;
use std::ops::Not;
use std::str::FromStr;

use crate::bitboard::{BIT_TO_INDEX, bit_of_index};

/// A playable (dark) square, numbered 1..=50 as in PDN and DXP.
///
/// Square 1 is the top-left playable square as White sees the board, 46 is a1, 5 is j10.
/// Black's men start on 1..=20 and promote on 46..=50; White's start on 31..=50 and promote on
/// 1..=5.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Square(u8);

impl Square {
    /// The square with this number, or `None` outside 1..=50.
    pub const fn new(number: u8) -> Option<Square> {
        if number >= 1 && number <= 50 {
            Some(Square(number))
        } else {
            None
        }
    }

    /// The square whose zero-based index (number - 1) is `index`, or `None` outside 0..50.
    pub const fn from_index(index: usize) -> Option<Square> {
        if index < 50 {
            Some(Square(index as u8 + 1))
        } else {
            None
        }
    }

    /// The PDN/DXP number, 1..=50.
    pub const fn number(self) -> u8 {
        self.0
    }

    /// The zero-based index, 0..50 (number - 1), handy for arrays.
    pub const fn index(self) -> usize {
        self.0 as usize - 1
    }

    /// The board row, 0 (squares 1..=5, White's promotion row) to 9 (46..=50, Black's).
    pub const fn row(self) -> u8 {
        (self.0 - 1) / 5
    }

    /// The board column, 0 (the a-file, squares 6, 16, ..., 46) to 9 (the j-file, 5, 15, ...).
    pub const fn column(self) -> u8 {
        let within_row = (self.0 - 1) % 5;
        if self.row().is_multiple_of(2) {
            within_row * 2 + 1
        } else {
            within_row * 2
        }
    }

    /// All fifty squares in ascending order.
    pub fn all() -> impl DoubleEndedIterator<Item = Square> + ExactSizeIterator + Clone {
        (1..=50u8).map(Square)
    }

    /// The bit of this square in the padded bitboard layout.
    pub(crate) const fn bit(self) -> u32 {
        bit_of_index(self.index())
    }

    /// The square of a bit of the padded layout; the bit must be a board bit.
    pub(crate) const fn from_bit(bit: u32) -> Square {
        Square(BIT_TO_INDEX[bit as usize & 63] + 1)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl fmt::Debug for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Square({})", self.0)
    }
}

/// Why a text is not a square number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseSquareError {
    /// Not a decimal number.
    NotANumber(ParseIntError),
    /// A number outside 1..=50.
    OutOfRange(u64),
}

impl fmt::Display for ParseSquareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseSquareError::NotANumber(_) => write!(f, "a square must be a number 1..=50"),
            ParseSquareError::OutOfRange(n) => write!(f, "square {n} is outside 1..=50"),
        }
    }
}

impl std::error::Error for ParseSquareError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ParseSquareError::NotANumber(e) => Some(e),
            ParseSquareError::OutOfRange(_) => None,
        }
    }
}

impl FromStr for Square {
    type Err = ParseSquareError;

    /// Reads `"7"` or `"07"` (leading zeros allowed, surrounding blanks not).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let n: u64 = s.parse().map_err(ParseSquareError::NotANumber)?;
        u8::try_from(n)
            .ok()
            .and_then(Square::new)
            .ok_or(ParseSquareError::OutOfRange(n))
    }
}

impl TryFrom<u8> for Square {
    type Error = ParseSquareError;

    fn try_from(number: u8) -> Result<Self, Self::Error> {
        Square::new(number).ok_or(ParseSquareError::OutOfRange(u64::from(number)))
    }
}

impl From<Square> for u8 {
    fn from(square: Square) -> u8 {
        square.number()
    }
}

/// A side: White moves first and moves towards the low square numbers.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum Color {
    /// The side that starts on 31..=50 and moves first.
    White,
    /// The side that starts on 1..=20.
    Black,
}

impl Color {
    /// The other side.
    pub const fn opposite(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    /// 0 for White, 1 for Black (for arrays indexed by colour).
    pub const fn index(self) -> usize {
        self as usize
    }

    /// `'W'` or `'B'`, as in FEN and PDN.
    pub const fn letter(self) -> char {
        match self {
            Color::White => 'W',
            Color::Black => 'B',
        }
    }

    /// The colour of a FEN letter, either case.
    pub const fn from_letter(letter: char) -> Option<Color> {
        match letter {
            'W' | 'w' => Some(Color::White),
            'B' | 'b' => Some(Color::Black),
            _ => None,
        }
    }
}

impl Not for Color {
    type Output = Color;

    fn not(self) -> Color {
        self.opposite()
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Color::White => "white",
            Color::Black => "black",
        })
    }
}

/// The kind of a piece.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum Piece {
    /// Moves one square forward, captures forwards and backwards.
    Man,
    /// A flying king: moves and captures along whole diagonals.
    King,
}

impl Piece {
    /// 0 for a man, 1 for a king.
    pub const fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Piece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Piece::Man => "man",
            Piece::King => "king",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Row and column follow the board drawing of dxp.md §4: 1 is b10, 5 is j10, 46 is a1.
    #[test]
    fn rows_and_columns_match_the_numbering() {
        let at = |n| {
            let s = Square::new(n).unwrap();
            (s.row(), s.column())
        };
        assert_eq!(at(1), (0, 1));
        assert_eq!(at(5), (0, 9));
        assert_eq!(at(6), (1, 0));
        assert_eq!(at(10), (1, 8));
        assert_eq!(at(46), (9, 0));
        assert_eq!(at(50), (9, 8));
        for s in Square::all() {
            assert_eq!((s.row() + s.column()) % 2, 1, "square {s} must be dark");
        }
    }

    /// Square text accepts leading zeros and rejects anything outside 1..=50.
    #[test]
    fn square_text() {
        assert_eq!("07".parse::<Square>().unwrap().number(), 7);
        assert_eq!("50".parse::<Square>().unwrap().number(), 50);
        assert!("0".parse::<Square>().is_err());
        assert!("51".parse::<Square>().is_err());
        assert!("99999999999999999999999".parse::<Square>().is_err());
        assert!(" 7".parse::<Square>().is_err());
        assert_eq!(Square::new(0), None);
        assert_eq!(Square::from_index(49).map(Square::number), Some(50));
        assert_eq!(Square::from_index(50), None);
    }

    /// Bits and squares convert both ways for every square.
    #[test]
    fn bit_round_trip() {
        for s in Square::all() {
            assert_eq!(Square::from_bit(s.bit()), s);
        }
    }
}

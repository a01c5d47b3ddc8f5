//! FEN as used in PDN: `W:W31-50:B1-20`.
//!
//! Reading accepts: the side to move (`W` or `B`), then colour sections in either order, each a
//! colour letter followed by comma-separated squares, `K` before a king, ranges `a-b` (also
//! `Ka-b`, all kings); blanks between tokens, lower-case letters, an empty section, a repeated
//! section for the same colour, a trailing `.` and one pair of surrounding double quotes.
//! Writing gives the form every PDN reader accepts: `W:W31,32,...:B1,2,...`, White's section
//! first, squares in ascending order, kings marked `K`, no ranges.

use std::fmt;
use std::str::FromStr;

use crate::position::{Position, Setup, SetupError};
use crate::square::{Color, Piece, Square};

/// What went wrong in a FEN string.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum FenErrorKind {
    /// Nothing but blanks.
    Empty,
    /// The text does not start with the side to move.
    ExpectedSideToMove {
        /// What was found instead.
        found: String,
    },
    /// Something other than `:` (or the end) after the side to move or a section.
    ExpectedColon {
        /// What was found instead.
        found: String,
    },
    /// A section does not start with `W` or `B`.
    ExpectedColor {
        /// What was found instead.
        found: String,
    },
    /// A square number was expected.
    ExpectedSquare {
        /// What was found instead.
        found: String,
    },
    /// A number outside 1..=50.
    SquareOutOfRange {
        /// The number as written.
        number: String,
    },
    /// A range whose end is below its start.
    BackwardRange {
        /// The first square.
        start: Square,
        /// The last square.
        end: Square,
    },
    /// A square listed twice (in one section or in both).
    DuplicateSquare {
        /// The square.
        square: Square,
    },
    /// The pieces are not a playable position.
    Setup(SetupError),
}

/// A FEN string that could not be read: what went wrong and where (a byte offset).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct FenError {
    /// What went wrong.
    pub kind: FenErrorKind,
    /// The byte offset in the input where it went wrong.
    pub offset: usize,
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid FEN at offset {}: ", self.offset)?;
        match &self.kind {
            FenErrorKind::Empty => write!(f, "the text is empty"),
            FenErrorKind::ExpectedSideToMove { found } => {
                write!(f, "expected the side to move 'W' or 'B', found {found}")
            }
            FenErrorKind::ExpectedColon { found } => write!(f, "expected ':', found {found}"),
            FenErrorKind::ExpectedColor { found } => {
                write!(f, "expected a colour section 'W' or 'B', found {found}")
            }
            FenErrorKind::ExpectedSquare { found } => {
                write!(f, "expected a square number, found {found}")
            }
            FenErrorKind::SquareOutOfRange { number } => {
                write!(f, "square {number} is outside 1..=50")
            }
            FenErrorKind::BackwardRange { start, end } => {
                write!(f, "the range {start}-{end} runs backwards")
            }
            FenErrorKind::DuplicateSquare { square } => {
                write!(f, "square {square} is given more than once")
            }
            FenErrorKind::Setup(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for FenError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            FenErrorKind::Setup(e) => Some(e),
            _ => None,
        }
    }
}

/// A cursor over the FEN text that skips blanks between tokens.
struct Cursor<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Cursor<'a> {
    fn skip_blanks(&mut self) {
        let rest = &self.text[self.at..];
        self.at += rest.len() - rest.trim_start().len();
    }

    fn peek(&mut self) -> Option<char> {
        self.skip_blanks();
        self.text[self.at..].chars().next()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.at += c.len_utf8();
        Some(c)
    }

    /// The next token described for an error message.
    fn found(&mut self) -> String {
        match self.peek() {
            None => "the end of the text".to_string(),
            Some(c) => format!("'{c}'"),
        }
    }

    fn error(&mut self, kind: FenErrorKind) -> FenError {
        self.skip_blanks();
        FenError {
            kind,
            offset: self.at,
        }
    }

    /// A square number (digits).
    fn square(&mut self) -> Result<Square, FenError> {
        self.skip_blanks();
        let start = self.at;
        let digits = self.text[start..]
            .bytes()
            .take_while(u8::is_ascii_digit)
            .count();
        if digits == 0 {
            let found = self.found();
            return Err(self.error(FenErrorKind::ExpectedSquare { found }));
        }
        let number = &self.text[start..start + digits];
        let square = number.parse::<Square>().map_err(|_| FenError {
            kind: FenErrorKind::SquareOutOfRange {
                number: number.to_string(),
            },
            offset: start,
        })?;
        self.at += digits;
        Ok(square)
    }
}

/// Reads a FEN string into a set-up (no validation beyond the syntax and duplicate squares).
pub fn parse_setup(text: &str) -> Result<Setup, FenError> {
    let mut cursor = Cursor { text, at: 0 };
    if cursor.peek().is_none() {
        return Err(cursor.error(FenErrorKind::Empty));
    }
    let quoted = cursor.peek() == Some('"');
    if quoted {
        cursor.bump();
    }
    let side = match cursor.peek().and_then(Color::from_letter) {
        Some(side) => {
            cursor.bump();
            side
        }
        None => {
            let found = cursor.found();
            return Err(cursor.error(FenErrorKind::ExpectedSideToMove { found }));
        }
    };
    let mut setup = Setup::empty(side);
    loop {
        match cursor.peek() {
            None => break,
            Some(':') => {
                cursor.bump();
            }
            Some('.') | Some('"') => break,
            Some(_) => {
                let found = cursor.found();
                return Err(cursor.error(FenErrorKind::ExpectedColon { found }));
            }
        }
        let color = match cursor.peek().and_then(Color::from_letter) {
            Some(color) => {
                cursor.bump();
                color
            }
            None => {
                let found = cursor.found();
                return Err(cursor.error(FenErrorKind::ExpectedColor { found }));
            }
        };
        // An empty section is allowed: "W:W:B1".
        if matches!(cursor.peek(), None | Some(':') | Some('.') | Some('"')) {
            continue;
        }
        loop {
            let piece = if matches!(cursor.peek(), Some('K') | Some('k')) {
                cursor.bump();
                Piece::King
            } else {
                Piece::Man
            };
            let item_offset = {
                cursor.skip_blanks();
                cursor.at
            };
            let first = cursor.square()?;
            let mut last = first;
            if cursor.peek() == Some('-') {
                cursor.bump();
                if matches!(cursor.peek(), Some('K') | Some('k')) {
                    cursor.bump();
                }
                last = cursor.square()?;
                if last < first {
                    return Err(FenError {
                        kind: FenErrorKind::BackwardRange {
                            start: first,
                            end: last,
                        },
                        offset: item_offset,
                    });
                }
            }
            for number in first.number()..=last.number() {
                let square = Square::new(number).unwrap_or(first);
                if setup.set(square, Some((color, piece))).is_some() {
                    return Err(FenError {
                        kind: FenErrorKind::DuplicateSquare { square },
                        offset: item_offset,
                    });
                }
            }
            if cursor.peek() == Some(',') {
                cursor.bump();
                // Tolerate a trailing comma before the end of the section.
                if matches!(cursor.peek(), None | Some(':') | Some('.') | Some('"')) {
                    break;
                }
            } else {
                break;
            }
        }
    }
    if cursor.peek() == Some('.') {
        cursor.bump();
    }
    if quoted && cursor.peek() == Some('"') {
        cursor.bump();
    }
    if cursor.peek().is_some() {
        let found = cursor.found();
        return Err(cursor.error(FenErrorKind::ExpectedColon { found }));
    }
    Ok(setup)
}

impl Position {
    /// Reads a position as a person names it on a command line or in a form: `startpos` (any
    /// case, blanks around it allowed) for the start position, else a FEN.
    ///
    /// ```
    /// use damx_rules::Position;
    /// assert_eq!(Position::from_fen_or_startpos(" StartPos"), Ok(Position::initial()));
    /// assert!(Position::from_fen_or_startpos("W:W51").is_err());
    /// ```
    pub fn from_fen_or_startpos(text: &str) -> Result<Position, FenError> {
        if text.trim().eq_ignore_ascii_case("startpos") {
            return Ok(Position::initial());
        }
        Position::from_fen(text)
    }

    /// Whether `text` is meant as a position rather than, say, a file name: `startpos`, or a
    /// text that starts as a FEN does (an optional quote, the side to move, a colon). Such a
    /// text's FEN errors are worth reporting as they are.
    pub fn names_a_position(text: &str) -> bool {
        let fen = text.trim_start().trim_start_matches('"').trim_start();
        let mut chars = fen.chars();
        text.trim().eq_ignore_ascii_case("startpos")
            || (matches!(chars.next(), Some('W' | 'B' | 'w' | 'b'))
                && chars.as_str().trim_start().starts_with(':'))
    }

    /// Reads a FEN string (see the [`fen`](crate::fen) module for the accepted forms).
    pub fn from_fen(text: &str) -> Result<Position, FenError> {
        let setup = parse_setup(text)?;
        Position::from_setup(&setup).map_err(|e| FenError {
            kind: FenErrorKind::Setup(e),
            offset: 0,
        })
    }

    /// Writes the position as FEN: `W:W31,32,...:B1,2,...` (White's section first, ascending
    /// squares, `K` before kings, no ranges).
    pub fn to_fen(&self) -> String {
        let mut fen = String::with_capacity(160);
        fen.push(self.side_to_move().letter());
        for color in [Color::White, Color::Black] {
            fen.push(':');
            fen.push(color.letter());
            for (i, square) in self.pieces(color).iter().enumerate() {
                if i > 0 {
                    fen.push(',');
                }
                if self.kings(color).contains(square) {
                    fen.push('K');
                }
                fen.push_str(&square.to_string());
            }
        }
        fen
    }
}

impl FromStr for Position {
    type Err = FenError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Position::from_fen(s)
    }
}

impl fmt::Display for Position {
    /// The FEN of the position.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_fen())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(text: &str) -> FenErrorKind {
        Position::from_fen(text).unwrap_err().kind
    }

    /// `startpos` and FENs name positions; anything else (a file name, `-`) does not. A text
    /// meant as a FEN keeps its error.
    #[test]
    fn positions_are_told_from_other_names() {
        for (text, named) in [
            ("startpos", true),
            ("STARTPOS ", true),
            ("W:W31-50:B1-20", true),
            ("\"B:W31:B1\"", true),
            ("b : W31:B1", true),
            ("W:W51", true),
            ("games/opening.pdn", false),
            ("Wins.pdn", false),
            ("-", false),
        ] {
            assert_eq!(Position::names_a_position(text), named, "{text}");
        }
        assert_eq!(
            Position::from_fen_or_startpos("startpos"),
            Ok(Position::initial())
        );
        assert!(Position::from_fen_or_startpos("\"B:W31:B1\"").is_ok());
        let error = Position::from_fen_or_startpos("W:W51").unwrap_err();
        assert!(error.to_string().contains("51"), "{error}");
    }

    /// The start position reads in the usual spellings and writes back canonically.
    #[test]
    fn start_position_spellings() {
        let start = Position::initial();
        for text in [
            "W:W31-50:B1-20",
            "W:B1-20:W31-50",
            "W:W31-50:B1-20.",
            "  W : W 31 - 50 , : B 1-20 \n",
            "\"W:W31-50:B1-20\"",
            "w:w31-50:b1-20",
            "W:W31-40:B1-20:W41-50",
        ] {
            assert_eq!(Position::from_fen(text), Ok(start), "{text}");
        }
        let written = start.to_fen();
        assert!(written.starts_with("W:W31,32,33,"), "{written}");
        assert!(written.ends_with(":B1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20"));
        assert_eq!(Position::from_fen(&written), Ok(start));
    }

    /// Kings, king ranges, black to move and empty sections survive a round trip.
    #[test]
    fn kings_and_sides() {
        let p = Position::from_fen("B:WK31-33,40:BK1,5").unwrap();
        assert_eq!(p.side_to_move(), Color::Black);
        assert_eq!(p.kings(Color::White).count(), 3);
        assert_eq!(p.men(Color::White).count(), 1);
        assert_eq!(p.to_fen(), "B:WK31,K32,K33,40:BK1,5");
        assert_eq!(Position::from_fen(&p.to_fen()), Ok(p));
        let lone = Position::from_fen("W:W:BK3").unwrap();
        assert_eq!(lone.to_fen(), "W:W:BK3");
        assert_eq!(
            Position::from_fen("B"),
            Ok(Position::from_fen("B:W:B").unwrap())
        );
    }

    /// Each kind of mistake is reported with what was found.
    #[test]
    fn errors_say_what_did_not_match() {
        assert_eq!(kind(""), FenErrorKind::Empty);
        assert!(matches!(
            kind("X:W1"),
            FenErrorKind::ExpectedSideToMove { .. }
        ));
        assert!(matches!(kind("W:X1"), FenErrorKind::ExpectedColor { .. }));
        assert!(matches!(
            kind("W:W1;B2"),
            FenErrorKind::ExpectedColon { .. }
        ));
        assert!(matches!(kind("W:Wx"), FenErrorKind::ExpectedSquare { .. }));
        assert!(matches!(
            kind("W:W51"),
            FenErrorKind::SquareOutOfRange { .. }
        ));
        assert!(matches!(
            kind("W:W0"),
            FenErrorKind::SquareOutOfRange { .. }
        ));
        assert!(matches!(
            kind("W:W20-10"),
            FenErrorKind::BackwardRange { .. }
        ));
        assert!(matches!(
            kind("W:W31:B31"),
            FenErrorKind::DuplicateSquare { .. }
        ));
        assert!(matches!(kind("W:W3"), FenErrorKind::Setup(_)));
        assert!(matches!(kind("W:B48"), FenErrorKind::Setup(_)));
        assert!(matches!(kind("W:W21-50"), FenErrorKind::Setup(_)));
        let e = Position::from_fen("W:W31-50:B1-2x").unwrap_err();
        assert_eq!(e.offset, 13);
        assert_eq!(
            e.to_string(),
            "invalid FEN at offset 13: expected ':', found 'x'"
        );
        let e = Position::from_fen("W:W3").unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid FEN at offset 0: white man on 3 stands on its own promotion row"
        );
    }
}

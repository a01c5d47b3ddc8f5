//! The text of the Hub protocol: lines of `command key=value ...`, the position format and the
//! move format.
//!
//! - [`Line`]: one line, parsed ([`Line::parse`]) or built and written ([`Line::new`],
//!   [`Line::arg`], `Display`). Arguments come in any order; a value is a word or a quoted
//!   string (`pv="32-28 17-22"`); an argument without `=` is a flag with an empty value.
//! - [`parse_position`] / [`format_position`]: `W` or `B` and one of `w b W B e` for each of
//!   the 50 squares in order (`Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww`).
//! - [`parse_move`] / [`format_move`]: `32-28` for a quiet move; a capture is the start, the
//!   landing square and every captured square, joined by `x` (`28x19x23`), captured squares in
//!   any order when read and ascending when written.

use std::fmt;

use damx_rules::{Bitboard, Color, Move, Piece, Position, Setup, Square};

/// One Hub line: a command and its arguments in the order given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// The command word (`pos`, `go`, `done`, ...).
    pub command: String,
    /// The arguments; a flag has an empty value.
    pub args: Vec<(String, String)>,
}

/// Why a line could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LineError {
    /// The line is blank.
    Empty,
    /// A quoted value has no closing quote.
    UnclosedQuote {
        /// The argument.
        key: String,
    },
    /// An `=` where an argument name was expected.
    MissingName {
        /// The byte offset.
        offset: usize,
    },
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LineError::Empty => f.write_str("empty line"),
            LineError::UnclosedQuote { key } => {
                write!(f, "the value of {key} has no closing quote")
            }
            LineError::MissingName { offset } => {
                write!(f, "an argument without a name at byte {offset}")
            }
        }
    }
}

impl std::error::Error for LineError {}

/// A character that may appear in a bare word (a command, a name or an unquoted value).
fn is_word_char(c: char) -> bool {
    !c.is_control() && !c.is_whitespace() && c != '=' && c != '"'
}

impl Line {
    /// A line with `command` and no arguments.
    pub fn new(command: impl Into<String>) -> Line {
        Line {
            command: command.into(),
            args: Vec::new(),
        }
    }

    /// The same line with `key=value` added at the end.
    pub fn arg(mut self, key: impl Into<String>, value: impl ToString) -> Line {
        self.args.push((key.into(), value.to_string()));
        self
    }

    /// Reads a line.
    ///
    /// # Errors
    /// A [`LineError`] for a blank line, a quote left open or a `=` without a name.
    pub fn parse(text: &str) -> Result<Line, LineError> {
        let mut rest = text.trim_start();
        let offset = |rest: &str| text.len() - rest.len();
        let end = rest.find(|c: char| !is_word_char(c)).unwrap_or(rest.len());
        if end == 0 {
            return if rest.trim().is_empty() {
                Err(LineError::Empty)
            } else {
                Err(LineError::MissingName {
                    offset: offset(rest),
                })
            };
        }
        let command = rest[..end].to_owned();
        rest = &rest[end..];
        let mut args = Vec::new();
        loop {
            rest = rest.trim_start();
            if rest.is_empty() {
                break;
            }
            let end = rest.find(|c: char| !is_word_char(c)).unwrap_or(rest.len());
            if end == 0 {
                return Err(LineError::MissingName {
                    offset: offset(rest),
                });
            }
            let key = rest[..end].to_owned();
            rest = rest[end..].trim_start();
            let mut value = String::new();
            if let Some(after) = rest.strip_prefix('=') {
                rest = after.trim_start();
                if let Some(quoted) = rest.strip_prefix('"') {
                    let close = quoted
                        .find('"')
                        .ok_or_else(|| LineError::UnclosedQuote { key: key.clone() })?;
                    value = quoted[..close].to_owned();
                    rest = &quoted[close + 1..];
                } else {
                    let end = rest.find(|c: char| !is_word_char(c)).unwrap_or(rest.len());
                    value = rest[..end].to_owned();
                    rest = &rest[end..];
                }
            }
            args.push((key, value));
        }
        Ok(Line { command, args })
    }

    /// The value of the first argument named `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.args
            .iter()
            .find(|(name, _)| name == key)
            .map(|(_, value)| value.as_str())
    }

    /// Whether an argument (or flag) named `key` is there.
    pub fn has(&self, key: &str) -> bool {
        self.args.iter().any(|(name, _)| name == key)
    }
}

/// `command key=value ...`, quoting a value that is empty or holds a blank, `=` or `"` (a `"`
/// inside a value cannot be written and becomes `'`).
impl fmt::Display for Line {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.command)?;
        for (key, value) in &self.args {
            if !value.is_empty() && value.chars().all(is_word_char) {
                write!(f, " {key}={value}")?;
            } else {
                let value: String = value
                    .chars()
                    .map(|c| match c {
                        '"' => '\'',
                        c if c.is_control() => ' ',
                        c => c,
                    })
                    .collect();
                write!(f, " {key}=\"{value}\"")?;
            }
        }
        Ok(())
    }
}

/// Why a position or a move text was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TextError {
    /// A position is not 51 characters long.
    PositionLength {
        /// Its length in characters.
        found: usize,
    },
    /// The side to move is not `W` or `B`.
    SideToMove {
        /// What was there.
        found: char,
    },
    /// A square holds a character other than `w b W B e`.
    SquareSymbol {
        /// The square.
        square: u8,
        /// What was there.
        found: char,
    },
    /// The board breaks a rule of the setup (a man on its promotion row, too many pieces).
    Setup(String),
    /// A move text is not squares joined by `-` or `x`.
    MoveSyntax {
        /// The text.
        text: String,
    },
    /// A move text names no legal move of the position.
    IllegalMove {
        /// The text.
        text: String,
    },
}

impl fmt::Display for TextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TextError::PositionLength { found } => write!(
                f,
                "a position is 51 characters (side to move and 50 squares), found {found}"
            ),
            TextError::SideToMove { found } => {
                write!(f, "the side to move is W or B, found {found:?}")
            }
            TextError::SquareSymbol { square, found } => {
                write!(
                    f,
                    "square {square}: expected one of w b W B e, found {found:?}"
                )
            }
            TextError::Setup(reason) => write!(f, "impossible position: {reason}"),
            TextError::MoveSyntax { text } => write!(f, "{text:?} is not a move"),
            TextError::IllegalMove { text } => write!(f, "{text} is not a legal move here"),
        }
    }
}

impl std::error::Error for TextError {}

/// Reads a position in the Hub format (side to move, then squares 1 to 50).
///
/// # Errors
/// A [`TextError`] for a wrong length, an unknown symbol or an impossible board.
pub fn parse_position(text: &str) -> Result<Position, TextError> {
    let chars: Vec<char> = text.chars().collect();
    if chars.len() != 51 {
        return Err(TextError::PositionLength { found: chars.len() });
    }
    let side = match chars[0] {
        'W' => Color::White,
        'B' => Color::Black,
        found => return Err(TextError::SideToMove { found }),
    };
    let mut setup = Setup::empty(side);
    for (square, &symbol) in Square::all().zip(&chars[1..]) {
        let piece = match symbol {
            'w' => Some((Color::White, Piece::Man)),
            'b' => Some((Color::Black, Piece::Man)),
            'W' => Some((Color::White, Piece::King)),
            'B' => Some((Color::Black, Piece::King)),
            'e' => None,
            found => {
                return Err(TextError::SquareSymbol {
                    square: square.number(),
                    found,
                });
            }
        };
        setup.set(square, piece);
    }
    Position::from_setup(&setup).map_err(|e| TextError::Setup(e.to_string()))
}

/// Writes `position` in the Hub format.
pub fn format_position(position: &Position) -> String {
    let mut text = String::with_capacity(51);
    text.push(match position.side_to_move() {
        Color::White => 'W',
        Color::Black => 'B',
    });
    for square in Square::all() {
        text.push(match position.piece_at(square) {
            Some((Color::White, Piece::Man)) => 'w',
            Some((Color::Black, Piece::Man)) => 'b',
            Some((Color::White, Piece::King)) => 'W',
            Some((Color::Black, Piece::King)) => 'B',
            None => 'e',
        });
    }
    text
}

/// Writes a move the Hub way: `32-28`, or `28x19x23` (start, landing, captured ascending).
pub fn format_move(mv: &Move) -> String {
    if !mv.is_capture() {
        return format!("{}-{}", mv.from().number(), mv.to().number());
    }
    let mut text = format!("{}x{}", mv.from().number(), mv.to().number());
    for square in mv.captured().iter() {
        text.push('x');
        text.push_str(&square.number().to_string());
    }
    text
}

/// The squares of a move text and whether it was written as a capture, without looking at a
/// position: `Ok((from, to, captured, capture))`.
///
/// # Errors
/// [`TextError::MoveSyntax`] unless the text is two or more squares joined by `-` or `x`.
pub fn parse_move_squares(text: &str) -> Result<(Square, Square, Bitboard, bool), TextError> {
    let syntax = || TextError::MoveSyntax {
        text: text.chars().take(40).collect(),
    };
    let capture = text.contains('x');
    if capture && text.contains('-') {
        return Err(syntax());
    }
    let separator = if capture { 'x' } else { '-' };
    let mut squares = Vec::new();
    for part in text.split(separator) {
        if part.is_empty() || part.len() > 2 || !part.bytes().all(|b| b.is_ascii_digit()) {
            return Err(syntax());
        }
        let number: u8 = part.parse().map_err(|_| syntax())?;
        squares.push(Square::new(number).ok_or_else(syntax)?);
    }
    if squares.len() < 2 || (!capture && squares.len() > 2) {
        return Err(syntax());
    }
    let mut captured = Bitboard::EMPTY;
    for &square in &squares[2..] {
        captured = captured.with(square);
    }
    Ok((squares[0], squares[1], captured, capture))
}

/// The legal move of `position` that a Hub move text names: the same start and landing square
/// and, for a capture that lists them, the same captured squares. A capture written as only
/// `from x to` is taken when exactly one legal move fits.
///
/// # Errors
/// [`TextError::MoveSyntax`] for text that is not a move, [`TextError::IllegalMove`] when no
/// legal move (or more than one) fits.
pub fn parse_move(position: &Position, text: &str) -> Result<Move, TextError> {
    let (from, to, captured, capture) = parse_move_squares(text)?;
    let illegal = || TextError::IllegalMove {
        text: text.to_owned(),
    };
    let moves = position.legal_moves();
    let mut fitting = moves.iter().filter(|mv| {
        mv.from() == from
            && mv.to() == to
            && mv.is_capture() == capture
            && (captured.is_empty() || mv.captured() == captured)
    });
    let first = fitting.next().ok_or_else(illegal)?;
    if fitting.next().is_some() {
        return Err(illegal());
    }
    Ok(*first)
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww";

    /// Arguments in any order, quoted values with blanks, flags, extra blanks.
    #[test]
    fn lines_parse() {
        let line = Line::parse("  pos  moves=\"32-28 19-23\" pos=Wbb flag   ").unwrap();
        assert_eq!(line.command, "pos");
        assert_eq!(line.get("pos"), Some("Wbb"));
        assert_eq!(line.get("moves"), Some("32-28 19-23"));
        assert!(line.has("flag"));
        assert_eq!(line.get("flag"), Some(""));
        assert_eq!(line.get("other"), None);
        let spaced = Line::parse("set-param name = hash value=\"\"").unwrap();
        assert_eq!(spaced.get("name"), Some("hash"));
        assert_eq!(spaced.get("value"), Some(""));
        assert_eq!(Line::parse("   "), Err(LineError::Empty));
        assert!(matches!(
            Line::parse("go x=\"open"),
            Err(LineError::UnclosedQuote { .. })
        ));
        assert!(matches!(
            Line::parse("=go"),
            Err(LineError::MissingName { offset: 0 })
        ));
        assert!(matches!(
            Line::parse("go =x"),
            Err(LineError::MissingName { offset: 3 })
        ));
    }

    /// Written lines read back the same; values that need it are quoted.
    #[test]
    fn lines_round_trip() {
        let line = Line::new("info")
            .arg("depth", 12)
            .arg("score", "-0.25")
            .arg("pv", "32-28 17-22")
            .arg("empty", "");
        let text = line.to_string();
        assert_eq!(
            text,
            "info depth=12 score=-0.25 pv=\"32-28 17-22\" empty=\"\""
        );
        assert_eq!(Line::parse(&text).unwrap(), line);
        let tricky = Line::new("error").arg("message", "a \"quoted\" word\nand=more");
        assert_eq!(
            tricky.to_string(),
            "error message=\"a 'quoted' word and=more\""
        );
    }

    /// The start position reads and writes back; wrong lengths and symbols are refused.
    #[test]
    fn positions() {
        let position = parse_position(START).unwrap();
        assert_eq!(position, Position::initial());
        assert_eq!(format_position(&position), START);
        assert_eq!(
            parse_position(&START[..50]),
            Err(TextError::PositionLength { found: 50 })
        );
        assert_eq!(
            parse_position(&START.replacen('W', "X", 1)),
            Err(TextError::SideToMove { found: 'X' })
        );
        let mut bad = START.to_owned();
        bad.replace_range(25..26, "?");
        assert_eq!(
            parse_position(&bad),
            Err(TextError::SquareSymbol {
                square: 25,
                found: '?'
            })
        );
        // A white man on square 1 would have been crowned.
        let crowned = format!("Bw{}", "e".repeat(49));
        assert!(matches!(parse_position(&crowned), Err(TextError::Setup(_))));
        let kings = format!("BWB{}", "e".repeat(48));
        let position = parse_position(&kings).unwrap();
        assert_eq!(position.side_to_move(), Color::Black);
        assert_eq!(format_position(&position), kings);
        assert!(parse_position("Wé").is_err());
    }

    /// Captures list every captured square in any order; the text written lists them
    /// ascending.
    #[test]
    fn moves() {
        let position = Position::from_fen("W:W33:B28,17,8").unwrap();
        let capture = parse_move(&position, "33x11x17x28").unwrap();
        assert_eq!(format_move(&capture), "33x11x17x28");
        assert_eq!(parse_move(&position, "33x11x28x17"), Ok(capture));
        assert_eq!(parse_move(&position, "33x11"), Ok(capture));
        // A round trip back to the start square.
        let circle = Position::from_fen("W:W33:B28,18,19,29").unwrap();
        let round = parse_move(&circle, "33x33x29x19x28x18").unwrap();
        assert_eq!(format_move(&round), "33x33x18x19x28x29");
        assert!(matches!(
            parse_move(&position, "33x11x28"),
            Err(TextError::IllegalMove { .. })
        ));
        assert!(matches!(
            parse_move(&position, "33-29"),
            Err(TextError::IllegalMove { .. })
        ));
        let start = Position::initial();
        let quiet = parse_move(&start, "32-28").unwrap();
        assert_eq!(format_move(&quiet), "32-28");
        for bad in [
            "", "32", "32-", "32-28-23", "32x28-23", "a-b", "0-5", "51-46", "123-4",
        ] {
            assert!(
                matches!(parse_move(&start, bad), Err(TextError::MoveSyntax { .. })),
                "{bad}"
            );
        }
    }
}

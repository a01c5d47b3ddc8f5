//! Move notation: reading every common form and writing the unambiguous short one.
//!
//! Reading ([`Position::parse_move`]) resolves the text against the legal moves and accepts:
//!
//! - `32-28` and `28x19`: start and end square. The separator is only a hint: `32x28` for a
//!   quiet move and `28-19` for a capture are accepted too. `:` also separates, and
//!   blanks around separators, leading zeros and trailing `!`/`?` annotations are ignored.
//! - `3228`, `2819`: the compact form of two-digit squares (an even number of digits).
//! - `49x21x8x19`: a landing path. The PDN form gives every landing square (the square where
//!   the piece turns, or the square right behind a piece taken in a straight line). Any square
//!   of a straight run between two captured pieces is accepted for the first of them, and a
//!   partial path (some landing squares, in order) works too.
//! - `23x1x7x18`: the Hub protocol form, start and end square followed by the captured squares
//!   in any order (as engines such as Scan send them).
//! - `28x19(23,22)` or `28x19 (23 22)`: start and end square, optionally a path, and the
//!   captured squares in parentheses, in any order.
//!
//! A text that fits more than one distinct legal move is rejected with the candidates listed
//! (a path and a Hub-style reading of the same text count as two fits if they name different
//! moves); a text that fits none is rejected with the reason.
//!
//! Writing ([`Position::move_text`]) gives `32-28` or `28x19`, and the full landing path
//! (`49x21x8x19`, in the PDN form above) only when another legal capture has the same start and
//! end squares, as the PDN standard requires and PDN readers such as pydraughts expect.

use std::fmt;

use crate::bitboard::{Bitboard, DOWN_LEFT, DOWN_RIGHT, UP_LEFT, UP_RIGHT, step};
use crate::moves::Move;
use crate::position::Position;
use crate::square::{Color, Piece, Square};

/// Why a move text was not accepted.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum MoveTextErrorKind {
    /// Nothing but blanks.
    Empty,
    /// The text is not in one of the accepted forms.
    Syntax {
        /// What did not match.
        detail: String,
    },
    /// No legal move fits the text.
    NoMatch {
        /// Why, in terms of the position.
        reason: String,
    },
    /// Several distinct legal moves fit the text.
    Ambiguous {
        /// The moves that fit, each written with its full landing path.
        candidates: Vec<String>,
        /// The same moves, in the same order, for a front end that offers a choice.
        moves: Vec<Move>,
    },
}

/// A move text that could not be resolved to one legal move.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct MoveTextError {
    /// The text as given.
    pub text: String,
    /// What went wrong.
    pub kind: MoveTextErrorKind,
}

impl fmt::Display for MoveTextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "move {:?}: ", clipped(&self.text))?;
        match &self.kind {
            MoveTextErrorKind::Empty => write!(f, "the text is empty"),
            MoveTextErrorKind::Syntax { detail } => write!(f, "{detail}"),
            MoveTextErrorKind::NoMatch { reason } => write!(f, "{reason}"),
            MoveTextErrorKind::Ambiguous { candidates, .. } => {
                write!(f, "ambiguous, it fits {}", candidates.join(", "))
            }
        }
    }
}

impl std::error::Error for MoveTextError {}

/// The text of a bad move as an error shows it: whole up to 60 characters, else its first 60
/// and its length (a move is a few characters; a long word is no move, and an error line that
/// repeats all of it helps no one).
fn clipped(text: &str) -> std::borrow::Cow<'_, str> {
    const SHOWN: usize = 60;
    match text.char_indices().nth(SHOWN) {
        None => text.into(),
        Some((end, _)) => format!("{}... ({} bytes)", &text[..end], text.len()).into(),
    }
}

const CROSSING: [[usize; 2]; 4] = [
    [UP_LEFT, DOWN_RIGHT],
    [UP_RIGHT, DOWN_LEFT],
    [UP_LEFT, DOWN_RIGHT],
    [UP_RIGHT, DOWN_LEFT],
];

/// One complete capture path of a piece.
#[derive(Clone, Debug)]
struct CapturePath {
    to: Square,
    captured: Bitboard,
    /// The landing square after each captured piece (the last is `to`), in the PDN form.
    landings: Vec<Square>,
    /// For each captured piece, the squares a text may name as its landing square: the square
    /// where the piece turns, or, when it goes on straight, any square it passes before the
    /// next captured piece.
    stops: Vec<Vec<Square>>,
}

impl CapturePath {
    /// Whether `named` (intermediate squares of a move text) names landing squares of this
    /// path in order, each for a different captured piece before the last.
    fn fits(&self, named: &[Square]) -> bool {
        let before_last = &self.stops[..self.stops.len().saturating_sub(1)];
        let mut stops = before_last.iter();
        named
            .iter()
            .all(|square| stops.any(|stop| stop.contains(square)))
    }
}

/// Enumerates the complete capture paths of the piece on `from`, the same way the generator
/// searches (a king goes on straight only from the square right behind its victim).
struct PathSearch {
    from: Square,
    piece: Piece,
    opponents: Bitboard,
    /// Occupied squares without the moving piece.
    occupied: Bitboard,
    paths: Vec<CapturePath>,
}

fn next_square(square: Square, dir: usize) -> Option<Square> {
    Bitboard::from_bits(step(Bitboard::from_square(square).bits(), dir)).first()
}

impl PathSearch {
    fn new(position: &Position, from: Square) -> Option<PathSearch> {
        let (color, piece) = position.piece_at(from)?;
        Some(PathSearch {
            from,
            piece,
            opponents: position.pieces(!color),
            occupied: position.occupied().without(from),
            paths: Vec::new(),
        })
    }

    fn run(mut self) -> Vec<CapturePath> {
        let mut path = CapturePath {
            to: self.from,
            captured: Bitboard::EMPTY,
            landings: Vec::new(),
            stops: Vec::new(),
        };
        self.explore(self.from, None, [true; 4], &mut path);
        self.paths
    }

    /// Continues from `at`, reached by a capture in direction `came` (`None` at the start).
    fn explore(
        &mut self,
        at: Square,
        came: Option<usize>,
        allowed: [bool; 4],
        path: &mut CapturePath,
    ) {
        let mut extended = false;
        for dir in [UP_RIGHT, UP_LEFT, DOWN_LEFT, DOWN_RIGHT] {
            if !allowed[dir] {
                continue;
            }
            // Squares passed before reaching the first piece in this direction.
            let mut passed = Vec::new();
            let mut cursor = next_square(at, dir);
            while let Some(square) = cursor {
                if self.occupied.contains(square) || self.piece == Piece::Man {
                    break;
                }
                passed.push(square);
                cursor = next_square(square, dir);
            }
            let Some(victim) = cursor else { continue };
            if !self.opponents.contains(victim) || path.captured.contains(victim) {
                continue;
            }
            let mut landings = Vec::new();
            let mut cursor = next_square(victim, dir);
            while let Some(square) = cursor {
                if self.occupied.contains(square) {
                    break;
                }
                landings.push(square);
                if self.piece == Piece::Man {
                    break;
                }
                cursor = next_square(square, dir);
            }
            let straight = came == Some(dir);
            for (i, &landing) in landings.iter().enumerate() {
                extended = true;
                let mark = path.stops.last().map_or(0, Vec::len);
                if straight {
                    // The previous piece's landing may be named anywhere on the way here.
                    if let Some(previous) = path.stops.last_mut() {
                        previous.extend(&passed);
                    }
                }
                path.captured = path.captured.with(victim);
                path.landings.push(landing);
                path.stops.push(vec![landing]);
                let mut next = [false; 4];
                for crossing in CROSSING[dir] {
                    next[crossing] = true;
                }
                next[dir] = i == 0;
                self.explore(landing, Some(dir), next, path);
                path.captured = path.captured.without(victim);
                path.landings.pop();
                path.stops.pop();
                if let Some(previous) = path.stops.last_mut() {
                    previous.truncate(mark);
                }
            }
        }
        if !extended && !path.captured.is_empty() {
            self.paths.push(CapturePath {
                to: at,
                ..path.clone()
            });
        }
    }
}

/// The capture paths of a legal capture.
fn paths_of(position: &Position, mv: &Move) -> Vec<CapturePath> {
    PathSearch::new(position, mv.from())
        .map(PathSearch::run)
        .unwrap_or_default()
        .into_iter()
        .filter(|path| path.to == mv.to() && path.captured == mv.captured())
        .collect()
}

/// The parts of a move text.
struct MoveText {
    squares: Vec<Square>,
    captured: Option<Bitboard>,
}

fn syntax(text: &str, detail: String) -> MoveTextError {
    MoveTextError {
        text: text.to_string(),
        kind: MoveTextErrorKind::Syntax { detail },
    }
}

fn parse_number(text: &str, digits: &str) -> Result<Square, MoveTextError> {
    digits.parse::<Square>().map_err(|_| {
        syntax(
            text,
            format!("square {} is outside 1..=50", clipped(digits)),
        )
    })
}

fn parse_text(text: &str) -> Result<MoveText, MoveTextError> {
    let trimmed = text.trim().trim_end_matches(['!', '?']).trim_end();
    if trimmed.is_empty() {
        return Err(MoveTextError {
            text: text.to_string(),
            kind: MoveTextErrorKind::Empty,
        });
    }
    let (main, captured) = match trimmed.split_once('(') {
        None => (trimmed, None),
        Some((main, list)) => {
            let Some(list) = list.trim_end().strip_suffix(')') else {
                return Err(syntax(text, "the captured list misses its ')'".to_string()));
            };
            let mut captured = Bitboard::EMPTY;
            for item in list.split(|c: char| c == ',' || c.is_whitespace()) {
                if item.is_empty() {
                    continue;
                }
                if !item.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(syntax(
                        text,
                        format!(
                            "expected captured square numbers, found {:?}",
                            clipped(item)
                        ),
                    ));
                }
                captured = captured.with(parse_number(text, item)?);
            }
            if captured.is_empty() {
                return Err(syntax(text, "the captured list is empty".to_string()));
            }
            (main.trim_end(), Some(captured))
        }
    };
    let mut squares = Vec::new();
    if main.len() >= 4 && main.len() % 2 == 0 && main.bytes().all(|b| b.is_ascii_digit()) {
        // Compact form: two digits a square.
        for pair in main.as_bytes().chunks(2) {
            let digits = std::str::from_utf8(pair).unwrap_or("");
            squares.push(parse_number(text, digits)?);
        }
    } else {
        let mut expect_square = true;
        let mut rest = main;
        while let Some(c) = rest.chars().next() {
            if c.is_whitespace() {
                rest = rest.trim_start();
                continue;
            }
            if expect_square {
                let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
                if digits == 0 {
                    return Err(syntax(
                        text,
                        format!("expected a square number, found {:?}", rest_token(rest)),
                    ));
                }
                squares.push(parse_number(text, &rest[..digits])?);
                rest = &rest[digits..];
                expect_square = false;
            } else if matches!(c, '-' | 'x' | 'X' | ':') {
                rest = &rest[1..];
                expect_square = true;
            } else {
                return Err(syntax(
                    text,
                    format!(
                        "expected '-' or 'x' between squares, found {:?}",
                        rest_token(rest)
                    ),
                ));
            }
        }
        if expect_square {
            return Err(syntax(text, "the text ends with a separator".to_string()));
        }
    }
    if squares.len() < 2 {
        return Err(syntax(
            text,
            "a move needs a start and an end square".to_string(),
        ));
    }
    Ok(MoveText { squares, captured })
}

/// The first character of `rest` (for error messages).
fn rest_token(rest: &str) -> String {
    rest.chars().next().map(String::from).unwrap_or_default()
}

fn list_moves(position: &Position, moves: &[Move]) -> String {
    let texts: Vec<String> = moves.iter().map(|mv| position.move_text(mv)).collect();
    texts.join(", ")
}

fn squares_text(squares: impl IntoIterator<Item = Square>) -> String {
    let texts: Vec<String> = squares.into_iter().map(|s| s.to_string()).collect();
    texts.join(",")
}

impl Position {
    /// The moves of a line in notation, each written in the position it is played from
    /// (`["32-28", "19-23"]`). Stops at the first move that is not legal where it stands, so a
    /// line that went wrong is cut short, never written wrong.
    pub fn line_texts(&self, moves: &[Move]) -> Vec<String> {
        let mut position = *self;
        let mut texts = Vec::with_capacity(moves.len());
        for mv in moves {
            let Ok(next) = position.try_play(mv) else {
                break;
            };
            texts.push(position.move_text(mv));
            position = next;
        }
        texts
    }

    /// The line with PDN move numbers, a word a move: `["1. 32-28", "19-23", "2. 28x19"]`,
    /// which joined by spaces reads `1. 32-28 19-23 2. 37-32`. From a position with Black to
    /// move the first word is `1. ...`. Stops where [`Position::line_texts`] stops.
    pub fn numbered_line(&self, moves: &[Move]) -> Vec<String> {
        let texts = self.line_texts(moves);
        let mut words = Vec::with_capacity(texts.len() + 1);
        let mut color = self.side_to_move();
        if color == Color::Black && !texts.is_empty() {
            words.push("1. ...".to_owned());
        }
        let mut number = 1;
        for text in texts {
            if color == Color::White {
                words.push(format!("{number}. {text}"));
            } else {
                words.push(text);
                number += 1;
            }
            color = color.opposite();
        }
        words
    }

    /// The landing squares of a legal move, in the PDN form (for a capture: the square after
    /// each captured piece where the piece turns or, going on straight, the square right behind
    /// the captured piece; the last is `to`). A quiet move gives `[to]`. `None` if the move is
    /// not legal here.
    pub fn capture_path(&self, mv: &Move) -> Option<Vec<Square>> {
        if !self.is_legal(mv) {
            return None;
        }
        if !mv.is_capture() {
            return Some(vec![mv.to()]);
        }
        paths_of(self, mv).into_iter().next().map(|p| p.landings)
    }

    /// The move in notation: `32-28`, `28x19`, or the full landing path `49x21x8x19` when
    /// another legal capture shares the start and end squares. A move that is not legal here
    /// is written in the short form.
    pub fn move_text(&self, mv: &Move) -> String {
        if !mv.is_capture() {
            return mv.to_string();
        }
        let moves = self.legal_moves();
        let shares_ends = moves
            .iter()
            .any(|other| other != mv && other.from() == mv.from() && other.to() == mv.to());
        if shares_ends
            && moves.contains(mv)
            && let Some(path) = paths_of(self, mv).into_iter().next()
        {
            let mut text = mv.from().to_string();
            for square in path.landings {
                text.push('x');
                text.push_str(&square.to_string());
            }
            return text;
        }
        mv.to_string()
    }

    /// Reads a move in any of the forms of the [`notation`](crate::notation) module and
    /// resolves it against the legal moves.
    pub fn parse_move(&self, text: &str) -> Result<Move, MoveTextError> {
        let parsed = parse_text(text)?;
        let squares = &parsed.squares;
        let (from, to) = (squares[0], squares[squares.len() - 1]);
        let intermediate = &squares[1..squares.len() - 1];
        let legal = self.legal_moves();
        let fits_path = |mv: &Move| -> bool {
            if mv.from() != from || mv.to() != to {
                return false;
            }
            if parsed.captured.is_some_and(|c| c != mv.captured()) {
                return false;
            }
            if intermediate.is_empty() {
                return true;
            }
            mv.is_capture() && paths_of(self, mv).iter().any(|p| p.fits(intermediate))
        };
        let mut candidates: Vec<Move> = legal.iter().copied().filter(fits_path).collect();
        if parsed.captured.is_none() && squares.len() >= 3 {
            let hub_captured: Bitboard = squares[2..].iter().copied().collect();
            let hub_fits = |mv: &&Move| {
                mv.from() == from
                    && mv.to() == squares[1]
                    && mv.captured() == hub_captured
                    && hub_captured.count() as usize == squares.len() - 2
            };
            for mv in legal.iter().filter(hub_fits) {
                if !candidates.contains(mv) {
                    candidates.push(*mv);
                }
            }
        }
        match candidates.as_slice() {
            [mv] => Ok(*mv),
            [] => Err(MoveTextError {
                text: text.to_string(),
                kind: MoveTextErrorKind::NoMatch {
                    reason: self.why_no_match(&parsed, &legal),
                },
            }),
            many => Err(MoveTextError {
                text: text.to_string(),
                kind: MoveTextErrorKind::Ambiguous {
                    candidates: many.iter().map(|mv| self.path_text(mv)).collect(),
                    moves: many.to_vec(),
                },
            }),
        }
    }

    /// The move with its full landing path (the candidates of an ambiguity error).
    fn path_text(&self, mv: &Move) -> String {
        match paths_of(self, mv).into_iter().next() {
            Some(path) if mv.is_capture() => {
                let mut text = mv.from().to_string();
                for square in path.landings {
                    text.push('x');
                    text.push_str(&square.to_string());
                }
                format!("{text} (captures {})", squares_text(mv.captured()))
            }
            _ => mv.to_string(),
        }
    }

    fn why_no_match(&self, parsed: &MoveText, legal: &[Move]) -> String {
        let squares = &parsed.squares;
        let (from, to) = (squares[0], squares[squares.len() - 1]);
        let side = self.side_to_move();
        if legal.is_empty() {
            return format!("{side} has no legal move");
        }
        if !self.pieces(side).contains(from) {
            return format!("there is no {side} piece on {from}");
        }
        let from_here: Vec<Move> = legal.iter().copied().filter(|m| m.from() == from).collect();
        if from_here.is_empty() {
            if legal[0].is_capture() {
                return format!(
                    "capturing is compulsory and the piece on {from} cannot capture; legal: {}",
                    list_moves(self, legal)
                );
            }
            return format!("the piece on {from} cannot move");
        }
        let ends_here: Vec<Move> = from_here.iter().copied().filter(|m| m.to() == to).collect();
        if ends_here.is_empty() {
            return format!(
                "no legal move from {from} to {to}; from {from}: {}",
                list_moves(self, &from_here)
            );
        }
        if let Some(captured) = parsed.captured {
            return format!(
                "no legal move from {from} to {to} captures {}; legal: {}",
                squares_text(captured),
                ends_here
                    .iter()
                    .map(|m| self.path_text(m))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        format!(
            "no legal move from {from} to {to} passes {}; legal: {}",
            squares_text(squares[1..squares.len() - 1].iter().copied()),
            ends_here
                .iter()
                .map(|m| self.path_text(m))
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn position(fen: &str) -> Position {
        Position::from_fen(fen).unwrap()
    }

    fn sq(n: u8) -> Square {
        Square::new(n).unwrap()
    }

    fn set(numbers: &[u8]) -> Bitboard {
        numbers.iter().map(|&n| sq(n)).collect()
    }

    fn kind(p: &Position, text: &str) -> MoveTextErrorKind {
        p.parse_move(text).unwrap_err().kind
    }

    /// Quiet moves in every spelling.
    #[test]
    fn quiet_moves() {
        let start = Position::initial();
        let mv = Move::new(sq(32), sq(28), Bitboard::EMPTY);
        for text in ["32-28", "32x28", "3228", " 32 - 28 ", "32-28!?", "32:28"] {
            assert_eq!(start.parse_move(text), Ok(mv), "{text}");
        }
        assert_eq!(start.move_text(&mv), "32-28");
        assert_eq!(start.capture_path(&mv), Some(vec![sq(28)]));
    }

    /// A capture by its ends, with a '-', with its path, in Hub form and with a captured list.
    #[test]
    fn capture_forms() {
        let p = position("W:W28:B23");
        let mv = Move::new(sq(28), sq(19), set(&[23]));
        for text in [
            "28x19",
            "28-19",
            "2819",
            "28x19x23",
            "28x19 (23)",
            "28x19(23)",
        ] {
            assert_eq!(p.parse_move(text), Ok(mv), "{text}");
        }
        assert_eq!(p.move_text(&mv), "28x19");
    }

    /// rules.md: the king on 49 has eight captures; ends alone are ambiguous, the path or the
    /// captured squares decide, and the written text carries the full path.
    #[test]
    fn lines_are_written_move_by_move_and_numbered() {
        let start = Position::initial();
        let first = start.parse_move("32-28").unwrap();
        let after = start.play(&first);
        let second = after.parse_move("19-23").unwrap();
        let third = after.play(&second).parse_move("28x19").unwrap();
        assert_eq!(
            start.line_texts(&[first, second, first]),
            ["32-28", "19-23"]
        );
        assert_eq!(
            start.numbered_line(&[first, second, third]),
            ["1. 32-28", "19-23", "2. 28x19"]
        );
        assert_eq!(
            after.numbered_line(&[second, third]),
            ["1. ...", "19-23", "2. 28x19"]
        );
        assert!(after.numbered_line(&[]).is_empty());
    }

    #[test]
    fn ambiguous_king_capture() {
        let p = position("W:WK49:B11,13,17,32");
        match kind(&p, "49x19") {
            MoveTextErrorKind::Ambiguous { candidates, moves } => {
                assert_eq!(candidates.len(), 2);
                assert_eq!(
                    moves.iter().map(|mv| p.path_text(mv)).collect::<Vec<_>>(),
                    candidates
                );
            }
            other => panic!("{other:?}"),
        }
        let via_17 = Move::new(sq(49), sq(19), set(&[13, 17, 32]));
        let via_11 = Move::new(sq(49), sq(19), set(&[11, 13, 32]));
        let text = p.move_text(&via_17);
        let reread = p.parse_move(&text).unwrap();
        assert_eq!(reread, via_17, "{text}");
        assert_ne!(p.move_text(&via_11), text);
        assert_eq!(p.parse_move(&p.move_text(&via_11)), Ok(via_11));
        assert_eq!(p.parse_move("49x21x8x19"), Ok(via_17));
        assert_eq!(p.parse_move("49x21x19"), Ok(via_17));
        assert_eq!(p.move_text(&via_17), "49x21x8x19");
        assert_eq!(
            p.parse_move("49x19").unwrap_err().to_string(),
            "move \"49x19\": ambiguous, it fits 49x16x2x19 (captures 11,13,32), \
             49x21x8x19 (captures 13,17,32)"
        );
        assert_eq!(p.parse_move("49x19 (13,17,32)"), Ok(via_17));
        assert_eq!(p.parse_move("49x19x13x17x32"), Ok(via_17));
        assert_eq!(p.parse_move("49x19x32x11x13"), Ok(via_11));
        // Every written text reads back as the same move.
        for mv in p.legal_moves() {
            assert_eq!(p.parse_move(&p.move_text(&mv)), Ok(mv));
            let path = p.capture_path(&mv).unwrap();
            assert_eq!(path.len(), 3);
            assert_eq!(path.last(), Some(&mv.to()));
        }
    }

    /// Landing paths follow the PDN form: a straight continuation lands right behind the
    /// captured piece.
    #[test]
    fn capture_path_form() {
        let p = position("W:WK46:B37,23");
        let mv = p.parse_move("46x5").unwrap();
        assert_eq!(p.capture_path(&mv), Some(vec![sq(32), sq(5)]));
        // Any square of the straight run between the two pieces names the first landing.
        assert_eq!(p.parse_move("46x32x5"), Ok(mv));
        assert_eq!(p.parse_move("46x28x5"), Ok(mv));
        assert!(p.parse_move("46x41x5").is_err());
        let p = position("W:W22:B7,8,17,18");
        let mv = p.legal_moves()[0];
        let path = p.capture_path(&mv).unwrap();
        assert_eq!(path.len(), 4);
        assert_eq!(path[3], sq(22));
        assert_eq!(p.move_text(&mv), "22x22");
        assert_eq!(p.parse_move("22x22"), Ok(mv));
        assert_eq!(p.parse_move("22x13x2x11x22"), Ok(mv));
        assert_eq!(p.parse_move("22x11x2x13x22"), Ok(mv));
    }

    /// Errors name what did not match.
    #[test]
    fn errors() {
        let start = Position::initial();
        assert_eq!(kind(&start, "  "), MoveTextErrorKind::Empty);
        assert!(matches!(
            kind(&start, "32"),
            MoveTextErrorKind::Syntax { .. }
        ));
        assert!(matches!(
            kind(&start, "32-"),
            MoveTextErrorKind::Syntax { .. }
        ));
        assert!(matches!(
            kind(&start, "32-51"),
            MoveTextErrorKind::Syntax { .. }
        ));
        assert!(matches!(
            kind(&start, "32/28"),
            MoveTextErrorKind::Syntax { .. }
        ));
        assert!(matches!(
            kind(&start, "32x28(x)"),
            MoveTextErrorKind::Syntax { .. }
        ));
        assert!(matches!(
            kind(&start, "32x28(23"),
            MoveTextErrorKind::Syntax { .. }
        ));
        let e = start.parse_move("32-26").unwrap_err();
        assert_eq!(
            e.to_string(),
            "move \"32-26\": no legal move from 32 to 26; from 32: 32-27, 32-28"
        );
        let e = start.parse_move("19-23").unwrap_err();
        assert_eq!(
            e.to_string(),
            "move \"19-23\": there is no white piece on 19"
        );
        let e = start.parse_move("42-37").unwrap_err();
        assert_eq!(e.to_string(), "move \"42-37\": the piece on 42 cannot move");
        let p = position("W:W28,38:B23");
        let e = p.parse_move("38-33").unwrap_err();
        assert_eq!(
            e.to_string(),
            "move \"38-33\": capturing is compulsory and the piece on 38 cannot capture; legal: 28x19"
        );
        let e = p.parse_move("28x19 (22)").unwrap_err();
        assert!(e.to_string().contains("captures 22"), "{e}");
    }
}

//! Strict decoding of one message, and the error that says where and why it failed.

use std::fmt;

use crate::field::{
    AcceptCode, BackAccCode, Captured, Color, EndReason, MAX_CAPTURED, Minutes, MoveLimit,
    MoveNumber, NAME_LEN, Name, POSITION_LEN, Position, ProtocolVersion, Seconds, ShowByte, Square,
    SquareContent, SquareSet, StopCode, is_dxp_byte,
};
use crate::message::{
    BackAcc, BackReq, Chat, GameAcc, GameEnd, GameReq, MAX_MESSAGE_LEN, Message, MessageKind, Move,
    Start,
};

/// A field of a message, as named in decode errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Field {
    /// GAMEREQ protocol version.
    Version,
    /// GAMEREQ follower colour.
    FollowerColor,
    /// GAMEREQ thinking time.
    Minutes,
    /// GAMEREQ number of moves.
    MoveLimit,
    /// GAMEREQ start kind, `A` or `B`.
    Start,
    /// GAMEREQ colour to move first, or BACKREQ colour to move.
    ColorToMove,
    /// GAMEREQ position.
    Position,
    /// GAMEACC acceptance code.
    AcceptCode,
    /// MOVE time.
    Seconds,
    /// MOVE from square.
    From,
    /// MOVE to square.
    To,
    /// MOVE number captured.
    CapturedCount,
    /// MOVE captured square.
    Captured,
    /// GAMEEND reason.
    Reason,
    /// GAMEEND stop code.
    StopCode,
    /// BACKREQ move number.
    MoveNumber,
    /// BACKACC code.
    BackAccCode,
}

impl Field {
    /// The field's name in error messages.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Version => "protocol version",
            Self::FollowerColor => "follower colour",
            Self::Minutes => "thinking time",
            Self::MoveLimit => "move limit",
            Self::Start => "start",
            Self::ColorToMove => "colour to move",
            Self::Position => "position",
            Self::AcceptCode => "acceptance code",
            Self::Seconds => "seconds",
            Self::From => "from square",
            Self::To => "to square",
            Self::CapturedCount => "captured count",
            Self::Captured => "captured square",
            Self::Reason => "reason",
            Self::StopCode => "stop code",
            Self::MoveNumber => "move number",
            Self::BackAccCode => "take-back code",
        }
    }
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The length a message should have had.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExpectedLength {
    /// Exactly this many bytes.
    Exactly(usize),
    /// At least this many bytes (the message is cut short before its length is known).
    AtLeast(usize),
    /// At most this many bytes.
    AtMost(usize),
}

impl fmt::Display for ExpectedLength {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Exactly(n) => write!(f, "{n}"),
            Self::AtLeast(n) => write!(f, "at least {n}"),
            Self::AtMost(n) => write!(f, "at most {n}"),
        }
    }
}

/// What was wrong with a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Problem {
    /// No bytes at all.
    Empty,
    /// A first byte that is no message kind.
    UnknownKind {
        /// The byte.
        found: u8,
    },
    /// A NUL or a byte above 127.
    ByteOutOfRange {
        /// The byte.
        found: u8,
    },
    /// Too few or too many bytes for the kind (and, where it decides, the start kind or the
    /// number of captured squares).
    Length {
        /// The length the kind requires.
        expected: ExpectedLength,
        /// The length received.
        found: usize,
    },
    /// A byte that should have been a decimal digit.
    NotADigit {
        /// The field it belongs to.
        field: Field,
        /// The byte.
        found: u8,
    },
    /// A number outside its field's range (a square `00` or `51`, 21 captured, ...).
    OutOfRange {
        /// The field.
        field: Field,
        /// The number read.
        value: u16,
        /// The smallest allowed value.
        min: u16,
        /// The largest allowed value.
        max: u16,
    },
    /// A colour that is not `W` or `Z`.
    NotAColor {
        /// The field.
        field: Field,
        /// The byte.
        found: u8,
    },
    /// A code byte outside its allowed set.
    BadCode {
        /// The field.
        field: Field,
        /// The byte.
        found: u8,
        /// The allowed bytes, as shown to a person: `'0'..='3'`, `'A' or 'B'`.
        expected: &'static str,
    },
    /// A position letter that is not one of `e w z W Z`.
    BadSquareContent {
        /// The byte.
        found: u8,
    },
    /// A square listed twice among the captured squares.
    CapturedTwice {
        /// The square.
        square: Square,
    },
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Empty => f.write_str("empty message"),
            Self::UnknownKind { found } => {
                write!(f, "unknown message kind {}", ShowByte(found))
            }
            Self::ByteOutOfRange { found } => {
                write!(f, "byte value {} outside 1..=127", ShowByte(found))
            }
            Self::Length { expected, found } => {
                write!(f, "expected {expected} bytes, found {found}")
            }
            Self::NotADigit { found, .. } => {
                write!(f, "expected a digit, found {}", ShowByte(found))
            }
            Self::OutOfRange {
                field,
                value,
                min,
                max,
            } => write!(f, "{field} {value} out of range {min}..={max}"),
            Self::NotAColor { field, found } => write!(
                f,
                "expected 'W' or 'Z' for the {field}, found {}",
                ShowByte(found)
            ),
            Self::BadCode {
                field,
                found,
                expected,
            } => write!(
                f,
                "expected {expected} for the {field}, found {}",
                ShowByte(found)
            ),
            Self::BadSquareContent { found } => write!(
                f,
                "expected one of e w z W Z in the position, found {}",
                ShowByte(found)
            ),
            Self::CapturedTwice { square } => write!(f, "square {square} captured twice"),
        }
    }
}

/// Why bytes are not a DXP message: which kind (when the first byte names one), at which byte
/// offset (0 is the kind letter; a length error points at the first missing or extra byte) and
/// what was wrong.
///
/// Displays as `MOVE: byte 5: expected a digit, found 'x'`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DecodeError {
    kind: Option<MessageKind>,
    offset: usize,
    problem: Problem,
}

impl DecodeError {
    /// The message kind, if the first byte named one.
    pub const fn kind(&self) -> Option<MessageKind> {
        self.kind
    }

    /// The byte offset of the problem in the message.
    pub const fn offset(&self) -> usize {
        self.offset
    }

    /// What was wrong.
    pub const fn problem(&self) -> Problem {
        self.problem
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(kind) = self.kind {
            write!(f, "{kind}: ")?;
        }
        write!(f, "byte {}: {}", self.offset, self.problem)
    }
}

impl std::error::Error for DecodeError {}

/// Decodes one message (the bytes of one frame, without the NUL).
///
/// Strict: every byte is checked against dxp.md §2 (lengths, digits, ranges, letters), and
/// whatever decodes re-encodes to exactly `bytes`. Liberal only where the spec lets the
/// sender choose: blanks anywhere in a name, captured squares in any order, from equal to to.
/// Allocates only for a CHAT.
///
/// # Errors
/// A [`DecodeError`] naming the kind, the byte offset and the problem.
pub fn decode(bytes: &[u8]) -> Result<Message, DecodeError> {
    let Some(&letter) = bytes.first() else {
        return Err(DecodeError {
            kind: None,
            offset: 0,
            problem: Problem::Empty,
        });
    };
    let kind = MessageKind::from_letter(letter);
    if (!bytes.is_ascii() || bytes.contains(&0))
        && let Some(offset) = bytes.iter().position(|&b| !is_dxp_byte(b))
    {
        return Err(DecodeError {
            kind,
            offset,
            problem: Problem::ByteOutOfRange {
                found: bytes[offset],
            },
        });
    }
    let Some(kind) = kind else {
        return Err(DecodeError {
            kind: None,
            offset: 0,
            problem: Problem::UnknownKind { found: letter },
        });
    };
    let reader = Reader { bytes, kind };
    match kind {
        MessageKind::GameReq => reader.game_req().map(Message::GameReq),
        MessageKind::GameAcc => reader.game_acc().map(Message::GameAcc),
        MessageKind::Move => reader.move_().map(Message::Move),
        MessageKind::GameEnd => reader.game_end().map(Message::GameEnd),
        MessageKind::Chat => reader.chat().map(Message::Chat),
        MessageKind::BackReq => reader.back_req().map(Message::BackReq),
        MessageKind::BackAcc => reader.back_acc().map(Message::BackAcc),
    }
}

/// Reads the fields of one message whose bytes are all in 1..=127.
struct Reader<'a> {
    bytes: &'a [u8],
    kind: MessageKind,
}

impl Reader<'_> {
    fn error(&self, offset: usize, problem: Problem) -> DecodeError {
        DecodeError {
            kind: Some(self.kind),
            offset,
            problem,
        }
    }

    /// Checks the length, as soon as it is known.
    fn length(&self, expected: usize) -> Result<(), DecodeError> {
        let found = self.bytes.len();
        if found == expected {
            Ok(())
        } else {
            Err(self.error(
                found.min(expected),
                Problem::Length {
                    expected: ExpectedLength::Exactly(expected),
                    found,
                },
            ))
        }
    }

    /// Checks that the message reaches the field that decides its length.
    fn at_least(&self, expected: usize) -> Result<(), DecodeError> {
        let found = self.bytes.len();
        if found >= expected {
            Ok(())
        } else {
            Err(self.error(
                found,
                Problem::Length {
                    expected: ExpectedLength::AtLeast(expected),
                    found,
                },
            ))
        }
    }

    /// `width` decimal digits at `offset`; the length has been checked.
    fn number(&self, offset: usize, width: usize, field: Field) -> Result<u16, DecodeError> {
        let mut value = 0u16;
        for (i, &byte) in self.bytes[offset..offset + width].iter().enumerate() {
            let digit = byte.wrapping_sub(b'0');
            if digit > 9 {
                return Err(self.error(offset + i, Problem::NotADigit { field, found: byte }));
            }
            value = value * 10 + u16::from(digit);
        }
        Ok(value)
    }

    /// A number whose field type checks its range.
    fn bounded<T, R: TryFrom<u16>>(
        &self,
        offset: usize,
        width: usize,
        field: Field,
        (min, max): (u16, u16),
        new: impl FnOnce(R) -> Result<T, crate::ValueError>,
    ) -> Result<T, DecodeError> {
        let value = self.number(offset, width, field)?;
        R::try_from(value)
            .ok()
            .and_then(|value| new(value).ok())
            .ok_or_else(|| {
                self.error(
                    offset,
                    Problem::OutOfRange {
                        field,
                        value,
                        min,
                        max,
                    },
                )
            })
    }

    fn square(&self, offset: usize, field: Field) -> Result<Square, DecodeError> {
        self.bounded(offset, 2, field, (1, 50), Square::new)
    }

    fn color(&self, offset: usize, field: Field) -> Result<Color, DecodeError> {
        let found = self.bytes[offset];
        Color::from_letter(found)
            .ok_or_else(|| self.error(offset, Problem::NotAColor { field, found }))
    }

    fn code<T>(
        &self,
        offset: usize,
        field: Field,
        expected: &'static str,
        from_byte: fn(u8) -> Option<T>,
    ) -> Result<T, DecodeError> {
        let found = self.bytes[offset];
        from_byte(found).ok_or_else(|| {
            self.error(
                offset,
                Problem::BadCode {
                    field,
                    found,
                    expected,
                },
            )
        })
    }

    fn name(&self, offset: usize) -> Name {
        let mut bytes = [0; NAME_LEN];
        bytes.copy_from_slice(&self.bytes[offset..offset + NAME_LEN]);
        Name::from_wire(bytes)
    }

    /// `R`, version (2), name (32), follower colour, minutes (3), moves (3), `A` | `B` colour
    /// position (50).
    fn game_req(&self) -> Result<GameReq, DecodeError> {
        const SHORT: usize = 43;
        const LONG: usize = SHORT + 1 + POSITION_LEN;
        self.at_least(SHORT)?;
        let version = self.bounded(1, 2, Field::Version, (0, 99), ProtocolVersion::new)?;
        let initiator = self.name(3);
        let follower_color = self.color(35, Field::FollowerColor)?;
        let minutes = self.bounded(36, 3, Field::Minutes, (0, 999), Minutes::new)?;
        let move_limit = self.bounded(39, 3, Field::MoveLimit, (0, 999), MoveLimit::new)?;
        let start = match self.bytes[42] {
            b'A' => {
                self.length(SHORT)?;
                Start::Initial
            }
            b'B' => {
                self.length(LONG)?;
                let to_move = self.color(43, Field::ColorToMove)?;
                let mut contents = [SquareContent::Empty; POSITION_LEN];
                for (i, slot) in contents.iter_mut().enumerate() {
                    let found = self.bytes[44 + i];
                    *slot = SquareContent::from_letter(found)
                        .ok_or_else(|| self.error(44 + i, Problem::BadSquareContent { found }))?;
                }
                Start::Position {
                    to_move,
                    position: Position::new(contents),
                }
            }
            found => {
                return Err(self.error(
                    42,
                    Problem::BadCode {
                        field: Field::Start,
                        found,
                        expected: "'A' or 'B'",
                    },
                ));
            }
        };
        Ok(GameReq {
            version,
            initiator,
            follower_color,
            minutes,
            move_limit,
            start,
        })
    }

    /// `A`, name (32), code.
    fn game_acc(&self) -> Result<GameAcc, DecodeError> {
        self.length(1 + NAME_LEN + 1)?;
        Ok(GameAcc {
            follower: self.name(1),
            code: self.code(33, Field::AcceptCode, "'0'..='3'", AcceptCode::from_digit)?,
        })
    }

    /// `M`, seconds (4), from (2), to (2), count (2), count squares (2 each).
    fn move_(&self) -> Result<Move, DecodeError> {
        self.at_least(11)?;
        let seconds = self.bounded(1, 4, Field::Seconds, (0, 9999), Seconds::new)?;
        let from = self.square(5, Field::From)?;
        let to = self.square(7, Field::To)?;
        let count = self.number(9, 2, Field::CapturedCount)?;
        if usize::from(count) > MAX_CAPTURED {
            return Err(self.error(
                9,
                Problem::OutOfRange {
                    field: Field::CapturedCount,
                    value: count,
                    min: 0,
                    max: MAX_CAPTURED as u16,
                },
            ));
        }
        let count = usize::from(count);
        self.length(11 + 2 * count)?;
        let mut squares = [Square::MIN; MAX_CAPTURED];
        let mut seen = SquareSet::EMPTY;
        for (i, slot) in squares[..count].iter_mut().enumerate() {
            let offset = 11 + 2 * i;
            let square = self.square(offset, Field::Captured)?;
            if !seen.insert(square) {
                return Err(self.error(offset, Problem::CapturedTwice { square }));
            }
            *slot = square;
        }
        let captured = Captured::from_distinct(squares, count);
        Ok(Move {
            seconds,
            from,
            to,
            captured,
        })
    }

    /// `E`, reason, stop code.
    fn game_end(&self) -> Result<GameEnd, DecodeError> {
        self.length(3)?;
        Ok(GameEnd {
            reason: self.code(1, Field::Reason, "'0'..='3'", EndReason::from_digit)?,
            stop: self.code(2, Field::StopCode, "'0' or '1'", StopCode::from_digit)?,
        })
    }

    /// `C`, 1..=126 bytes of text.
    fn chat(&self) -> Result<Chat, DecodeError> {
        let found = self.bytes.len();
        if found < 2 {
            return Err(self.error(
                found,
                Problem::Length {
                    expected: ExpectedLength::AtLeast(2),
                    found,
                },
            ));
        }
        if found > MAX_MESSAGE_LEN {
            return Err(self.error(
                MAX_MESSAGE_LEN,
                Problem::Length {
                    expected: ExpectedLength::AtMost(MAX_MESSAGE_LEN),
                    found,
                },
            ));
        }
        let text = &self.bytes[1..];
        // The bytes are 7-bit ASCII, so this succeeds; were it not so, an error, never a panic.
        let text = std::str::from_utf8(text).map_err(|e| {
            let offset = 1 + e.valid_up_to();
            self.error(
                offset,
                Problem::ByteOutOfRange {
                    found: self.bytes[offset],
                },
            )
        })?;
        Ok(Chat::from_checked(text.to_owned()))
    }

    /// `B`, move number (3), colour to move.
    fn back_req(&self) -> Result<BackReq, DecodeError> {
        self.length(5)?;
        Ok(BackReq {
            move_number: self.bounded(1, 3, Field::MoveNumber, (1, 999), MoveNumber::new)?,
            to_move: self.color(4, Field::ColorToMove)?,
        })
    }

    /// `K`, code.
    fn back_acc(&self) -> Result<BackAcc, DecodeError> {
        self.length(2)?;
        Ok(BackAcc {
            code: self.code(1, Field::BackAccCode, "'0'..='2'", BackAccCode::from_digit)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kind of error, with its kind, offset and message text.
    #[test]
    fn every_error_names_kind_offset_and_problem() {
        let long_chat = format!("C{}", "x".repeat(127));
        let name = "Tornado voor Windows 4.0        ";
        let req = |rest: &str| format!("R01{name}{rest}");
        let cases: Vec<(String, &str)> = vec![
            // The frame as a whole.
            (String::new(), "byte 0: empty message"),
            ("X123".into(), "byte 0: unknown message kind 'X'"),
            ("m0012061100".into(), "byte 0: unknown message kind 'm'"),
            ("\u{1}".into(), "byte 0: unknown message kind 0x01"),
            (
                "M00\u{0}2061100".into(),
                "MOVE: byte 3: byte value 0x00 outside 1..=127",
            ),
            (
                "E0\u{7f}".into(),
                "GAMEEND: byte 2: expected '0' or '1' for the stop code, found 0x7f",
            ),
            // Lengths.
            ("E0".into(), "GAMEEND: byte 2: expected 3 bytes, found 2"),
            ("E000".into(), "GAMEEND: byte 3: expected 3 bytes, found 4"),
            ("K".into(), "BACKACC: byte 1: expected 2 bytes, found 1"),
            ("B005".into(), "BACKREQ: byte 4: expected 5 bytes, found 4"),
            (
                "ATornado".into(),
                "GAMEACC: byte 8: expected 34 bytes, found 8",
            ),
            (
                "M001206110".into(),
                "MOVE: byte 10: expected at least 11 bytes, found 10",
            ),
            (
                "M00120611001".into(),
                "MOVE: byte 11: expected 11 bytes, found 12",
            ),
            (
                "M0012052504221223".into(),
                "MOVE: byte 17: expected 19 bytes, found 17",
            ),
            (
                "C".into(),
                "CHAT: byte 1: expected at least 2 bytes, found 1",
            ),
            (
                long_chat,
                "CHAT: byte 127: expected at most 127 bytes, found 128",
            ),
            (
                "R01Tornado".into(),
                "GAMEREQ: byte 10: expected at least 43 bytes, found 10",
            ),
            (
                req("W060065AW"),
                "GAMEREQ: byte 43: expected 43 bytes, found 44",
            ),
            (
                req("W060065BW"),
                "GAMEREQ: byte 44: expected 94 bytes, found 44",
            ),
            // Digits and ranges.
            (
                "M00120x1100".into(),
                "MOVE: byte 6: expected a digit, found 'x'",
            ),
            (
                "Mx012061100".into(),
                "MOVE: byte 1: expected a digit, found 'x'",
            ),
            (
                "M0012 61100".into(),
                "MOVE: byte 5: expected a digit, found ' '",
            ),
            (
                "M0012001100".into(),
                "MOVE: byte 5: from square 0 out of range 1..=50",
            ),
            (
                "M0012065100".into(),
                "MOVE: byte 7: to square 51 out of range 1..=50",
            ),
            (
                "M00120611-1".into(),
                "MOVE: byte 9: expected a digit, found '-'",
            ),
            (
                "M00120611210102030405060708091011121314151617181920212".into(),
                "MOVE: byte 9: captured count 21 out of range 0..=20",
            ),
            (
                "M0012052502991".into(),
                "MOVE: byte 14: expected 15 bytes, found 14",
            ),
            (
                "M001205250299".into(),
                "MOVE: byte 13: expected 15 bytes, found 13",
            ),
            (
                "M00120525029901".into(),
                "MOVE: byte 11: captured square 99 out of range 1..=50",
            ),
            (
                "M00120525020000".into(),
                "MOVE: byte 11: captured square 0 out of range 1..=50",
            ),
            (
                "M00120525021212".into(),
                "MOVE: byte 13: square 12 captured twice",
            ),
            (
                "B000Z".into(),
                "BACKREQ: byte 1: move number 0 out of range 1..=999",
            ),
            (
                "B00aZ".into(),
                "BACKREQ: byte 3: expected a digit, found 'a'",
            ),
            (
                req("W06O065A"),
                "GAMEREQ: byte 38: expected a digit, found 'O'",
            ),
            (
                "Rx1".to_string() + &req("W060065A")[3..],
                "GAMEREQ: byte 1: expected a digit, found 'x'",
            ),
            // Colours, codes and letters.
            (
                req("B060065A"),
                "GAMEREQ: byte 35: expected 'W' or 'Z' for the follower colour, found 'B'",
            ),
            (
                req("w060065A"),
                "GAMEREQ: byte 35: expected 'W' or 'Z' for the follower colour, found 'w'",
            ),
            (
                req("W060065C"),
                "GAMEREQ: byte 42: expected 'A' or 'B' for the start, found 'C'",
            ),
            (
                req(&format!("W060065BB{}", "e".repeat(50))),
                "GAMEREQ: byte 43: expected 'W' or 'Z' for the colour to move, found 'B'",
            ),
            (
                req(&format!("W060065BW{}x{}", "e".repeat(10), "e".repeat(39))),
                "GAMEREQ: byte 54: expected one of e w z W Z in the position, found 'x'",
            ),
            (
                "B005B".into(),
                "BACKREQ: byte 4: expected 'W' or 'Z' for the colour to move, found 'B'",
            ),
            (
                format!("A{name}4"),
                "GAMEACC: byte 33: expected '0'..='3' for the acceptance code, found '4'",
            ),
            (
                "E40".into(),
                "GAMEEND: byte 1: expected '0'..='3' for the reason, found '4'",
            ),
            (
                "E02".into(),
                "GAMEEND: byte 2: expected '0' or '1' for the stop code, found '2'",
            ),
            (
                "K3".into(),
                "BACKACC: byte 1: expected '0'..='2' for the take-back code, found '3'",
            ),
        ];
        for (input, expected) in cases {
            let error = decode(input.as_bytes()).expect_err(&input);
            assert_eq!(error.to_string(), expected, "{input:?}");
        }
    }

    /// Bytes above 127 are refused wherever they stand, before any field is read.
    #[test]
    fn bytes_above_127_are_refused_first() {
        let error = decode(b"C\xc3\xa9").unwrap_err();
        assert_eq!(error.kind(), Some(MessageKind::Chat));
        assert_eq!(error.offset(), 1);
        assert_eq!(error.problem(), Problem::ByteOutOfRange { found: 0xc3 });
        assert_eq!(
            error.to_string(),
            "CHAT: byte 1: byte value 0xc3 outside 1..=127"
        );
        let error = decode(b"\xffM").unwrap_err();
        assert_eq!(error.kind(), None);
        assert_eq!(error.to_string(), "byte 0: byte value 0xff outside 1..=127");
    }

    /// What the spec leaves to the sender decodes and is kept as sent: a capture that
    /// returns to its start square, captured squares in jump order.
    #[test]
    fn liberal_where_the_spec_lets_the_sender_choose() {
        let bytes = b"M000028280422122321";
        let Ok(Message::Move(m)) = decode(bytes) else {
            panic!("from == to must decode");
        };
        assert_eq!(m.from, m.to);
        let order: Vec<u8> = m.captured.as_slice().iter().map(|s| s.get()).collect();
        assert_eq!(order, [22, 12, 23, 21]);
        assert_eq!(Message::Move(m).to_bytes(), bytes);
    }

    /// A name may start with a blank or hold control characters on receipt, kept verbatim.
    #[test]
    fn received_names_are_kept_verbatim() {
        let bytes = b"A Scan\t3.1                       0";
        let Ok(Message::GameAcc(acc)) = decode(bytes) else {
            panic!("a GAMEACC with a leading blank must decode");
        };
        assert_eq!(acc.follower.trimmed(), " Scan\t3.1");
        assert_eq!(Message::GameAcc(acc).to_bytes(), bytes);
    }

    /// Any protocol version decodes, so that a Follower can answer it with code 1.
    #[test]
    fn any_protocol_version_decodes() {
        let bytes = b"R02Scan                            Z000000A";
        let Ok(Message::GameReq(req)) = decode(bytes) else {
            panic!("version 02 must decode");
        };
        assert_eq!(req.version.get(), 2);
        assert_eq!(req.minutes.get(), 0);
        assert_eq!(req.move_limit.limit(), None);
    }

    /// The bytes pydraughts builds (dxp_classes.py `msg_gamereq`, `msg_move`, `msg_gameend`,
    /// `msg_chat`, `msg_backacc`) decode and re-encode unchanged.
    #[test]
    fn what_pydraughts_sends_decodes() {
        let position = format!("{}{}{}", "z".repeat(20), "e".repeat(10), "w".repeat(20));
        let gamereq = format!("R01DXP Client                      Z000000BW{position}");
        for bytes in [
            gamereq.as_bytes(),
            b"M0000322800",
            b"M00002819022322",
            b"E01",
            b"E31",
            b"K1",
            b"Cgood game",
        ] {
            let message = decode(bytes).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(message.to_bytes(), bytes);
        }
    }
}

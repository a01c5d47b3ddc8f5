//! The seven DXP messages and their encoding (dxp.md §2).

use std::fmt;

use bytes::BufMut;

use crate::field::{
    AcceptCode, BackAccCode, Captured, Color, EndReason, Minutes, MoveLimit, MoveNumber, Name,
    Position, ProtocolVersion, Seconds, Square, StopCode, ValueError, is_dxp_byte,
};

/// The most bytes a message may have on the wire, without its NUL.
pub const MAX_MESSAGE_LEN: usize = 127;

/// The most bytes of text a CHAT carries.
pub const MAX_CHAT_LEN: usize = MAX_MESSAGE_LEN - 1;

/// The kind of a message: its first byte on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MessageKind {
    /// `R`, [`GameReq`].
    GameReq,
    /// `A`, [`GameAcc`].
    GameAcc,
    /// `M`, [`Move`].
    Move,
    /// `E`, [`GameEnd`].
    GameEnd,
    /// `C`, [`Chat`].
    Chat,
    /// `B`, [`BackReq`].
    BackReq,
    /// `K`, [`BackAcc`].
    BackAcc,
}

impl MessageKind {
    /// The header letter.
    pub const fn letter(self) -> u8 {
        match self {
            Self::GameReq => b'R',
            Self::GameAcc => b'A',
            Self::Move => b'M',
            Self::GameEnd => b'E',
            Self::Chat => b'C',
            Self::BackReq => b'B',
            Self::BackAcc => b'K',
        }
    }

    /// The kind a header letter stands for.
    pub const fn from_letter(letter: u8) -> Option<Self> {
        match letter {
            b'R' => Some(Self::GameReq),
            b'A' => Some(Self::GameAcc),
            b'M' => Some(Self::Move),
            b'E' => Some(Self::GameEnd),
            b'C' => Some(Self::Chat),
            b'B' => Some(Self::BackReq),
            b'K' => Some(Self::BackAcc),
            _ => None,
        }
    }

    /// The spec's name: `GAMEREQ`, `GAMEACC`, `MOVE`, `GAMEEND`, `CHAT`, `BACKREQ`, `BACKACC`.
    pub const fn name(self) -> &'static str {
        match self {
            Self::GameReq => "GAMEREQ",
            Self::GameAcc => "GAMEACC",
            Self::Move => "MOVE",
            Self::GameEnd => "GAMEEND",
            Self::Chat => "CHAT",
            Self::BackReq => "BACKREQ",
            Self::BackAcc => "BACKACC",
        }
    }
}

impl fmt::Display for MessageKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How a GAMEREQ sets up the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Start {
    /// `A`: the normal start, white to move (43 bytes).
    Initial,
    /// `B`: the given position and side to move follow (94 bytes).
    Position {
        /// The colour to move first.
        to_move: Color,
        /// The 50 squares.
        position: Position,
    },
}

/// GAMEREQ `R`: the Initiator proposes a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GameReq {
    /// The protocol version, `01`.
    pub version: ProtocolVersion,
    /// The Initiator's name.
    pub initiator: Name,
    /// The colour the **Follower** plays.
    pub follower_color: Color,
    /// Minutes per player for the whole game.
    pub minutes: Minutes,
    /// The number of moves for the game, `000` for no limit.
    pub move_limit: MoveLimit,
    /// The normal start or a position.
    pub start: Start,
}

/// GAMEACC `A`: the Follower's answer to a GAMEREQ.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct GameAcc {
    /// The Follower's name.
    pub follower: Name,
    /// Accepted, or why not.
    pub code: AcceptCode,
}

/// MOVE `M`: one move, captures listing every captured square.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct Move {
    /// Seconds spent on the move (informational).
    pub seconds: Seconds,
    /// The square the piece leaves.
    pub from: Square,
    /// The square the piece ends on; may equal `from` (a capture that returns to its start).
    pub to: Square,
    /// The captured squares in the order sent.
    pub captured: Captured,
}

/// GAMEEND `E`: ends the game, or acknowledges the end.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct GameEnd {
    /// Why (informational, first GAMEEND of a handshake only).
    pub reason: EndReason,
    /// Whether the sender will play another game.
    pub stop: StopCode,
}

/// CHAT `C`: free text, 1..=126 bytes, each in 1..=127.
///
/// The only message that owns heap memory. Any byte DXP allows may appear, blanks and
/// control characters included, and the text is kept verbatim.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Chat {
    text: String,
}

impl Chat {
    /// A chat carrying `text`.
    ///
    /// # Errors
    /// Empty text, more than 126 bytes, or a character outside 7-bit ASCII or a NUL.
    pub fn new(text: impl Into<String>) -> Result<Self, ValueError> {
        let text = text.into();
        if text.is_empty() {
            return Err(ValueError::EmptyChat);
        }
        if text.len() > MAX_CHAT_LEN {
            return Err(ValueError::ChatTooLong { len: text.len() });
        }
        if let Some(offset) = text.bytes().position(|b| !is_dxp_byte(b)) {
            return Err(ValueError::ChatByte {
                offset,
                found: text.as_bytes()[offset],
            });
        }
        Ok(Self { text })
    }

    /// A chat from text the decoder has checked.
    pub(crate) fn from_checked(text: String) -> Self {
        Self { text }
    }

    /// The text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The text, giving up the message.
    pub fn into_text(self) -> String {
        self.text
    }
}

/// BACKREQ `B`: asks to go back to the position before move `move_number` of `to_move`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct BackReq {
    /// The move number, 1 for the game's first move.
    pub move_number: MoveNumber,
    /// The colour to move in the requested position.
    pub to_move: Color,
}

/// BACKACC `K`: the answer to a BACKREQ.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct BackAcc {
    /// Accepted, not supported or declined.
    pub code: BackAccCode,
}

/// One DXP message, any kind.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(tag = "type", rename_all = "lowercase")
)]
pub enum Message {
    /// GAMEREQ `R`.
    GameReq(GameReq),
    /// GAMEACC `A`.
    GameAcc(GameAcc),
    /// MOVE `M`.
    Move(Move),
    /// GAMEEND `E`.
    GameEnd(GameEnd),
    /// CHAT `C`.
    Chat(Chat),
    /// BACKREQ `B`.
    BackReq(BackReq),
    /// BACKACC `K`.
    BackAcc(BackAcc),
}

macro_rules! from_kind {
    ($($kind:ident),+) => {
        $(
            impl From<$kind> for Message {
                fn from(message: $kind) -> Self {
                    Self::$kind(message)
                }
            }
        )+
    };
}

from_kind!(GameReq, GameAcc, Move, GameEnd, Chat, BackReq, BackAcc);

impl Message {
    /// The kind of the message.
    pub const fn kind(&self) -> MessageKind {
        match self {
            Self::GameReq(_) => MessageKind::GameReq,
            Self::GameAcc(_) => MessageKind::GameAcc,
            Self::Move(_) => MessageKind::Move,
            Self::GameEnd(_) => MessageKind::GameEnd,
            Self::Chat(_) => MessageKind::Chat,
            Self::BackReq(_) => MessageKind::BackReq,
            Self::BackAcc(_) => MessageKind::BackAcc,
        }
    }

    /// Decodes one message (without its NUL); the same as [`crate::decode`].
    ///
    /// # Errors
    /// Anything that is not exactly a message of dxp.md §2, see [`crate::DecodeError`].
    pub fn decode(bytes: &[u8]) -> Result<Self, crate::DecodeError> {
        crate::decode(bytes)
    }

    /// The number of bytes [`Message::encode`] writes (without the NUL).
    pub fn encoded_len(&self) -> usize {
        match self {
            Self::GameReq(GameReq {
                start: Start::Initial,
                ..
            }) => 43,
            Self::GameReq(_) => 94,
            Self::GameAcc(_) => 34,
            Self::Move(m) => 11 + 2 * m.captured.len(),
            Self::GameEnd(_) => 3,
            Self::Chat(c) => 1 + c.text.len(),
            Self::BackReq(_) => 5,
            Self::BackAcc(_) => 2,
        }
    }

    /// Appends the message's bytes, exactly as dxp.md §2 lays them out, without the NUL.
    pub fn encode(&self, dst: &mut impl BufMut) {
        let mut out = Writer::new();
        self.write(&mut out);
        dst.put_slice(out.as_bytes());
    }

    /// Appends the message's bytes and the NUL that ends its frame.
    pub fn encode_frame(&self, dst: &mut impl BufMut) {
        let mut out = Writer::new();
        self.write(&mut out);
        out.byte(0);
        dst.put_slice(out.as_bytes());
    }

    /// The message's bytes, without the NUL.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(self.encoded_len());
        self.encode(&mut bytes);
        bytes
    }

    /// The frame to send: the message's bytes and the NUL.
    pub fn to_frame(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(self.encoded_len() + 1);
        self.encode_frame(&mut bytes);
        bytes
    }

    /// The message's bytes and a line break, for a file of messages one a line; `None` for a
    /// chat whose text holds a line break, which a line cannot carry (a frame can).
    pub fn to_line(&self) -> Option<Vec<u8>> {
        let mut bytes = self.to_bytes();
        if bytes.iter().any(|&b| b == b'\n' || b == b'\r') {
            return None;
        }
        bytes.push(b'\n');
        Some(bytes)
    }

    fn write(&self, out: &mut Writer) {
        out.byte(self.kind().letter());
        match self {
            Self::GameReq(r) => {
                out.digits(r.version.get().into(), 2);
                out.bytes(r.initiator.as_bytes());
                out.byte(r.follower_color.letter());
                out.digits(r.minutes.get(), 3);
                out.digits(r.move_limit.get(), 3);
                match r.start {
                    Start::Initial => out.byte(b'A'),
                    Start::Position { to_move, position } => {
                        out.byte(b'B');
                        out.byte(to_move.letter());
                        out.bytes(&position.letters());
                    }
                }
            }
            Self::GameAcc(a) => {
                out.bytes(a.follower.as_bytes());
                out.byte(a.code.digit());
            }
            Self::Move(m) => {
                out.digits(m.seconds.get(), 4);
                out.digits(m.from.get().into(), 2);
                out.digits(m.to.get().into(), 2);
                // At most 20, so the cast is exact.
                out.digits(m.captured.len() as u16, 2);
                for square in m.captured.as_slice() {
                    out.digits(square.get().into(), 2);
                }
            }
            Self::GameEnd(e) => {
                out.byte(e.reason.digit());
                out.byte(e.stop.digit());
            }
            Self::Chat(c) => out.bytes(c.text.as_bytes()),
            Self::BackReq(b) => {
                out.digits(b.move_number.get(), 3);
                out.byte(b.to_move.letter());
            }
            Self::BackAcc(k) => out.byte(k.code.digit()),
        }
    }
}

impl fmt::Display for Message {
    /// The message as its wire text (every byte is 7-bit ASCII), without the NUL.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = Writer::new();
        self.write(&mut out);
        // Every byte written is in 1..=127, so this is always valid UTF-8.
        f.write_str(std::str::from_utf8(out.as_bytes()).unwrap_or_default())
    }
}

/// A stack buffer that holds the longest frame: encoding needs no heap.
struct Writer {
    buf: [u8; MAX_MESSAGE_LEN + 1],
    len: usize,
}

impl Writer {
    fn new() -> Self {
        Self {
            buf: [0; MAX_MESSAGE_LEN + 1],
            len: 0,
        }
    }

    fn byte(&mut self, byte: u8) {
        self.buf[self.len] = byte;
        self.len += 1;
    }

    fn bytes(&mut self, bytes: &[u8]) {
        self.buf[self.len..self.len + bytes.len()].copy_from_slice(bytes);
        self.len += bytes.len();
    }

    /// `value` in `width` decimal digits, zero-padded; the field types keep it in range.
    fn digits(&mut self, mut value: u16, width: usize) {
        for slot in self.buf[self.len..self.len + width].iter_mut().rev() {
            *slot = b'0' + (value % 10) as u8;
            value /= 10;
        }
        self.len += width;
    }

    fn as_bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(n: u8) -> Square {
        Square::new(n).unwrap()
    }

    /// Each kind encodes to the bytes of dxp.md §5, built from its fields.
    #[test]
    fn every_kind_encodes_to_the_spec_bytes() {
        let tornado = Name::new("Tornado voor Windows 4.0").unwrap();
        let cases: Vec<(Message, &str)> = vec![
            (
                GameReq {
                    version: ProtocolVersion::V1,
                    initiator: tornado,
                    follower_color: Color::White,
                    minutes: Minutes::new(60).unwrap(),
                    move_limit: MoveLimit::new(65).unwrap(),
                    start: Start::Initial,
                }
                .into(),
                "R01Tornado voor Windows 4.0        W060065A",
            ),
            (
                GameReq {
                    version: ProtocolVersion::V1,
                    initiator: tornado,
                    follower_color: Color::White,
                    minutes: Minutes::new(60).unwrap(),
                    move_limit: MoveLimit::new(65).unwrap(),
                    start: Start::Position {
                        to_move: Color::White,
                        position: Position::INITIAL,
                    },
                }
                .into(),
                "R01Tornado voor Windows 4.0        W060065BW\
                 zzzzzzzzzzzzzzzzzzzzeeeeeeeeeewwwwwwwwwwwwwwwwwwww",
            ),
            (
                GameAcc {
                    follower: tornado,
                    code: AcceptCode::Accepted,
                }
                .into(),
                "ATornado voor Windows 4.0        0",
            ),
            (
                Move {
                    seconds: Seconds::new(12).unwrap(),
                    from: sq(6),
                    to: sq(11),
                    captured: Captured::EMPTY,
                }
                .into(),
                "M0012061100",
            ),
            (
                Move {
                    seconds: Seconds::new(12).unwrap(),
                    from: sq(5),
                    to: sq(25),
                    captured: Captured::new(&[sq(22), sq(12), sq(23), sq(20)]).unwrap(),
                }
                .into(),
                "M001205250422122320",
            ),
            (
                GameEnd {
                    reason: EndReason::NoReason,
                    stop: StopCode::Continue,
                }
                .into(),
                "E00",
            ),
            (
                Chat::new("What do you think about move 35?")
                    .unwrap()
                    .into(),
                "CWhat do you think about move 35?",
            ),
            (
                BackReq {
                    move_number: MoveNumber::new(5).unwrap(),
                    to_move: Color::Black,
                }
                .into(),
                "B005Z",
            ),
            (
                BackAcc {
                    code: BackAccCode::NotSupported,
                }
                .into(),
                "K1",
            ),
        ];
        for (message, expected) in cases {
            assert_eq!(message.to_bytes(), expected.as_bytes());
            assert_eq!(message.encoded_len(), expected.len());
            assert_eq!(message.to_string(), expected);
            let mut frame = expected.as_bytes().to_vec();
            frame.push(0);
            assert_eq!(message.to_frame(), frame);
            let line = [expected.as_bytes(), b"\n"].concat();
            assert_eq!(message.to_line(), Some(line));
            let mut buf = bytes::BytesMut::new();
            message.encode_frame(&mut buf);
            assert_eq!(&buf[..], &frame[..]);
        }
    }

    /// The largest values of every numeric field fill their width and no more.
    #[test]
    fn numbers_fill_their_width() {
        let message = Message::Move(Move {
            seconds: Seconds::MAX,
            from: sq(50),
            to: sq(50),
            captured: Captured::new(&Square::all().take(20).collect::<Vec<_>>()).unwrap(),
        });
        let text = message.to_string();
        assert_eq!(text.len(), 51);
        assert!(text.starts_with("M9999505020010203"));
        assert!(text.ends_with("1920"));
    }

    /// A chat carries 1..=126 bytes of 1..=127, verbatim.
    #[test]
    fn chat_text_is_checked_and_kept_verbatim() {
        assert_eq!(Chat::new(""), Err(ValueError::EmptyChat));
        assert_eq!(Chat::new(" x\t ").unwrap().text(), " x\t ");
        assert_eq!(Chat::new("x".repeat(126)).unwrap().text().len(), 126);
        assert_eq!(
            Chat::new("x".repeat(127)),
            Err(ValueError::ChatTooLong { len: 127 })
        );
        assert_eq!(
            Chat::new("a\0b"),
            Err(ValueError::ChatByte {
                offset: 1,
                found: 0
            })
        );
        assert_eq!(
            Chat::new("goed gespeeld, één"),
            Err(ValueError::ChatByte {
                offset: 15,
                found: 0xc3
            })
        );
        let message = Message::from(Chat::new("x".repeat(126)).unwrap());
        assert_eq!(message.to_frame().len(), 128);
    }

    /// A chat with a line break cannot be one line, but can be one frame.
    #[test]
    fn a_line_break_needs_a_frame() {
        for text in ["two\nlines", "a\r"] {
            let message = Message::from(Chat::new(text).unwrap());
            assert_eq!(message.to_line(), None, "{text:?}");
            assert_eq!(message.to_frame(), format!("C{text}\0").as_bytes());
        }
    }

    /// Every kind letter maps back to its kind, and the names are the spec's.
    #[test]
    fn kinds_and_letters_correspond() {
        for letter in 0..=255u8 {
            if let Some(kind) = MessageKind::from_letter(letter) {
                assert_eq!(kind.letter(), letter);
            } else {
                assert!(!b"RAMECBK".contains(&letter));
            }
        }
        assert_eq!(MessageKind::BackAcc.to_string(), "BACKACC");
    }
}

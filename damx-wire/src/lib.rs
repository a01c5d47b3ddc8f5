//! Byte-exact codec and NUL framing for DamExchange (DXP), the protocol with which
//! international-draughts programs play each other over TCP (docs/spec/dxp.md §1, §2).
//!
//! - [`Message`] is one of seven message structs: [`GameReq`], [`GameAcc`], [`Move`],
//!   [`GameEnd`], [`Chat`], [`BackReq`], [`BackAcc`]. Their fields are types that hold only
//!   what the wire can carry: [`Square`] 1..=50, [`Color`] `W`/`Z`, the 32-byte [`Name`], the
//!   fixed-width numbers ([`Minutes`], [`Seconds`], ...), at most 20 distinct [`Captured`]
//!   squares, the 50-letter [`Position`], and the one-digit codes.
//! - [`decode`] reads one message strictly and says what is wrong in a [`DecodeError`]
//!   (`MOVE: byte 5: expected a digit, found 'x'`); [`Message::encode`] writes exactly the
//!   spec's bytes. For every valid byte string `b`, `encode(decode(b)) == b`, and for every
//!   message `m`, `decode(encode(m)) == m`.
//! - [`Framer`] splits the NUL-terminated stream held in a [`bytes::BytesMut`]: `Ok(None)`
//!   means "read more"; bad frames are errors with their raw bytes, after which it goes on.
//! - [`FrameReader`] and [`LineReader`] read a whole recorded stream (NUL frames, or messages
//!   one a line) with each item's number and offset, a line's length bounded; [`Escaped`]
//!   shows any bytes unambiguously in a message or a log.
//!
//! Decoding and framing allocate only for a CHAT (its text); encoding goes through a stack
//! buffer straight into the caller's buffer.
//!
//! ```
//! use bytes::BytesMut;
//! use damx_wire::{Framer, Message, Move, Captured, Seconds, Square};
//!
//! // A move as it arrives, in two reads, followed by the start of the next frame.
//! let mut framer = Framer::new();
//! let mut buf = BytesMut::from(&b"M00003313021"[..]);
//! assert_eq!(framer.next_message(&mut buf)?, None);
//! buf.extend_from_slice(b"828\0E0");
//! let Some(Message::Move(received)) = framer.next_message(&mut buf)? else {
//!     panic!("a MOVE was sent");
//! };
//! assert_eq!((received.from.get(), received.to.get()), (33, 13));
//!
//! // Captured squares match as a set, whatever order the peer listed them in.
//! let sq = |n| Square::new(n);
//! let ours = Captured::new(&[sq(28)?, sq(18)?])?;
//! assert_eq!(received.captured.set(), ours.set());
//!
//! // Encoding writes the spec's bytes; `to_frame` adds the NUL.
//! let reply = Message::from(Move {
//!     seconds: Seconds::new(12)?,
//!     from: sq(6)?,
//!     to: sq(11)?,
//!     captured: Captured::EMPTY,
//! });
//! assert_eq!(reply.to_frame(), b"M0012061100\0");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # What the wire accepts, and what a sender may build
//!
//! Decoding follows dxp.md §2 to the byte. Where the spec lets the sender choose, a decoded
//! message keeps the choice, so that it re-encodes to the bytes received:
//!
//! - **Names** keep their 32 bytes verbatim. A received name may hold any byte in 1..=127,
//!   including a leading blank and control characters ([`Name::from_received`]); a name built
//!   to send ([`Name::new`]) must be 1..=32 printable ASCII characters not starting with a
//!   blank.
//! - **Chat** text is 1..=126 bytes, each in 1..=127, kept verbatim (blanks, control
//!   characters); a chat built to send follows the same rule ([`Chat::new`]).
//! - **Captured squares** keep the order sent (Scan sends them ascending, pydraughts in jump
//!   order); [`Captured::set`] and [`Captured::sorted`] compare them regardless of order.
//!   More than 20, or a square listed twice, is a decode error: a piece is captured once, so a
//!   repeat cannot describe a move, and the list stands for a set.
//! - **From equal to to** is accepted (a capture that returns to its start square).
//! - **Any protocol version** (`00`..`99`) decodes, so a Follower can answer `A…1`.
//!
//! What pydraughts (the Python library) builds in `dxp_classes.py` is all within the spec:
//! GAMEREQ always with start `B` and its position, the name `DXP Client`, thinking time and
//! move limit zero-filled to 3 digits (usually `000`, since its `initial-time` and `max-moves`
//! options are reset to 0); MOVE with time `0000`, from/to/count and the captured squares in
//! jump order; GAMEEND with stop code `1` (its acknowledgement repeats the reason received);
//! CHAT as `C` and the text; BACKACC `K1`. So no variant needs tolerating, and the "time field
//! `0000`" of dxp.md §6 is the MOVE time (pydraughts always reports 0 seconds), not a 4-digit
//! GAMEREQ field. Its edge cases stay errors, because the spec's fields cannot hold them: a
//! thinking time of 1000 minutes or more zero-fills to 4 digits (a 95-byte GAMEREQ, refused as
//! a wrong length), a BACKREQ for move 1000 wraps to `000` (out of range), a chat of blanks
//! only is stripped to a bare `C` (too short), and chat text is sent as UTF-8, so a character
//! outside ASCII arrives as a [`FrameError`] of kind [`FrameErrorKind::NotAscii`]. DXC100, from
//! which its client code comes, builds the same messages.
//!
//! # Framing
//!
//! [`Framer`] follows tokio-util's delimiter codec, without tying it to any I/O: a lone NUL is
//! reported as [`FrameErrorKind::Empty`] (the session logs and skips it); more than 127 bytes
//! without a NUL is reported once as [`FrameErrorKind::Oversized`] and dropped up to the next
//! NUL, never buffered; a frame with a byte above 127 is [`FrameErrorKind::NotAscii`]. Every
//! error carries the first 127 bytes of the bad frame ([`RawBytes`]) for the log.
//!
//! # JSON (feature `serde`)
//!
//! Transcripts are JSON lines, one message per line, tagged by `type`. Numbers are numbers,
//! names are trimmed of their padding (padding them again gives back the 32 bytes), colours
//! are `"white"`/`"black"`, codes are words, the captured list keeps the order sent, and a
//! position is its 50 wire letters. Deserialising checks every value as decoding does, and
//! refuses unknown fields; [`Message::from_json`] reads one object with an error that says
//! where it went wrong ([`JsonError`]). One example per kind:
//!
//! ```json
//! {"type":"gamereq","version":1,"initiator":"Tornado voor Windows 4.0","follower_color":"white","minutes":60,"move_limit":65}
//! {"type":"gamereq","version":1,"initiator":"DXP Client","follower_color":"black","minutes":0,"move_limit":0,"to_move":"white","position":"zzzzzzzzzzzzzzzzzzzzeeeeeeeeeewwwwwwwwwwwwwwwwwwww"}
//! {"type":"gameacc","follower":"Tornado voor Windows 4.0","code":"accepted"}
//! {"type":"move","seconds":12,"from":5,"to":25,"captured":[22,12,23,20]}
//! {"type":"gameend","reason":"no_reason","stop":"continue"}
//! {"type":"chat","text":"What do you think about move 35?"}
//! {"type":"backreq","move_number":5,"to_move":"black"}
//! {"type":"backacc","code":"not_supported"}
//! ```
//!
//! Code words: `code` of a gameacc is `accepted`, `version_not_supported`,
//! `game_not_acceptable` or `no_games`; `reason` is `no_reason`, `give_up`, `draw` or `win`;
//! `stop` is `continue` or `stop`; `code` of a backacc is `accepted`, `not_supported` or
//! `declined`.
//!
//! # Tests and fuzzing
//!
//! `cargo test -p damx-wire --all-features` runs the unit tests and thousands of property-test
//! cases (round trips both ways, no panic on random or mutated input in any read chunking).
//! `cargo xtask fuzz-wire` runs the same properties in release mode with a million cases each
//! (`cargo xtask fuzz-wire 5000000` for more; it sets `PROPTEST_CASES`).
//! `cargo bench -p damx-wire` measures throughput and counts allocations per message.
#![forbid(unsafe_code)]

mod decode;
mod field;
mod framer;
mod message;
mod reader;
#[cfg(feature = "serde")]
mod serde_impls;

pub use decode::{DecodeError, ExpectedLength, Field, Problem, decode};
pub use field::{
    AcceptCode, BackAccCode, Captured, Color, EndReason, MAX_CAPTURED, Minutes, MoveLimit,
    MoveNumber, NAME_LEN, Name, POSITION_LEN, Position, ProtocolVersion, Seconds, Square,
    SquareContent, SquareSet, StopCode, ValueError,
};
pub use framer::{Escaped, Frame, FrameError, FrameErrorKind, Framer, RawBytes, StreamError};
pub use message::{
    BackAcc, BackReq, Chat, GameAcc, GameEnd, GameReq, MAX_CHAT_LEN, MAX_MESSAGE_LEN, Message,
    MessageKind, Move, Start,
};
pub use reader::{FrameReader, Line, LineReader, Located};
#[cfg(feature = "serde")]
pub use serde_impls::JsonError;

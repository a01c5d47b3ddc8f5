//! Property tests: both round trips, and no panic on any input in any read chunking.
//!
//! The default run tries 4096 cases per property. For a long run in release mode, set
//! `PROPTEST_CASES` (`cargo xtask fuzz-wire` does, with a million cases per property).

use bytes::BytesMut;
use damx_wire::{
    AcceptCode, BackAcc, BackAccCode, BackReq, Captured, Chat, Color, EndReason, FrameErrorKind,
    Framer, GameAcc, GameEnd, GameReq, Message, Minutes, MoveLimit, MoveNumber, Name, Position,
    ProtocolVersion, Seconds, Square, SquareContent, Start, StopCode, decode,
};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;

/// 4096 cases per property, unless `PROPTEST_CASES` says otherwise.
fn config() -> ProptestConfig {
    let mut config = ProptestConfig::default();
    if std::env::var_os("PROPTEST_CASES").is_none() {
        config.cases = 4096;
    }
    config
}

// ----- Messages, built from valid field values -----

fn square() -> impl Strategy<Value = Square> {
    (1u8..=50).prop_map(|n| Square::new(n).unwrap())
}

fn color() -> impl Strategy<Value = Color> {
    prop_oneof![Just(Color::White), Just(Color::Black)]
}

/// Any name a peer may send: up to 32 bytes in 1..=127.
fn name() -> impl Strategy<Value = Name> {
    vec(1u8..=127, 0..=32).prop_map(|bytes| Name::from_received(&bytes).unwrap())
}

fn captured() -> impl Strategy<Value = Captured> {
    proptest::sample::subsequence(Square::all().collect::<Vec<_>>(), 0..=20)
        .prop_shuffle()
        .prop_map(|squares| Captured::new(&squares).unwrap())
}

fn position() -> impl Strategy<Value = Position> {
    let contents = [
        SquareContent::Empty,
        SquareContent::WhiteMan,
        SquareContent::BlackMan,
        SquareContent::WhiteKing,
        SquareContent::BlackKing,
    ];
    vec(select(contents.to_vec()), 50)
        .prop_map(|contents| Position::new(contents.try_into().unwrap()))
}

fn message() -> impl Strategy<Value = Message> {
    let start = prop_oneof![
        Just(Start::Initial),
        (color(), position()).prop_map(|(to_move, position)| Start::Position { to_move, position }),
    ];
    let game_req = (0u8..=99, name(), color(), 0u16..=999, 0u16..=999, start).prop_map(
        |(version, initiator, follower_color, minutes, moves, start)| {
            Message::GameReq(GameReq {
                version: ProtocolVersion::new(version).unwrap(),
                initiator,
                follower_color,
                minutes: Minutes::new(minutes).unwrap(),
                move_limit: MoveLimit::new(moves).unwrap(),
                start,
            })
        },
    );
    let accept = select(vec![
        AcceptCode::Accepted,
        AcceptCode::VersionNotSupported,
        AcceptCode::GameNotAcceptable,
        AcceptCode::NoGames,
    ]);
    let game_acc =
        (name(), accept).prop_map(|(follower, code)| Message::GameAcc(GameAcc { follower, code }));
    let move_ =
        (0u16..=9999, square(), square(), captured()).prop_map(|(seconds, from, to, captured)| {
            Message::Move(damx_wire::Move {
                seconds: Seconds::new(seconds).unwrap(),
                from,
                to,
                captured,
            })
        });
    let reason = select(vec![
        EndReason::NoReason,
        EndReason::GiveUp,
        EndReason::Draw,
        EndReason::Win,
    ]);
    let stop = select(vec![StopCode::Continue, StopCode::Stop]);
    let game_end =
        (reason, stop).prop_map(|(reason, stop)| Message::GameEnd(GameEnd { reason, stop }));
    let chat = vec(1u8..=127, 1..=126)
        .prop_map(|bytes| Message::Chat(Chat::new(String::from_utf8(bytes).unwrap()).unwrap()));
    let back_req = (1u16..=999, color()).prop_map(|(number, to_move)| {
        Message::BackReq(BackReq {
            move_number: MoveNumber::new(number).unwrap(),
            to_move,
        })
    });
    let back_acc = select(vec![
        BackAccCode::Accepted,
        BackAccCode::NotSupported,
        BackAccCode::Declined,
    ])
    .prop_map(|code| Message::BackAcc(BackAcc { code }));
    prop_oneof![
        1 => game_req,
        1 => game_acc,
        3 => move_,
        1 => game_end,
        1 => chat,
        1 => back_req,
        1 => back_acc,
    ]
}

// ----- Valid byte strings, built from the grammar of dxp.md §2 (not from the encoder) -----

fn digits(width: usize, range: std::ops::RangeInclusive<u32>) -> impl Strategy<Value = Vec<u8>> {
    range.prop_map(move |n| format!("{n:0width$}").into_bytes())
}

fn one_of(bytes: &'static [u8]) -> impl Strategy<Value = Vec<u8>> {
    select(bytes).prop_map(|b| vec![b])
}

fn valid_bytes() -> impl Strategy<Value = Vec<u8>> {
    let name = vec(1u8..=127, 32);
    let tail = prop_oneof![
        Just(b"A".to_vec()),
        (one_of(b"WZ"), vec(select(b"ewzWZ".to_vec()), 50)).prop_map(|(color, position)| [
            b"B".to_vec(),
            color,
            position
        ]
        .concat()),
    ];
    let game_req = (
        digits(2, 0..=99),
        name.clone(),
        one_of(b"WZ"),
        digits(3, 0..=999),
        digits(3, 0..=999),
        tail,
    )
        .prop_map(|(v, n, c, t, m, rest)| [b"R".to_vec(), v, n, c, t, m, rest].concat());
    let game_acc = (name, one_of(b"0123")).prop_map(|(n, code)| [b"A".to_vec(), n, code].concat());
    let squares =
        proptest::sample::subsequence((1..=50u32).collect::<Vec<_>>(), 0..=20).prop_shuffle();
    let move_ = (
        digits(4, 0..=9999),
        digits(2, 1..=50),
        digits(2, 1..=50),
        squares,
    )
        .prop_map(|(t, from, to, captured)| {
            let mut bytes = [b"M".to_vec(), t, from, to].concat();
            bytes.extend(format!("{:02}", captured.len()).bytes());
            for square in captured {
                bytes.extend(format!("{square:02}").bytes());
            }
            bytes
        });
    let game_end = (one_of(b"0123"), one_of(b"01"))
        .prop_map(|(reason, stop)| [b"E".to_vec(), reason, stop].concat());
    let chat = vec(1u8..=127, 1..=126).prop_map(|text| [b"C".to_vec(), text].concat());
    let back_req =
        (digits(3, 1..=999), one_of(b"WZ")).prop_map(|(n, c)| [b"B".to_vec(), n, c].concat());
    let back_acc = one_of(b"012").prop_map(|code| [b"K".to_vec(), code].concat());
    prop_oneof![
        game_req, game_acc, move_, game_end, chat, back_req, back_acc
    ]
}

/// Any byte, half of the time one next to a boundary the decoder checks.
fn edit_byte() -> impl Strategy<Value = u8> {
    prop_oneof![
        any::<u8>(),
        select(b"\x00\x01 /0159:@ABCEKMRWZ[`aewz{\x7f\x80\xff".to_vec()),
    ]
}

/// A valid message, then one edit: a byte replaced, the end cut off, a byte inserted or one
/// removed.
fn mutated_bytes() -> impl Strategy<Value = Vec<u8>> {
    (
        valid_bytes(),
        0usize..4,
        any::<prop::sample::Index>(),
        edit_byte(),
    )
        .prop_map(|(mut bytes, edit, index, byte)| {
            let at = index.index(bytes.len());
            match edit {
                0 => bytes[at] = byte,
                1 => bytes.truncate(at),
                2 => bytes.insert(at, byte),
                _ => {
                    bytes.remove(at);
                }
            }
            bytes
        })
}

/// Whatever decodes must re-encode to exactly the input: decoding is strict.
fn check_decode(bytes: &[u8]) -> Result<(), TestCaseError> {
    if let Ok(message) = decode(bytes) {
        prop_assert_eq!(message.to_bytes(), bytes);
    }
    Ok(())
}

// ----- The framer, against a model that splits the whole stream at once -----

#[derive(Debug, PartialEq, Eq)]
enum Out {
    Frame(Vec<u8>),
    Error(FrameErrorKind, Vec<u8>),
}

/// What the framer must report for `stream`, computed by splitting it at every NUL.
fn model(stream: &[u8]) -> Vec<Out> {
    let mut out = Vec::new();
    let mut segments: Vec<&[u8]> = stream.split(|&b| b == 0).collect();
    let rest = segments.pop().unwrap_or_default();
    for segment in segments {
        out.push(if segment.len() > 127 {
            Out::Error(FrameErrorKind::Oversized, segment[..127].to_vec())
        } else if segment.is_empty() {
            Out::Error(FrameErrorKind::Empty, vec![])
        } else if let Some(offset) = segment.iter().position(|&b| b > 127) {
            let found = segment[offset];
            Out::Error(FrameErrorKind::NotAscii { offset, found }, segment.to_vec())
        } else {
            Out::Frame(segment.to_vec())
        });
    }
    if rest.len() > 127 {
        out.push(Out::Error(FrameErrorKind::Oversized, rest[..127].to_vec()));
    } else if !rest.is_empty() {
        out.push(Out::Error(FrameErrorKind::Truncated, rest.to_vec()));
    }
    out
}

/// Feeds `stream` to a framer in chunks of the given sizes (cycled), draining after each;
/// checks that the buffer never keeps more than 127 bytes.
fn frame_in_chunks(stream: &[u8], sizes: &[usize]) -> Result<Vec<Out>, TestCaseError> {
    let mut framer = Framer::new();
    let mut buf = BytesMut::new();
    let mut out = Vec::new();
    let mut rest = stream;
    let mut sizes = sizes.iter().cycle();
    while !rest.is_empty() {
        let size = (*sizes.next().unwrap_or(&1)).clamp(1, rest.len());
        buf.extend_from_slice(&rest[..size]);
        rest = &rest[size..];
        loop {
            match framer.next_frame(&mut buf) {
                Ok(Some(frame)) => out.push(Out::Frame(frame.as_bytes().to_vec())),
                Ok(None) => break,
                Err(e) => out.push(Out::Error(e.kind(), e.raw().as_bytes().to_vec())),
            }
        }
        prop_assert!(buf.len() <= 127, "{} bytes left unframed", buf.len());
    }
    if let Some(e) = framer.finish(&mut buf) {
        out.push(Out::Error(e.kind(), e.raw().as_bytes().to_vec()));
    }
    Ok(out)
}

/// A stream of valid frames, garbage, stray NULs and long runs without a NUL.
fn stream() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        4 => valid_bytes().prop_map(|mut b| { b.push(0); b }),
        2 => mutated_bytes().prop_map(|mut b| { b.push(0); b }),
        2 => vec(any::<u8>(), 0..40),
        1 => Just(vec![0]),
        1 => (128usize..400, 1u8..=255).prop_map(|(n, b)| vec![b; n]),
    ];
    vec(piece, 0..12).prop_map(|pieces| pieces.concat())
}

fn chunk_sizes() -> impl Strategy<Value = Vec<usize>> {
    vec(1usize..200, 1..8)
}

proptest! {
    #![proptest_config(config())]

    /// decode(encode(m)) == m for every message.
    #[test]
    fn messages_survive_encoding(message in message()) {
        let bytes = message.to_bytes();
        prop_assert_eq!(bytes.len(), message.encoded_len());
        prop_assert!(bytes.len() <= 127);
        prop_assert_eq!(decode(&bytes), Ok(message));
    }

    /// encode(decode(b)) == b for every valid byte string.
    #[test]
    fn valid_bytes_survive_decoding(bytes in valid_bytes()) {
        let message = decode(&bytes);
        prop_assert!(message.is_ok(), "{:?}: {:?}", String::from_utf8_lossy(&bytes), message);
        prop_assert_eq!(message.unwrap().to_bytes(), bytes);
    }

    /// Random bytes never panic the decoder, and whatever decodes re-encodes unchanged.
    #[test]
    fn random_bytes_never_panic_the_decoder(bytes in vec(any::<u8>(), 0..140)) {
        check_decode(&bytes)?;
    }

    /// Random bytes after a valid kind letter reach the field checks; still no panic.
    #[test]
    fn random_fields_never_panic_the_decoder(
        letter in select(b"RAMECBK".to_vec()),
        rest in vec(any::<u8>(), 0..100),
    ) {
        check_decode(&[&[letter][..], &rest].concat())?;
    }

    /// A valid message with one byte changed, inserted, removed or cut off never panics the
    /// decoder, and decodes only if it is still exactly a valid message.
    #[test]
    fn mutated_messages_never_panic_the_decoder(bytes in mutated_bytes()) {
        check_decode(&bytes)?;
    }

    /// In any read chunking, the framer reports what splitting the whole stream at once
    /// gives, and never keeps more than 127 unframed bytes.
    #[test]
    fn the_framer_agrees_with_the_model_in_any_chunking(
        stream in stream(),
        sizes in chunk_sizes(),
    ) {
        prop_assert_eq!(frame_in_chunks(&stream, &sizes)?, model(&stream));
    }

    /// Random bytes in random chunks never panic the framer.
    #[test]
    fn random_streams_never_panic_the_framer(
        stream in vec(any::<u8>(), 0..600),
        sizes in chunk_sizes(),
    ) {
        prop_assert_eq!(frame_in_chunks(&stream, &sizes)?, model(&stream));
    }

    /// Encoded messages sent back to back come out as the same messages, however the stream
    /// is cut into reads.
    #[test]
    fn messages_come_through_the_framer(
        messages in vec(message(), 0..10),
        sizes in chunk_sizes(),
    ) {
        let stream: Vec<u8> = messages.iter().flat_map(Message::to_frame).collect();
        let mut framer = Framer::new();
        let mut buf = BytesMut::new();
        let mut received = Vec::new();
        let mut sizes = sizes.iter().cycle();
        let mut rest = &stream[..];
        while !rest.is_empty() {
            let size = (*sizes.next().unwrap_or(&1)).clamp(1, rest.len());
            buf.extend_from_slice(&rest[..size]);
            rest = &rest[size..];
            while let Some(message) = framer.next_message(&mut buf).map_err(|e| {
                TestCaseError::fail(format!("{e}"))
            })? {
                received.push(message);
            }
        }
        prop_assert_eq!(framer.finish(&mut buf), None);
        prop_assert_eq!(received, messages);
    }
}

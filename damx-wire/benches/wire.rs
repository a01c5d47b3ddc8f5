//! Throughput and heap allocations of the DXP codec, on a realistic MOVE-heavy stream.
//!
//! Run with `cargo bench -p damx-wire`. It prints messages per second for encoding, for
//! framing plus decoding, and for decoding MOVE messages alone, and the heap allocations per
//! decoded message of each kind, counted by a global allocator. It checks its own results:
//! the decoded messages are the ones encoded, and no kind but CHAT allocates.

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use bytes::BytesMut;
use damx_wire::{
    BackAcc, BackAccCode, BackReq, Captured, Chat, Color, EndReason, Framer, GameAcc, GameEnd,
    GameReq, Message, MessageKind, Minutes, MoveLimit, MoveNumber, Name, Position, ProtocolVersion,
    Seconds, Square, Start, StopCode, decode,
};

/// Counts every allocation and reallocation, then lets the system allocator do the work.
struct CountingAllocator;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

// SAFETY: every method forwards its arguments unchanged to `System`, which upholds the
// `GlobalAlloc` contract; the only addition is a relaxed atomic counter increment, which
// neither allocates nor touches the memory handed out.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

fn allocations() -> u64 {
    ALLOCATIONS.load(Ordering::Relaxed)
}

/// A small deterministic generator (xorshift64*), so every run measures the same stream.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn sq(n: u64) -> Square {
    Square::new(n as u8).expect("1..=50")
}

/// A move as programs send them: mostly simple moves, a fifth captures of 1 to 4 pieces.
fn random_move(rng: &mut Rng) -> Message {
    let from = sq(1 + rng.below(50));
    let to = sq(1 + rng.below(50));
    let mut squares = Vec::new();
    if rng.below(5) == 0 {
        let count = 1 + rng.below(4);
        while (squares.len() as u64) < count {
            let square = sq(1 + rng.below(50));
            if !squares.contains(&square) {
                squares.push(square);
            }
        }
    }
    Message::Move(damx_wire::Move {
        seconds: Seconds::new(rng.below(120) as u16).expect("< 9999"),
        from,
        to,
        captured: Captured::new(&squares).expect("at most 4 distinct squares"),
    })
}

fn random_chat(rng: &mut Rng) -> Message {
    let len = 10 + rng.below(70) as usize;
    let text: String = (0..len)
        .map(|_| char::from(b' ' + rng.below(95) as u8))
        .collect();
    Message::Chat(Chat::new(text).expect("printable ASCII"))
}

/// 90% MOVE, 10% CHAT, as in a match where the programs comment now and then.
fn realistic_messages(count: usize) -> Vec<Message> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    (0..count)
        .map(|_| {
            if rng.below(10) == 0 {
                random_chat(&mut rng)
            } else {
                random_move(&mut rng)
            }
        })
        .collect()
}

/// One of each kind, for counting allocations.
fn one_of_each_kind() -> Vec<Message> {
    let name = Name::new("damx").expect("valid name");
    vec![
        Message::GameReq(GameReq {
            version: ProtocolVersion::V1,
            initiator: name,
            follower_color: Color::White,
            minutes: Minutes::new(60).expect("valid"),
            move_limit: MoveLimit::new(75).expect("valid"),
            start: Start::Position {
                to_move: Color::White,
                position: Position::INITIAL,
            },
        }),
        Message::GameAcc(GameAcc {
            follower: name,
            code: damx_wire::AcceptCode::Accepted,
        }),
        random_move(&mut Rng(7)),
        Message::Move(damx_wire::Move {
            seconds: Seconds::new(3).expect("valid"),
            from: sq(28),
            to: sq(28),
            captured: Captured::new(
                &Square::all()
                    .skip(5)
                    .step_by(2)
                    .take(20)
                    .collect::<Vec<_>>(),
            )
            .expect("20 distinct squares"),
        }),
        Message::GameEnd(GameEnd {
            reason: EndReason::Draw,
            stop: StopCode::Continue,
        }),
        Message::Chat(Chat::new("What do you think about move 35?").expect("valid chat")),
        Message::BackReq(BackReq {
            move_number: MoveNumber::new(5).expect("valid"),
            to_move: Color::Black,
        }),
        Message::BackAcc(BackAcc {
            code: BackAccCode::Declined,
        }),
    ]
}

/// The best of several rounds of `work`, which handles `items` messages per round.
fn best_of(rounds: usize, mut work: impl FnMut()) -> Duration {
    (0..rounds)
        .map(|_| {
            let start = Instant::now();
            work();
            start.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn report(what: &str, messages: usize, bytes: usize, time: Duration) -> f64 {
    let seconds = time.as_secs_f64();
    let per_second = messages as f64 / seconds;
    println!(
        "{what:<44} {:>8.2} M msg/s {:>8.1} MB/s {:>7.1} ns/msg",
        per_second / 1e6,
        bytes as f64 / seconds / 1e6,
        seconds * 1e9 / messages as f64,
    );
    per_second
}

fn main() {
    const COUNT: usize = 1_000_000;
    const ROUNDS: usize = 7;
    let messages = realistic_messages(COUNT);
    let moves = messages
        .iter()
        .filter(|m| m.kind() == MessageKind::Move)
        .count();
    let mut stream = BytesMut::new();
    for message in &messages {
        message.encode_frame(&mut stream);
    }
    let stream = stream.freeze();
    println!(
        "stream: {COUNT} messages ({moves} MOVE, {} CHAT), {} bytes",
        COUNT - moves,
        stream.len()
    );

    // Encoding into a buffer that already has room.
    let mut out = BytesMut::with_capacity(stream.len());
    let time = best_of(ROUNDS, || {
        out.clear();
        for message in &messages {
            message.encode_frame(&mut out);
        }
        black_box(&out);
    });
    assert_eq!(out[..], stream[..], "encoding is deterministic");
    report("encode (frames into BytesMut)", COUNT, stream.len(), time);

    // Framing and decoding the whole stream, as a session's reader thread does: first once to
    // check the result, then timed.
    let mut framer = Framer::new();
    let mut buf = BytesMut::from(&stream[..]);
    let mut decoded = Vec::with_capacity(COUNT);
    while let Some(message) = framer.next_message(&mut buf).expect("valid stream") {
        decoded.push(message);
    }
    assert_eq!(decoded, messages, "frame + decode gives back every message");
    let mut count = 0;
    let time = best_of(ROUNDS, || {
        count = 0;
        let mut framer = Framer::new();
        // Copying the stream into the buffer (a memcpy of a few MB) is part of the time.
        let mut buf = BytesMut::from(&stream[..]);
        while let Some(message) = framer.next_message(&mut buf).expect("valid stream") {
            black_box(message);
            count += 1;
        }
    });
    assert_eq!(count, COUNT);
    report(
        "frame + decode (realistic stream)",
        COUNT,
        stream.len(),
        time,
    );

    // MOVE messages alone: the frames laid out back to back, decoded one by one.
    let move_frames: Vec<(usize, usize)> = {
        let mut offsets = Vec::with_capacity(moves);
        let mut start = 0;
        for (i, &byte) in stream.iter().enumerate() {
            if byte == 0 {
                if stream[start] == b'M' {
                    offsets.push((start, i));
                }
                start = i + 1;
            }
        }
        offsets
    };
    assert_eq!(move_frames.len(), moves);
    let expected_sum: u64 = messages
        .iter()
        .filter_map(|m| match m {
            Message::Move(m) => {
                Some(u64::from(m.from.get()) + u64::from(m.to.get()) + m.captured.len() as u64)
            }
            _ => None,
        })
        .sum();
    let mut sum = 0;
    let time = best_of(ROUNDS, || {
        sum = 0;
        for &(start, end) in &move_frames {
            if let Ok(Message::Move(m)) = decode(black_box(&stream[start..end])) {
                sum += u64::from(m.from.get()) + u64::from(m.to.get()) + m.captured.len() as u64;
            }
        }
    });
    assert_eq!(sum, expected_sum, "every MOVE decodes to what was encoded");
    let move_bytes: usize = move_frames.iter().map(|(s, e)| e - s).sum();
    let rate = report("decode MOVE (one core)", moves, move_bytes, time);
    println!(
        "  target >= 20 M MOVE/s: {}",
        if rate >= 20e6 { "met" } else { "NOT met" }
    );

    // MOVE messages through the framer.
    let mut move_stream = BytesMut::new();
    for message in messages.iter().filter(|m| m.kind() == MessageKind::Move) {
        message.encode_frame(&mut move_stream);
    }
    let move_stream = move_stream.freeze();
    let mut count = 0;
    let time = best_of(ROUNDS, || {
        count = 0;
        let mut framer = Framer::new();
        let mut buf = BytesMut::from(&move_stream[..]);
        while let Some(Message::Move(m)) = framer.next_message(&mut buf).expect("valid stream") {
            black_box(m);
            count += 1;
        }
    });
    assert_eq!(count, moves);
    report("frame + decode MOVE", moves, move_stream.len(), time);

    // Heap allocations per decoded message, kind by kind.
    println!("heap allocations per message:");
    const REPEAT: u64 = 10_000;
    for message in one_of_each_kind() {
        let frame = message.to_frame();
        let bytes = &frame[..frame.len() - 1];
        let before = allocations();
        for _ in 0..REPEAT {
            let decoded = decode(black_box(bytes)).expect("valid message");
            assert_eq!(decoded.kind(), message.kind());
            black_box(decoded);
        }
        let decoding = (allocations() - before) as f64 / REPEAT as f64;

        let mut buf = BytesMut::with_capacity(frame.len() * REPEAT as usize);
        for _ in 0..REPEAT {
            buf.extend_from_slice(&frame);
        }
        let mut framer = Framer::new();
        let before = allocations();
        while let Some(decoded) = framer.next_message(&mut buf).expect("valid stream") {
            black_box(decoded);
        }
        let framing = (allocations() - before) as f64 / REPEAT as f64;

        let mut out = BytesMut::with_capacity(frame.len() * REPEAT as usize);
        let before = allocations();
        for _ in 0..REPEAT {
            message.encode_frame(&mut out);
        }
        let encoding = (allocations() - before) as f64 / REPEAT as f64;
        assert_eq!(out.len(), frame.len() * REPEAT as usize);

        println!(
            "  {:<8} ({:>3} bytes)  decode {decoding:.2}  frame + decode {framing:.2}  encode {encoding:.2}",
            message.kind().name(),
            bytes.len()
        );
        let expected = if message.kind() == MessageKind::Chat {
            1.0
        } else {
            0.0
        };
        assert_eq!(decoding, expected, "{} decode allocations", message.kind());
        assert_eq!(
            framing,
            expected,
            "{} frame + decode allocations",
            message.kind()
        );
        assert_eq!(encoding, 0.0, "{} encode allocations", message.kind());
    }
}

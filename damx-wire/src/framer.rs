//! Splitting the NUL-terminated DXP byte stream into frames (dxp.md §1).

use std::fmt;

use bytes::{Buf, BytesMut};

use crate::decode::{DecodeError, decode};
use crate::field::ShowByte;
use crate::message::{MAX_MESSAGE_LEN, Message};

/// At most [`MAX_MESSAGE_LEN`] bytes, kept on the stack.
#[derive(Clone, Copy)]
struct Bounded {
    bytes: [u8; MAX_MESSAGE_LEN],
    len: u8,
}

impl Bounded {
    /// The first [`MAX_MESSAGE_LEN`] bytes of `bytes`.
    fn new(bytes: &[u8]) -> Self {
        let len = bytes.len().min(MAX_MESSAGE_LEN);
        let mut stored = [0; MAX_MESSAGE_LEN];
        stored[..len].copy_from_slice(&bytes[..len]);
        Self {
            bytes: stored,
            len: len as u8,
        }
    }

    fn as_bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }
}

/// The bytes of one frame without its NUL: 1..=127 bytes, each in 1..=127. Kept on the stack,
/// so framing allocates nothing.
#[derive(Clone, Copy)]
pub struct Frame(Bounded);

impl Frame {
    /// The bytes.
    pub fn as_bytes(&self) -> &[u8] {
        self.0.as_bytes()
    }

    /// Decodes the frame into a message.
    ///
    /// # Errors
    /// See [`crate::decode`].
    pub fn decode(&self) -> Result<Message, DecodeError> {
        decode(self.as_bytes())
    }

    /// The same bytes, as raw bytes to log.
    pub fn raw(&self) -> RawBytes {
        RawBytes(self.0)
    }
}

impl PartialEq for Frame {
    fn eq(&self, other: &Self) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl Eq for Frame {}

impl fmt::Debug for Frame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Frame(\"{}\")", self.raw())
    }
}

/// Raw bytes kept for a log: any byte values, at most 127 of them (the start of a longer run).
///
/// `Display` escapes them: printable ASCII as is, `\` as `\\`, anything else as `\xNN`.
#[derive(Clone, Copy)]
pub struct RawBytes(Bounded);

impl RawBytes {
    /// The bytes.
    pub fn as_bytes(&self) -> &[u8] {
        self.0.as_bytes()
    }
}

impl fmt::Display for RawBytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Escaped(self.as_bytes()).fmt(f)
    }
}

/// Any bytes shown unambiguously for a message or a log: printable ASCII as it is, `\` as
/// `\\`, anything else as `\xNN`. The alternate form (`{:#}`) puts them in double quotes with
/// `"` as `\"`, and cuts them after 127 bytes (the longest DXP message) with `... (N bytes)`.
///
/// ```
/// use damx_wire::Escaped;
///
/// assert_eq!(Escaped(b"C\x00\\").to_string(), r"C\x00\\");
/// assert_eq!(format!("{:#}", Escaped(b"C\"hi\"")), r#""C\"hi\"""#);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Escaped<'a>(pub &'a [u8]);

impl fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let quoted = f.alternate();
        let shown = if quoted { MAX_MESSAGE_LEN } else { usize::MAX };
        if quoted {
            f.write_str("\"")?;
        }
        for &byte in self.0.iter().take(shown) {
            match byte {
                b'"' if quoted => f.write_str("\\\"")?,
                b'\\' => f.write_str("\\\\")?,
                0x20..=0x7e => fmt::Write::write_char(f, char::from(byte))?,
                _ => write!(f, "\\x{byte:02x}")?,
            }
        }
        if quoted {
            f.write_str("\"")?;
            if self.0.len() > shown {
                write!(f, "... ({} bytes)", self.0.len())?;
            }
        }
        Ok(())
    }
}

impl fmt::Debug for RawBytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RawBytes(\"{self}\")")
    }
}

impl PartialEq for RawBytes {
    fn eq(&self, other: &Self) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl Eq for RawBytes {}

/// Why a stretch of the stream is not a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FrameErrorKind {
    /// A NUL with no bytes before it: an empty message.
    Empty,
    /// More than 127 bytes without a NUL. Reported once; the framer then drops bytes up to and
    /// including the next NUL and starts afresh after it.
    Oversized,
    /// A frame with a byte above 127 (not 7-bit ASCII).
    NotAscii {
        /// The offset of the first such byte in the frame.
        offset: usize,
        /// The byte.
        found: u8,
    },
    /// The stream ended inside a frame (bytes without their NUL).
    Truncated,
}

/// A frame that cannot be a message, with its raw bytes (at most 127) for the log. The framer
/// has consumed the bad bytes and is ready for the next frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameError {
    kind: FrameErrorKind,
    raw: RawBytes,
}

impl FrameError {
    /// What was wrong.
    pub const fn kind(&self) -> FrameErrorKind {
        self.kind
    }

    /// The frame's bytes; for an oversized frame, its first 127 bytes.
    pub const fn raw(&self) -> RawBytes {
        self.raw
    }
}

impl fmt::Display for FrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            FrameErrorKind::Empty => f.write_str("empty frame: a NUL with no message before it"),
            FrameErrorKind::Oversized => write!(
                f,
                "frame longer than {MAX_MESSAGE_LEN} bytes without a NUL, dropped up to the next NUL"
            ),
            FrameErrorKind::NotAscii { offset, found } => write!(
                f,
                "frame byte {offset}: {} is not 7-bit ASCII",
                ShowByte(found)
            ),
            FrameErrorKind::Truncated => write!(
                f,
                "stream ended inside a frame ({} bytes without a NUL)",
                self.raw.as_bytes().len()
            ),
        }
    }
}

impl std::error::Error for FrameError {}

/// A frame or a message that could not be read, from [`Framer::next_message`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StreamError {
    /// The bytes were not a frame.
    Frame(FrameError),
    /// The frame was not a message.
    Decode {
        /// Why.
        error: DecodeError,
        /// The frame's bytes, for the log.
        raw: RawBytes,
    },
}

impl StreamError {
    /// The raw bytes of the bad frame (at most 127).
    pub const fn raw(&self) -> RawBytes {
        match self {
            Self::Frame(error) => error.raw,
            Self::Decode { raw, .. } => *raw,
        }
    }
}

impl fmt::Display for StreamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Frame(error) => error.fmt(f),
            Self::Decode { error, .. } => error.fmt(f),
        }
    }
}

impl std::error::Error for StreamError {}

impl From<FrameError> for StreamError {
    fn from(error: FrameError) -> Self {
        Self::Frame(error)
    }
}

/// Splits the stream into frames: up to 127 bytes, then a NUL.
///
/// The caller appends what it reads to a [`BytesMut`] and calls [`Framer::next_frame`] (or
/// [`Framer::next_message`]) until it returns `Ok(None)`, which means "not yet: read more".
/// Several frames in one read come out one per call; a frame split over many reads comes out
/// once its NUL arrives, and bytes already scanned are not scanned again. Between calls the
/// caller may only append to the buffer.
///
/// Bad input is reported as an error for the frame it spoils, after which the framer goes on
/// with the next frame: an empty frame (a lone NUL) is an error, so the session can log it; a
/// frame with a byte above 127 is an error; a run of more than 127 bytes without a NUL is
/// reported once, then dropped as it arrives up to the next NUL, so the buffer never holds
/// more than 127 unframed bytes after a call. Nothing panics, whatever the bytes.
#[derive(Clone, Debug, Default)]
pub struct Framer {
    /// How many bytes at the start of the buffer are known to hold no NUL.
    scanned: usize,
    /// Inside an oversized frame: drop bytes up to and including the next NUL.
    discarding: bool,
}

// The errors carry up to 127 raw bytes inline on purpose: a peer that sends garbage must not
// make the reader allocate.
#[allow(clippy::result_large_err)]
impl Framer {
    /// A framer at the start of a stream.
    pub const fn new() -> Self {
        Self {
            scanned: 0,
            discarding: false,
        }
    }

    /// The next frame in `buf`, consuming it and its NUL; `Ok(None)` if the buffer holds no
    /// complete frame yet.
    ///
    /// # Errors
    /// A [`FrameError`] for a frame that cannot hold a message; its bytes are consumed.
    pub fn next_frame(&mut self, buf: &mut BytesMut) -> Result<Option<Frame>, FrameError> {
        let Some(len) = self.next_len(buf)? else {
            return Ok(None);
        };
        let frame = Frame(Bounded::new(&buf[..len]));
        buf.advance(len + 1);
        Ok(Some(frame))
    }

    /// The next message in `buf`: [`Framer::next_frame`], then [`decode`] (straight from the
    /// buffer, without copying the frame).
    ///
    /// # Errors
    /// A [`StreamError`] for a bad frame or a frame that does not decode; either way the
    /// frame is consumed and the error carries its raw bytes.
    pub fn next_message(&mut self, buf: &mut BytesMut) -> Result<Option<Message>, StreamError> {
        let Some(len) = self.next_len(buf)? else {
            return Ok(None);
        };
        let decoded = decode(&buf[..len]).map_err(|error| StreamError::Decode {
            error,
            raw: RawBytes(Bounded::new(&buf[..len])),
        });
        buf.advance(len + 1);
        decoded.map(Some)
    }

    /// The length of the valid frame at the start of `buf`, which stays there, followed by its
    /// NUL; `Ok(None)` for "not yet". Bad frames are consumed and reported.
    fn next_len(&mut self, buf: &mut BytesMut) -> Result<Option<usize>, FrameError> {
        if self.discarding {
            match find_nul(buf, 0) {
                Some(nul) => {
                    buf.advance(nul + 1);
                    self.discarding = false;
                }
                None => {
                    buf.clear();
                    return Ok(None);
                }
            }
        }
        if self.scanned > buf.len() {
            // The caller took bytes out of the buffer: scan it again from the start.
            self.scanned = 0;
        }
        // A frame and its NUL fit in the first MAX_MESSAGE_LEN + 1 bytes.
        let window = buf.len().min(MAX_MESSAGE_LEN + 1);
        let Some(len) = find_nul(&buf[..window], self.scanned) else {
            if window <= MAX_MESSAGE_LEN {
                self.scanned = window;
                return Ok(None);
            }
            return Err(self.oversized(buf));
        };
        self.scanned = 0;
        let frame = &buf[..len];
        let kind = if len == 0 {
            FrameErrorKind::Empty
        } else if frame.is_ascii() {
            return Ok(Some(len));
        } else {
            let offset = frame.iter().position(|&b| b > 127).unwrap_or_default();
            FrameErrorKind::NotAscii {
                offset,
                found: frame[offset],
            }
        };
        let raw = RawBytes(Bounded::new(frame));
        buf.advance(len + 1);
        Err(FrameError { kind, raw })
    }

    /// Call at the end of the stream, after [`Framer::next_frame`] returned `Ok(None)`: reports
    /// bytes left without their NUL (`Truncated`), empties `buf` and resets the framer. An
    /// oversized frame cut off by the end was reported already, and is not reported again.
    pub fn finish(&mut self, buf: &mut BytesMut) -> Option<FrameError> {
        let discarding = std::mem::take(&mut self.discarding);
        self.scanned = 0;
        let rest = Bounded::new(buf);
        let truncated = !buf.is_empty() && !discarding;
        buf.clear();
        truncated.then_some(FrameError {
            kind: FrameErrorKind::Truncated,
            raw: RawBytes(rest),
        })
    }

    /// Reports the first 127 bytes of a frame that has no NUL in its first 128, and drops the
    /// frame: up to its NUL if it is in the buffer, else all of it and whatever follows.
    fn oversized(&mut self, buf: &mut BytesMut) -> FrameError {
        let raw = RawBytes(Bounded::new(buf));
        self.scanned = 0;
        match find_nul(buf, MAX_MESSAGE_LEN + 1) {
            Some(nul) => buf.advance(nul + 1),
            None => {
                buf.clear();
                self.discarding = true;
            }
        }
        FrameError {
            kind: FrameErrorKind::Oversized,
            raw,
        }
    }
}

/// The offset of the first NUL in `bytes` at or after `from`, eight bytes at a time.
fn find_nul(bytes: &[u8], from: usize) -> Option<usize> {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    let rest = bytes.get(from..)?;
    let mut chunks = rest.chunks_exact(8);
    let mut offset = from;
    for chunk in &mut chunks {
        let mut word = [0; 8];
        word.copy_from_slice(chunk);
        let word = u64::from_ne_bytes(word);
        // Nonzero exactly when some byte of the word is zero.
        if word.wrapping_sub(ONES) & !word & HIGHS != 0 {
            return chunk.iter().position(|&b| b == 0).map(|i| offset + i);
        }
        offset += 8;
    }
    chunks
        .remainder()
        .iter()
        .position(|&b| b == 0)
        .map(|i| offset + i)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Escaping shows every byte unambiguously; quoted, a long run is cut and its length told.
    #[test]
    fn escaping_shows_what_is_not_printable() {
        assert_eq!(
            format!("{:#}", Escaped(b"C\"a\\b\x00\xff")),
            r#""C\"a\\b\x00\xff""#
        );
        assert_eq!(Escaped(b"C\"a\\b\x00").to_string(), r#"C"a\\b\x00"#);
        let long = format!("{:#}", Escaped(&[b'C'; 130]));
        assert!(long.ends_with("\"... (130 bytes)"), "{long}");
        assert_eq!(long.len(), 127 + 2 + "... (130 bytes)".len());
    }

    /// What one call of `next_frame` returned, in a form easy to compare.
    #[derive(Debug, PartialEq, Eq)]
    enum Out {
        Frame(Vec<u8>),
        Error(FrameErrorKind, Vec<u8>),
    }

    /// Feeds `chunks` one by one, draining the framer after each; then finishes.
    fn run(chunks: &[&[u8]]) -> (Vec<Out>, Vec<usize>) {
        let mut framer = Framer::new();
        let mut buf = BytesMut::new();
        let mut out = Vec::new();
        let mut left = Vec::new();
        for chunk in chunks {
            buf.extend_from_slice(chunk);
            loop {
                match framer.next_frame(&mut buf) {
                    Ok(Some(frame)) => out.push(Out::Frame(frame.as_bytes().to_vec())),
                    Ok(None) => break,
                    Err(e) => out.push(Out::Error(e.kind(), e.raw().as_bytes().to_vec())),
                }
            }
            left.push(buf.len());
        }
        if let Some(e) = framer.finish(&mut buf) {
            out.push(Out::Error(e.kind(), e.raw().as_bytes().to_vec()));
        }
        (out, left)
    }

    fn frame(bytes: &[u8]) -> Out {
        Out::Frame(bytes.to_vec())
    }

    /// Several frames in one read come out one by one, in order.
    #[test]
    fn several_frames_in_one_read() {
        let (out, left) = run(&[b"ATornado voor Windows 4.0        0\0M0012061100\0E00\0"]);
        assert_eq!(
            out,
            [
                frame(b"ATornado voor Windows 4.0        0"),
                frame(b"M0012061100"),
                frame(b"E00")
            ]
        );
        assert_eq!(left, [0]);
    }

    /// A frame split over many reads, one byte at a time, comes out once, when its NUL arrives.
    #[test]
    fn a_frame_split_over_many_reads() {
        let stream = b"M001205250422122320\0K1\0";
        let chunks: Vec<&[u8]> = stream.chunks(1).collect();
        let (out, left) = run(&chunks);
        assert_eq!(out, [frame(b"M001205250422122320"), frame(b"K1")]);
        assert_eq!(left[18], 19, "nothing is consumed before the NUL");
        assert_eq!(left[19], 0);
    }

    /// Scanning resumes where it stopped: an incomplete frame is not rescanned from its start.
    #[test]
    fn scanning_resumes_where_it_stopped() {
        let mut framer = Framer::new();
        let mut buf = BytesMut::from(&b"M00120611"[..]);
        assert_eq!(framer.next_frame(&mut buf), Ok(None));
        assert_eq!(framer.scanned, 9);
        buf.extend_from_slice(b"00\0");
        let frame = framer.next_frame(&mut buf).unwrap().unwrap();
        assert_eq!(frame.as_bytes(), b"M0012061100");
        assert_eq!(framer.scanned, 0);
    }

    /// A lone NUL is reported as an empty frame; the frames around it are intact.
    #[test]
    fn an_empty_frame_is_an_error_item() {
        let (out, _) = run(&[b"E00\0\0K1\0"]);
        assert_eq!(
            out,
            [
                frame(b"E00"),
                Out::Error(FrameErrorKind::Empty, vec![]),
                frame(b"K1")
            ]
        );
    }

    /// 127 bytes is the longest frame; 128 without a NUL is reported once, dropped up to the
    /// next NUL, and the framer resynchronises there.
    #[test]
    fn an_oversized_frame_is_reported_once_and_dropped() {
        let longest = [b"C".as_slice(), &[b'x'; 126]].concat();
        let (out, _) = run(&[&longest, b"\0"]);
        assert_eq!(out, [Out::Frame(longest.clone())]);

        let too_long = [b"C".as_slice(), &[b'x'; 127]].concat();
        let (out, _) = run(&[&too_long, b"\0K1\0"]);
        assert_eq!(
            out,
            [
                Out::Error(FrameErrorKind::Oversized, too_long[..127].to_vec()),
                frame(b"K1")
            ]
        );

        // A long run arriving in pieces: reported once, never buffered.
        let mut chunks: Vec<&[u8]> = vec![b"E00\0C"];
        chunks.extend(std::iter::repeat_n(&[b'y'; 100][..], 50));
        chunks.push(b"yy\0E01\0");
        let (out, left) = run(&chunks);
        assert_eq!(out.len(), 3);
        assert_eq!(out[0], frame(b"E00"));
        assert!(
            matches!(out[1], Out::Error(FrameErrorKind::Oversized, ref raw) if raw.len() == 127)
        );
        assert_eq!(out[2], frame(b"E01"));
        assert!(left.iter().all(|&n| n <= MAX_MESSAGE_LEN), "{left:?}");
    }

    /// A run without a NUL that is still going when the stream ends is reported once only.
    #[test]
    fn an_oversized_frame_cut_off_by_the_end_is_reported_once() {
        let (out, left) = run(&[&[b'x'; 300], &[b'x'; 300]]);
        assert_eq!(
            out,
            [Out::Error(FrameErrorKind::Oversized, vec![b'x'; 127])]
        );
        assert_eq!(left, [0, 0]);
    }

    /// A frame with a byte above 127 is an error carrying its bytes; the next frame is intact.
    #[test]
    fn a_frame_that_is_not_ascii_is_an_error() {
        let (out, _) = run(&[b"Cgoed gespeeld \xc3\xa9\0E00\0"]);
        assert_eq!(
            out,
            [
                Out::Error(
                    FrameErrorKind::NotAscii {
                        offset: 15,
                        found: 0xc3
                    },
                    b"Cgoed gespeeld \xc3\xa9".to_vec()
                ),
                frame(b"E00")
            ]
        );
    }

    /// Bytes left without a NUL at the end of the stream are reported as truncated.
    #[test]
    fn a_frame_cut_off_by_the_end_is_truncated() {
        let (out, _) = run(&[b"E00\0M00120611"]);
        assert_eq!(
            out,
            [
                frame(b"E00"),
                Out::Error(FrameErrorKind::Truncated, b"M00120611".to_vec())
            ]
        );
        let (out, _) = run(&[b"E00\0"]);
        assert_eq!(out, [frame(b"E00")]);
    }

    /// `next_message` decodes, and a frame that does not decode comes with its raw bytes.
    #[test]
    fn next_message_decodes_and_keeps_raw_bytes() {
        let mut framer = Framer::new();
        let mut buf = BytesMut::from(&b"E00\0E09\0\xff\0"[..]);
        let first = framer.next_message(&mut buf).unwrap().unwrap();
        assert_eq!(first.to_bytes(), b"E00");
        let second = framer.next_message(&mut buf).unwrap_err();
        assert_eq!(second.raw().as_bytes(), b"E09");
        assert_eq!(
            second.to_string(),
            "GAMEEND: byte 2: expected '0' or '1' for the stop code, found '9'"
        );
        let third = framer.next_message(&mut buf).unwrap_err();
        assert_eq!(third.to_string(), "frame byte 0: 0xff is not 7-bit ASCII");
        assert_eq!(third.raw().to_string(), "\\xff");
        assert_eq!(framer.next_message(&mut buf), Ok(None));
    }

    /// Raw bytes display escaped, so that a log line stays one line of ASCII.
    #[test]
    fn raw_bytes_display_escaped() {
        let raw = RawBytes(Bounded::new(b"C\\a\nb\x00\xe9"));
        assert_eq!(raw.to_string(), "C\\\\a\\x0ab\\x00\\xe9");
    }

    /// The word-at-a-time NUL search finds the first NUL wherever it stands.
    #[test]
    fn find_nul_finds_the_first_nul_anywhere() {
        for len in 0..40 {
            for nul in 0..len {
                let mut bytes = vec![0x80u8; len];
                bytes[nul] = 0;
                if nul + 3 < len {
                    bytes[nul + 3] = 0;
                }
                for from in 0..=nul {
                    assert_eq!(find_nul(&bytes, from), Some(nul), "{len} {nul} {from}");
                }
                assert_eq!(find_nul(&bytes, len + 1), None);
            }
            assert_eq!(find_nul(&vec![1; len], 0), None);
        }
    }

    /// A caller that empties the buffer between calls does not make the framer panic.
    #[test]
    fn a_buffer_emptied_by_the_caller_is_rescanned() {
        let mut framer = Framer::new();
        let mut buf = BytesMut::from(&b"M00120611"[..]);
        assert_eq!(framer.next_frame(&mut buf), Ok(None));
        buf.clear();
        buf.extend_from_slice(b"K1\0");
        assert_eq!(
            framer.next_frame(&mut buf).unwrap().unwrap().as_bytes(),
            b"K1"
        );
    }
}

//! The frames, or the lines, of a whole recorded stream (a capture of a TCP conversation, a
//! file, standard input, a program's output), each with its number and the byte offset where it
//! starts, for tools that show or check a stream after the fact and for line protocols.
//!
//! ```
//! use damx_wire::FrameReader;
//!
//! let stream: &[u8] = b"E00\0\0K1";
//! let frames: Vec<_> = FrameReader::new(stream).map(Result::unwrap).collect();
//! assert_eq!(frames.len(), 3);
//! assert_eq!(frames[0].item.as_ref().unwrap().as_bytes(), b"E00");
//! assert_eq!((frames[1].number, frames[1].offset), (2, 4)); // the empty frame
//! assert!(frames[2].item.is_err()); // the end came before K1's NUL
//! ```

use std::io::{self, BufRead, Read};

use bytes::BytesMut;

use crate::framer::{Frame, FrameError, FrameErrorKind, Framer};

/// One item of a stream and where it was.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Located<T> {
    /// Its number in the stream, from 1.
    pub number: usize,
    /// The offset of its first byte in the stream.
    pub offset: u64,
    /// The item.
    pub item: T,
}

/// Reads a byte stream to its end and yields every frame, or why the bytes are not one, in
/// the order of the stream ([`Framer`]'s rules: an empty frame, a non-ASCII one, one longer
/// than a message and bytes cut off by the end are errors, and reading goes on after them).
/// A read error ends the iteration after it is yielded.
#[derive(Debug)]
pub struct FrameReader<R> {
    reader: R,
    framer: Framer,
    buf: BytesMut,
    /// Bytes read so far: a frame's offset follows from it and what the buffer still holds.
    read: u64,
    number: usize,
    ended: bool,
}

impl<R: Read> FrameReader<R> {
    /// The frames of `reader`.
    pub fn new(reader: R) -> Self {
        Self {
            reader,
            framer: Framer::new(),
            buf: BytesMut::new(),
            read: 0,
            number: 0,
            ended: false,
        }
    }

    fn located(
        &mut self,
        offset: u64,
        item: Result<Frame, FrameError>,
    ) -> Located<Result<Frame, FrameError>> {
        self.number += 1;
        Located {
            number: self.number,
            offset,
            item,
        }
    }
}

#[allow(clippy::result_large_err)]
impl<R: Read> Iterator for FrameReader<R> {
    type Item = io::Result<Located<Result<Frame, FrameError>>>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut chunk = [0; 8192];
        while !self.ended {
            let start_of_buf = self.read - self.buf.len() as u64;
            let result = self.framer.next_frame(&mut self.buf);
            // A frame and its NUL end where the buffer now starts.
            let end = self.read - self.buf.len() as u64;
            let start = |len: usize| end - len as u64 - 1;
            match result {
                Ok(Some(frame)) => {
                    let offset = start(frame.as_bytes().len());
                    return Some(Ok(self.located(offset, Ok(frame))));
                }
                Err(error) => {
                    let offset = match error.kind() {
                        FrameErrorKind::Oversized => start_of_buf,
                        _ => start(error.raw().as_bytes().len()),
                    };
                    return Some(Ok(self.located(offset, Err(error))));
                }
                Ok(None) => {}
            }
            match self.reader.read(&mut chunk) {
                Ok(0) => {
                    self.ended = true;
                    let error = self.framer.finish(&mut self.buf)?;
                    return Some(Ok(self.located(start_of_buf, Err(error))));
                }
                Ok(n) => {
                    self.read += n as u64;
                    self.buf.extend_from_slice(&chunk[..n]);
                }
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                Err(error) => {
                    self.ended = true;
                    return Some(Err(error));
                }
            }
        }
        None
    }
}

/// One line of a [`LineReader`]: its bytes, or the length of a line too long to keep.
pub type Line<'a> = Located<Result<&'a [u8], usize>>;

/// Reads a byte stream a line at a time: each line without its `\n` or `\r\n`, numbered from 1
/// with the offset where it starts. A line longer than the bound comes as `Err(its length)`
/// and is skipped without being held in memory; the next line is read as usual. A last line
/// without a line end counts; an empty stream has no line.
///
/// ```
/// use damx_wire::LineReader;
///
/// let mut lines = LineReader::new(&b"E00\r\nCCCCCCCC\nK1"[..], 4);
/// let first = lines.next_line()?.unwrap();
/// assert_eq!((first.number, first.offset, first.item), (1, 0, Ok(&b"E00"[..])));
/// assert_eq!(lines.next_line()?.unwrap().item, Err(8));
/// assert_eq!(lines.next_line()?.unwrap().item, Ok(&b"K1"[..]));
/// assert!(lines.next_line()?.is_none());
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug)]
pub struct LineReader<R> {
    reader: R,
    max_len: usize,
    line: Vec<u8>,
    number: usize,
    read: u64,
}

impl<R: BufRead> LineReader<R> {
    /// The lines of `reader`, each kept up to `max_len` bytes.
    pub fn new(reader: R, max_len: usize) -> Self {
        Self {
            reader,
            max_len,
            line: Vec::new(),
            number: 0,
            read: 0,
        }
    }

    /// The next line (`Err(its length)` past the bound), or `None` at the end of the stream.
    ///
    /// # Errors
    /// A failed read (an interrupted one is retried).
    pub fn next_line(&mut self) -> io::Result<Option<Line<'_>>> {
        self.line.clear();
        let offset = self.read;
        let mut length = 0;
        let mut ended = false;
        while !ended {
            let buffer = match self.reader.fill_buf() {
                Ok([]) if length == 0 && self.read == offset => return Ok(None),
                Ok([]) => break,
                Ok(buffer) => buffer,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            let chunk = match buffer.iter().position(|&b| b == b'\n') {
                Some(at) => {
                    ended = true;
                    &buffer[..at]
                }
                None => buffer,
            };
            let room = self.max_len.saturating_sub(self.line.len());
            self.line.extend_from_slice(&chunk[..chunk.len().min(room)]);
            length += chunk.len();
            let used = chunk.len() + usize::from(ended);
            self.reader.consume(used);
            self.read += used as u64;
        }
        self.number += 1;
        if length > self.max_len {
            return Ok(Some(self.located(offset, Err(length))));
        }
        if self.line.last() == Some(&b'\r') {
            self.line.pop();
        }
        Ok(Some(Located {
            number: self.number,
            offset,
            item: Ok(&self.line),
        }))
    }

    fn located<T>(&self, offset: u64, item: T) -> Located<T> {
        Located {
            number: self.number,
            offset,
            item,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that gives at most `step` bytes a call, to cut frames across reads.
    struct Trickle<'a> {
        bytes: &'a [u8],
        step: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            let n = self.step.min(self.bytes.len()).min(out.len());
            out[..n].copy_from_slice(&self.bytes[..n]);
            self.bytes = &self.bytes[n..];
            Ok(n)
        }
    }

    /// Frames merged as in one read, an empty frame, a non-ASCII one, one too long and a cut-off
    /// end come out numbered and at their offsets, however the reads cut the stream.
    #[test]
    fn frames_come_with_their_numbers_and_offsets() {
        let mut stream = b"E00\0K1\0\0M0012061100\0\xffab\0".to_vec();
        stream.extend_from_slice(&[b'C'; 200]);
        stream.extend_from_slice(b"\0CHello");
        let expected: [(u64, Option<FrameErrorKind>, &[u8]); 7] = [
            (0, None, b"E00"),
            (4, None, b"K1"),
            (7, Some(FrameErrorKind::Empty), b""),
            (8, None, b"M0012061100"),
            (
                20,
                Some(FrameErrorKind::NotAscii {
                    offset: 0,
                    found: 0xff,
                }),
                b"\xffab",
            ),
            (24, Some(FrameErrorKind::Oversized), &[b'C'; 127]),
            (225, Some(FrameErrorKind::Truncated), b"CHello"),
        ];
        for step in [1, 3, 8192] {
            let reader = FrameReader::new(Trickle {
                bytes: &stream,
                step,
            });
            let frames: Vec<_> = reader.map(Result::unwrap).collect();
            assert_eq!(frames.len(), expected.len(), "step {step}");
            for (number, (frame, (offset, kind, bytes))) in frames.iter().zip(expected).enumerate()
            {
                assert_eq!(
                    (frame.number, frame.offset),
                    (number + 1, offset),
                    "step {step}"
                );
                match &frame.item {
                    Ok(frame) => assert_eq!((None, frame.as_bytes()), (kind, bytes)),
                    Err(error) => {
                        assert_eq!((Some(error.kind()), error.raw().as_bytes()), (kind, bytes));
                    }
                }
            }
        }
    }

    fn all_lines(text: &[u8], max_len: usize) -> Vec<(usize, u64, Result<Vec<u8>, usize>)> {
        let mut lines = LineReader::new(io::BufReader::with_capacity(4, text), max_len);
        let mut out = Vec::new();
        while let Some(line) = lines.next_line().unwrap() {
            out.push((line.number, line.offset, line.item.map(<[u8]>::to_vec)));
        }
        out
    }

    /// Lines come without `\n` or `\r\n`, numbered and at their offsets, across buffer
    /// boundaries, and a last line without a line end counts.
    #[test]
    fn lines_are_split_and_numbered() {
        let lines = all_lines(b"E00\r\nM0012061100\n\nK1", 64);
        assert_eq!(
            lines,
            [
                (1, 0, Ok(b"E00".to_vec())),
                (2, 5, Ok(b"M0012061100".to_vec())),
                (3, 17, Ok(Vec::new())),
                (4, 18, Ok(b"K1".to_vec())),
            ]
        );
        assert!(all_lines(b"", 64).is_empty());
        assert_eq!(all_lines(b"\n", 64), [(1, 0, Ok(Vec::new()))]);
    }

    /// A line past the bound is reported by its length and does not disturb the next one.
    #[test]
    fn an_overlong_line_is_reported_not_kept() {
        let max = 64 * 1024;
        let mut text = vec![b'C'; max + 10];
        text.extend_from_slice(b"\nE00\n");
        let lines = all_lines(&text, max);
        assert_eq!(
            lines,
            [
                (1, 0, Err(max + 10)),
                (2, max as u64 + 11, Ok(b"E00".to_vec()))
            ]
        );
        // Exactly at the bound is still a line.
        assert_eq!(all_lines(b"CCCC", 4), [(1, 0, Ok(b"CCCC".to_vec()))]);
    }

    /// A failing read is yielded once and ends the frames.
    #[test]
    fn a_read_error_ends_the_stream() {
        struct Broken;
        impl Read for Broken {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                Err(io::Error::other("gone"))
            }
        }
        let mut reader = FrameReader::new(Broken);
        assert!(matches!(reader.next(), Some(Err(_))));
        assert!(reader.next().is_none());
    }
}

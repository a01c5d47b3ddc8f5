//! The frames of a whole recorded stream (a capture of a TCP conversation, a file, standard
//! input), each with its number and the byte offset where it starts, for tools that show or
//! check a stream after the fact.
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

use std::io::{self, Read};

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

//! Where a command's items come from (arguments, standard input or a file), read one line at
//! a time with a bound on the length, and how an item is named in a message; a position
//! argument.

use std::ffi::OsString;
use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader, IsTerminal, Read};
use std::path::PathBuf;

use damx_rules::Position;

use crate::error::Error;
use crate::log::note;

/// Lines longer than this are reported as too long instead of being kept in memory: a DXP
/// message is at most 127 bytes and its JSON at most a few hundred.
pub(crate) const MAX_LINE_LEN: usize = 64 * 1024;

/// One item: its bytes, or the length of a line too long to keep.
pub(crate) type Item<'a> = Result<&'a [u8], usize>;

/// Where the items come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Source {
    /// Each command-line argument is one item.
    Arguments(Vec<OsString>),
    /// Standard input.
    Stdin,
    /// A file.
    File(PathBuf),
}

impl Source {
    /// Items from `arguments` if there are any, else from `file` (`-` is standard input), else
    /// from standard input.
    pub(crate) fn choose(arguments: Vec<OsString>, file: Option<PathBuf>) -> Source {
        match file {
            _ if !arguments.is_empty() => Source::Arguments(arguments),
            Some(path) if path.as_os_str() != "-" => Source::File(path),
            _ => Source::Stdin,
        }
    }

    /// Opens a stream source for reading (arguments are not a stream: `None`).
    pub(crate) fn open(&self) -> Result<Option<Box<dyn BufRead>>, Error> {
        Ok(match self {
            Source::Arguments(_) => None,
            Source::Stdin => {
                if io::stdin().is_terminal() {
                    note!("reading standard input from the terminal; end it with Ctrl-D");
                }
                Some(Box::new(io::stdin().lock()))
            }
            Source::File(path) => {
                let file = File::open(path).map_err(|e| Error::file("open", path, e))?;
                Some(Box::new(BufReader::new(file)))
            }
        })
    }

    /// The error for a failed read from this source.
    pub(crate) fn read_error(&self, source: io::Error) -> Error {
        match self {
            Source::File(path) => Error::file("read", path, source),
            _ => Error::stdin(source),
        }
    }

    /// Calls `each` with every item (an argument or a line, without its line end) and where it
    /// came from. Lines longer than [`MAX_LINE_LEN`] come as `Err(length)`. Empty lines are
    /// skipped; empty arguments are not (an argument is always meant).
    pub(crate) fn for_each_item(
        &self,
        mut each: impl FnMut(Origin, Item<'_>) -> Result<(), Error>,
    ) -> Result<(), Error> {
        if let Source::Arguments(arguments) = self {
            for (index, argument) in arguments.iter().enumerate() {
                let bytes = argument.as_encoded_bytes();
                each(Origin::Argument(index + 1), Ok(bytes))?;
            }
            return Ok(());
        }
        let Some(reader) = self.open()? else {
            return Ok(());
        };
        let mut lines = Lines::new(reader);
        while let Some((number, line)) = lines.next_line().map_err(|e| self.read_error(e))? {
            match line {
                Ok([]) => {}
                Ok(bytes) => each(Origin::Line(number), Ok(bytes))?,
                Err(length) => each(Origin::Line(number), Err(length))?,
            }
        }
        Ok(())
    }
}

/// Where an item came from, as a message names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Origin {
    /// The n-th message argument (1-based).
    Argument(usize),
    /// Line n (1-based) of standard input or the file.
    Line(usize),
    /// The n-th frame (1-based) of a NUL-framed stream, starting at this byte offset.
    Frame {
        /// The frame number.
        number: usize,
        /// Where it starts in the stream.
        offset: u64,
    },
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Argument(n) => write!(f, "argument {n}"),
            Origin::Line(n) => write!(f, "line {n}"),
            Origin::Frame { number, offset } => write!(f, "frame {number} (byte {offset})"),
        }
    }
}

/// Lines of a byte stream, each at most [`MAX_LINE_LEN`] bytes kept, without `\n` or `\r\n`.
pub(crate) struct Lines<R> {
    reader: R,
    line: Vec<u8>,
    number: usize,
}

impl<R: BufRead> Lines<R> {
    /// Lines of `reader`.
    pub(crate) fn new(reader: R) -> Lines<R> {
        Lines {
            reader,
            line: Vec::new(),
            number: 0,
        }
    }

    /// The next line and its number (1-based); a line longer than the bound as `Err(its
    /// length)`, skipped without being held in memory. `None` at the end of the stream.
    pub(crate) fn next_line(&mut self) -> io::Result<Option<(usize, Item<'_>)>> {
        self.line.clear();
        let mut length = 0;
        let mut anything = false;
        loop {
            let buffer = match self.reader.fill_buf() {
                Ok(buffer) => buffer,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if buffer.is_empty() {
                if !anything {
                    return Ok(None);
                }
                break;
            }
            anything = true;
            let (chunk, ends_line) = match buffer.iter().position(|&b| b == b'\n') {
                Some(at) => (&buffer[..at], true),
                None => (buffer, false),
            };
            let room = MAX_LINE_LEN.saturating_sub(self.line.len());
            self.line.extend_from_slice(&chunk[..chunk.len().min(room)]);
            length += chunk.len();
            let used = chunk.len() + usize::from(ends_line);
            self.reader.consume(used);
            if ends_line {
                break;
            }
        }
        self.number += 1;
        if length > MAX_LINE_LEN {
            return Ok(Some((self.number, Err(length))));
        }
        if self.line.last() == Some(&b'\r') {
            self.line.pop();
        }
        Ok(Some((self.number, Ok(&self.line))))
    }
}

/// A position argument: `startpos` or a FEN.
pub(crate) fn parse_position(text: &str) -> Result<Position, String> {
    if text.trim().eq_ignore_ascii_case("startpos") {
        return Ok(Position::initial());
    }
    Position::from_fen(text).map_err(|e| e.to_string())
}

/// Reads the whole of `source` as text (a PDN file), with the error naming it.
pub(crate) fn read_text(path: &std::path::Path) -> Result<String, Error> {
    let mut text = String::new();
    if path.as_os_str() == "-" {
        io::stdin()
            .read_to_string(&mut text)
            .map_err(Error::stdin)?;
    } else {
        File::open(path)
            .and_then(|mut file| file.read_to_string(&mut text))
            .map_err(|e| Error::file("read", path, e))?;
    }
    Ok(text)
}

/// Bytes as a quoted string for a message: printable ASCII as it is, `"` and `\` escaped,
/// anything else as `\xNN`; cut after 127 bytes (the longest DXP message) with `...`.
pub(crate) struct Quoted<'a>(pub(crate) &'a [u8]);

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const SHOWN: usize = 127;
        f.write_str("\"")?;
        for &byte in self.0.iter().take(SHOWN) {
            match byte {
                b'"' => f.write_str("\\\"")?,
                b'\\' => f.write_str("\\\\")?,
                0x20..=0x7e => fmt::Write::write_char(f, char::from(byte))?,
                _ => write!(f, "\\x{byte:02x}")?,
            }
        }
        f.write_str("\"")?;
        if self.0.len() > SHOWN {
            write!(f, "... ({} bytes)", self.0.len())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_lines(text: &[u8]) -> Vec<(usize, Result<Vec<u8>, usize>)> {
        let mut lines = Lines::new(BufReader::with_capacity(4, text));
        let mut out = Vec::new();
        while let Some((n, line)) = lines.next_line().unwrap() {
            out.push((n, line.map(<[u8]>::to_vec)));
        }
        out
    }

    /// Lines come without `\n` or `\r\n`, numbered, across buffer boundaries, and a last line
    /// without a newline counts.
    #[test]
    fn lines_are_split_and_numbered() {
        let lines = all_lines(b"E00\r\nM0012061100\n\nK1");
        assert_eq!(
            lines,
            [
                (1, Ok(b"E00".to_vec())),
                (2, Ok(b"M0012061100".to_vec())),
                (3, Ok(Vec::new())),
                (4, Ok(b"K1".to_vec())),
            ]
        );
        assert!(all_lines(b"").is_empty());
    }

    /// A line past the bound is reported by length and does not disturb the next one.
    #[test]
    fn an_overlong_line_is_reported_not_kept() {
        let mut text = vec![b'C'; MAX_LINE_LEN + 10];
        text.extend_from_slice(b"\nE00\n");
        let lines = all_lines(&text);
        assert_eq!(
            lines,
            [(1, Err(MAX_LINE_LEN + 10)), (2, Ok(b"E00".to_vec()))]
        );
    }

    /// Quoting shows every byte unambiguously.
    #[test]
    fn quoting_escapes_what_is_not_printable() {
        assert_eq!(
            Quoted(b"C\"a\\b\x00\xff").to_string(),
            r#""C\"a\\b\x00\xff""#
        );
        let long = Quoted(&[b'C'; 130]).to_string();
        assert!(long.ends_with("\"... (130 bytes)"), "{long}");
    }

    /// Arguments win over a file, and `-` names standard input.
    #[test]
    fn the_source_is_chosen_from_the_arguments() {
        let args = vec![OsString::from("E00")];
        assert_eq!(
            Source::choose(args.clone(), Some("x".into())),
            Source::Arguments(args)
        );
        assert_eq!(
            Source::choose(Vec::new(), Some("x".into())),
            Source::File("x".into())
        );
        assert_eq!(Source::choose(Vec::new(), Some("-".into())), Source::Stdin);
        assert_eq!(Source::choose(Vec::new(), None), Source::Stdin);
    }
}

//! Where a command's items come from (arguments, standard input or a file, read one line at
//! a time by damx-wire's [`LineReader`] with a bound on the length), and how an item is named
//! in a message.

use std::ffi::OsString;
use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader, IsTerminal, Read};
use std::path::PathBuf;

use damx_rules::pdn;
use damx_wire::LineReader;

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
        let mut lines = LineReader::new(reader, MAX_LINE_LEN);
        while let Some(line) = lines.next_line().map_err(|e| self.read_error(e))? {
            if line.item != Ok(&[]) {
                each(Origin::Line(line.number), line.item)?;
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

/// Reads the whole of a file (`-`: standard input) as text (a PDN file, UTF-8 or Latin-1, up
/// to [`pdn::MAX_TEXT_BYTES`]), with the error naming it.
pub(crate) fn read_text(path: &std::path::Path) -> Result<String, Error> {
    if path.as_os_str() == "-" {
        pdn::read_text(io::stdin().lock()).map_err(Error::stdin)
    } else {
        File::open(path)
            .and_then(pdn::read_text)
            .map_err(|e| Error::file("read", path, e))
    }
}

/// Reads the whole of a short UTF-8 text file (a list of engines) of at most `limit` bytes:
/// a longer one, or a device that never ends, is refused instead of filling the memory.
pub(crate) fn read_short_text(path: &std::path::Path, limit: u64) -> Result<String, Error> {
    let read = || -> io::Result<String> {
        let mut bytes = Vec::new();
        File::open(path)?
            .take(limit.saturating_add(1))
            .read_to_end(&mut bytes)?;
        if bytes.len() as u64 > limit {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("longer than {limit} bytes"),
            ));
        }
        String::from_utf8(bytes)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "not UTF-8 text"))
    };
    read().map_err(|e| Error::file("read", path, e))
}

#[cfg(test)]
mod tests {
    use super::*;

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

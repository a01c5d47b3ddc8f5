//! The one error type of the binary, and the exit code each kind of failure maps to: the
//! table `damx --help` shows (`EXIT_CODES` in [`crate::args`]), one constant a code here, and
//! after a signal 128 plus its number ([`damx_session::interrupt::exit_code`]).
//!
//! A closed standard output (`damx decode ... | head -1`) is not a failure: the command stops
//! quietly with code 0, as ripgrep does.

use std::fmt;
use std::io;
use std::path::Path;
use std::process::ExitCode;

use damx_session::SessionError;
use damx_session::config::RecordsError;
use damx_session::render::describe_io;
use damx_session::tournament::LoadOpeningsError;

/// Exit code for invalid input data.
pub(crate) const EXIT_INVALID: u8 = 1;
/// Exit code for a wrong command line; clap uses it too for the errors it finds itself.
pub(crate) const EXIT_USAGE: u8 = 2;
/// Exit code for an I/O failure.
pub(crate) const EXIT_IO: u8 = 3;
/// Exit code for a peer that broke the protocol or a connection lost during a game.
pub(crate) const EXIT_PEER: u8 = 4;
/// Exit code for a connection that could not be made.
pub(crate) const EXIT_NETWORK: u8 = 5;

/// Why a command failed.
#[derive(Debug)]
pub(crate) enum Error {
    /// Some of the input was invalid. The individual problems were reported as they were
    /// found; this is the summary (`2 of 7 lines could not be decoded`).
    Invalid(String),
    /// The arguments parse but do not fit the input (`--game 3` of a file with two games).
    Usage(String),
    /// Reading or writing failed.
    Io {
        /// What was being done: `cannot read game.pdn`.
        context: String,
        /// The cause.
        source: io::Error,
    },
    /// The other DXP program misbehaved, or the connection broke during a game.
    Peer(String),
    /// Listening or connecting failed.
    Network {
        /// What was being done: `cannot connect to 127.0.0.1:27531`.
        context: String,
        /// The cause.
        source: io::Error,
    },
    /// Ctrl-C, SIGTERM or SIGHUP ended the command (after ending the game properly).
    Interrupted,
}

impl Error {
    /// A failure to read or write `path`.
    pub(crate) fn file(verb: &str, path: &Path, source: io::Error) -> Error {
        Error::Io {
            context: format!("cannot {verb} {}", path.display()),
            source,
        }
    }

    /// A failure to read standard input.
    pub(crate) fn stdin(source: io::Error) -> Error {
        Error::Io {
            context: "cannot read standard input".to_owned(),
            source,
        }
    }

    /// A failure to write standard output.
    pub(crate) fn stdout(source: io::Error) -> Error {
        Error::Io {
            context: "cannot write standard output".to_owned(),
            source,
        }
    }

    /// Game records that could not be saved, `context` saying how many (each failure was
    /// reported as it happened).
    pub(crate) fn records(context: String) -> Error {
        Error::Io {
            context,
            source: io::Error::other("write failed"),
        }
    }

    /// True for a write to a standard output whose reader has gone away.
    fn is_broken_pipe(&self) -> bool {
        matches!(self, Error::Io { source, .. } if source.kind() == io::ErrorKind::BrokenPipe)
    }

    /// Prints the error (unless it is a broken pipe) and gives the process exit code.
    pub(crate) fn report(&self) -> ExitCode {
        if self.is_broken_pipe() {
            return ExitCode::SUCCESS;
        }
        crate::log::line(format_args!("damx: {self}"));
        ExitCode::from(match self {
            Error::Invalid(_) => EXIT_INVALID,
            Error::Usage(_) => EXIT_USAGE,
            Error::Io { .. } => EXIT_IO,
            Error::Peer(_) => EXIT_PEER,
            Error::Network { .. } => EXIT_NETWORK,
            Error::Interrupted => damx_session::interrupt::exit_code(),
        })
    }
}

/// A session that could not start: the library's words, with the exit code of a file (the
/// transcript) or of the network.
impl From<SessionError> for Error {
    fn from(error: SessionError) -> Error {
        let context = error.to_string();
        match error {
            SessionError::Transcript { source, .. } => Error::Io { context, source },
            SessionError::Connect { source, .. }
            | SessionError::Listen { source, .. }
            | SessionError::Connection(source) => Error::Network { context, source },
        }
    }
}

/// PDN records that cannot be written ([`RecordOptions::check`](damx_session::RecordOptions::check)).
impl From<RecordsError> for Error {
    fn from(error: RecordsError) -> Error {
        Error::file(error.action, &error.path, error.source)
    }
}

impl From<LoadOpeningsError> for Error {
    fn from(error: LoadOpeningsError) -> Error {
        match error {
            LoadOpeningsError::Read { path, source } => Error::file("read", &path, source),
            invalid @ LoadOpeningsError::Invalid { .. } => Error::Invalid(invalid.to_string()),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Invalid(summary) | Error::Usage(summary) | Error::Peer(summary) => {
                f.write_str(summary)
            }
            Error::Io { context, source } | Error::Network { context, source } => {
                write!(f, "{context}: {}", describe_io(source))
            }
            Error::Interrupted => {
                write!(f, "interrupted by {}", damx_session::interrupt::name())
            }
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } | Error::Network { source, .. } => Some(source),
            Error::Invalid(_) | Error::Usage(_) | Error::Peer(_) | Error::Interrupted => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A failure names what was being done, and its cause in lower case.
    #[test]
    fn io_errors_read_as_lower_case_phrases() {
        let error = Error::file(
            "read",
            Path::new("game.pdn"),
            io::Error::from_raw_os_error(2),
        );
        assert_eq!(
            error.to_string(),
            "cannot read game.pdn: no such file or directory"
        );
    }

    /// A closed pipe on standard output ends the command quietly with success.
    #[test]
    fn a_broken_pipe_is_not_reported() {
        let error = Error::stdout(io::Error::from(io::ErrorKind::BrokenPipe));
        assert!(error.is_broken_pipe());
        assert!(!Error::Invalid("x".into()).is_broken_pipe());
    }
}

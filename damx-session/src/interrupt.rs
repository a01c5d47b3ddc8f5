//! The signals that interrupt a program running sessions, and what each one does to them:
//! Ctrl-C (SIGINT), SIGTERM (`kill`, a service manager or a container stopping) and SIGHUP
//! (the terminal closed).
//!
//! The first signal asks what runs to stop properly ([`Command::Stop`]: a running game ends
//! with a GAMEEND with stop code `1` on our turn, its record is saved, the connection
//! closes), the second aborts it ([`Command::Abort`]: the connection closes at once), a
//! third ends the process at once, and the programs it started with it. The program should
//! then exit with [`exit_code`], the conventional code of the first signal (128 plus its
//! number: 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP), as a shell reports a process
//! ended by it, so that a script or a service manager can tell an interrupted series from a
//! finished one.
//!
//! Nothing happens until a program calls [`route`], which it may call again as what runs
//! changes (a wait for a connection, then a game); the library prints nothing, the route is
//! handed each command and may tell the person.

use std::io;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicI32, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError};

use crate::Command;

/// SIGINT's number, the signal of Ctrl-C (the same on every Unix; what Windows' Ctrl-C counts as).
const SIGINT: i32 = 2;
/// SIGHUP's number.
const SIGHUP: i32 = 1;
/// SIGTERM's number.
const SIGTERM: i32 = 15;

/// How many signals have come.
static COUNT: AtomicUsize = AtomicUsize::new(0);

/// The first signal that came; 0 before any.
static FIRST: AtomicI32 = AtomicI32::new(0);

/// Where the commands go.
type Route = Box<dyn Fn(Command) + Send>;

static ROUTE: Mutex<Option<Route>> = Mutex::new(None);

/// Sends the interrupting signals to `to` from now on, in place of any earlier route:
/// [`Command::Stop`] for the first, [`Command::Abort`] for the second; the third ends the
/// process with [`exit_code`]. The signal handler is installed at the first call; an error
/// says it could not be (the signals then keep their default action).
pub fn route(to: impl Fn(Command) + Send + 'static) -> io::Result<()> {
    *ROUTE.lock().unwrap_or_else(PoisonError::into_inner) = Some(Box::new(to));
    static INSTALLED: OnceLock<Result<(), String>> = OnceLock::new();
    INSTALLED
        .get_or_init(|| install().map_err(|error| error.to_string()))
        .clone()
        .map_err(io::Error::other)
}

/// Waits until the route has finished with a signal it is handling, then drops it, so that no
/// later signal reaches it. A program calls this before it exits: the route runs on the
/// handler's thread, and what it tells the person after stopping the session (which lets the
/// program end) would otherwise be cut off by the exit.
pub fn settle() {
    ROUTE.lock().unwrap_or_else(PoisonError::into_inner).take();
}

/// Hands SIGINT, SIGTERM and SIGHUP to [`signalled`] on a thread of their own.
#[cfg(unix)]
fn install() -> io::Result<()> {
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])?;
    std::thread::Builder::new()
        .name("signals".to_owned())
        .spawn(move || {
            for signal in signals.forever() {
                signalled(signal);
            }
        })
        .map(drop)
}

/// Hands Ctrl-C to [`signalled`].
#[cfg(not(unix))]
fn install() -> io::Result<()> {
    ctrlc::set_handler(|| signalled(SIGINT)).map_err(io::Error::other)
}

/// Whether a signal has come.
pub fn interrupted() -> bool {
    COUNT.load(Ordering::SeqCst) > 0
}

/// The exit code of an interrupted program: 128 plus the number of the first signal (130,
/// Ctrl-C's, before any).
pub fn exit_code() -> u8 {
    let signal = match FIRST.load(Ordering::SeqCst) {
        0 => SIGINT,
        signal => signal,
    };
    // At most 255: the conversion cannot fail.
    u8::try_from(128 + signal.clamp(1, 127)).unwrap_or(u8::MAX)
}

/// The first signal, in words: `Ctrl-C` (also before any), `SIGTERM`, `SIGHUP`.
pub fn name() -> &'static str {
    match FIRST.load(Ordering::SeqCst) {
        SIGHUP => "SIGHUP",
        SIGTERM => "SIGTERM",
        0 | SIGINT => "Ctrl-C",
        _ => "a signal",
    }
}

/// The signal `signal` has come (on the handler's own thread).
fn signalled(signal: i32) {
    let _ = FIRST.compare_exchange(0, signal, Ordering::SeqCst, Ordering::SeqCst);
    let command = match COUNT.fetch_add(1, Ordering::SeqCst) {
        0 => Command::Stop,
        1 => Command::Abort,
        _ => {
            // The programs this process started run in groups of their own, which the
            // terminal's signal does not reach: they end with it.
            crate::process::kill_all();
            std::process::exit(i32::from(exit_code()))
        }
    };
    // A route that panicked once must not silence the signals after it: the lock is taken
    // even if poisoned, and a panic stays on this side of the handler's thread.
    let slot = ROUTE.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(route) = slot.as_ref() {
        let _ = std::panic::catch_unwind(AssertUnwindSafe(|| route(command)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// The first signal stops what runs and the second aborts it; the first one names the
    /// exit code and the words, whatever comes after it. (No real signal is sent: the
    /// binary's tests send them.)
    #[test]
    fn the_first_signal_stops_the_second_aborts() {
        let commands = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&commands);
        // The route alone, without installing a handler in the test process.
        *ROUTE.lock().unwrap() = Some(Box::new(move |command| seen.lock().unwrap().push(command)));
        assert!(!interrupted());
        assert_eq!((exit_code(), name()), (130, "Ctrl-C"));
        signalled(SIGTERM);
        assert!(interrupted());
        signalled(SIGINT);
        assert_eq!(*commands.lock().unwrap(), [Command::Stop, Command::Abort]);
        assert_eq!((exit_code(), name()), (143, "SIGTERM"));
    }
}

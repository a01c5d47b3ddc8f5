//! What the session commands share: a session run on a thread of its own while its events are
//! shown ([`drive`]), Ctrl-C, and the exit code a session earns.
//!
//! # Ctrl-C, SIGTERM and SIGHUP
//!
//! A session command routes Ctrl-C (SIGINT), and as well SIGTERM (`kill`, `systemctl stop`,
//! a container stopping) and SIGHUP (the terminal closed), to its session with
//! [`on_interrupt`]: the first
//! one asks the session to stop ([`Command::Stop`]: the running game ends with a GAMEEND with
//! stop code `1` on our turn, its record is saved, and the connection closes), the second one
//! aborts it ([`Command::Abort`]: the connection closes at once, the game is recorded as
//! aborted), a third one ends the process at once. Either way the command exits with the
//! conventional code of the first signal, 128 plus its number ([`interrupt_exit_code`]: 130
//! for SIGINT, 143 for SIGTERM, 129 for SIGHUP), as a shell reports a process ended by it,
//! so that a script or a service manager can tell an interrupted series from a finished one.
//!
//! [`verdict`] turns the sessions' reports into the command's result, with the exit codes of
//! `damx --help`.

use std::io::{self, Write};
use std::sync::atomic::{AtomicI32, AtomicUsize, Ordering};
use std::sync::{Mutex, Once};
use std::thread;

use crossbeam_channel::{Receiver, Sender, unbounded};
use damx_session::hub::{HubPlayerOptions, local_player};
use damx_session::render::{Line, RenderOptions, Renderer};
use damx_session::{
    Command, Control, Endpoint, EnginePlayerOptions, Outcome, SessionConfig, SessionError,
    SessionReport,
};

use crate::error::Error;
use crate::log::{debug, note};

/// Our side of the sessions of `follow` and `initiate`.
#[derive(Debug)]
pub(crate) struct Side {
    /// Listen for connections or connect.
    pub(crate) peer: Endpoint,
    /// Each session's configuration.
    pub(crate) session: SessionConfig,
    /// The engine.
    pub(crate) player: EnginePlayerOptions,
    /// A Hub engine program that plays instead of the engine.
    pub(crate) hub: Option<HubPlayerOptions>,
    /// How to show the sessions.
    pub(crate) show: RenderOptions,
}

impl Side {
    /// Plays one session towards the peer as `session` says, showing its events.
    pub(crate) fn play(
        &self,
        session: &SessionConfig,
        out: &mut dyn Write,
    ) -> Result<SessionReport, Error> {
        let player = local_player(&self.player, self.hub.as_ref());
        let mut renderer = Renderer::new(self.show.clone());
        drive(
            |commands, events| damx_session::run(&self.peer, session, player, commands, events),
            |event| renderer.event(None, event),
            out,
        )
    }
}

/// Runs a session, or a server's sessions, on a thread of its own (`session` gets the command
/// and event channels), with Ctrl-C routed to it, and writes the lines `render` makes of each
/// event until it is over. If the output fails, the games end properly and the command quits.
pub(crate) fn drive<E, T, F>(
    session: F,
    mut render: impl FnMut(&E) -> Vec<Line>,
    out: &mut dyn Write,
) -> Result<T, Error>
where
    E: Send,
    T: Send,
    F: FnOnce(Receiver<Command>, Sender<E>) -> Result<T, SessionError> + Send,
{
    let show = |events: Receiver<E>, control: Control| {
        let mut written = Ok(());
        for event in events {
            if written.is_ok() {
                written = crate::cmd::write_lines(render(&event), out);
                if written.is_err() {
                    control.stop();
                }
            }
        }
        written
    };
    drive_with(session, show)
}

/// [`drive`], with `show` taking the events until they end (and the session's control, to stop
/// it when nothing can be shown any more) on this thread.
pub(crate) fn drive_with<E, T, F>(
    session: F,
    show: impl FnOnce(Receiver<E>, Control) -> io::Result<()>,
) -> Result<T, Error>
where
    E: Send,
    T: Send,
    F: FnOnce(Receiver<Command>, Sender<E>) -> Result<T, SessionError> + Send,
{
    let (control, commands) = Control::new();
    let route = control.clone();
    on_interrupt(ENDS_THE_GAME, move |command| {
        route.send(command);
    });
    let (events_tx, events) = unbounded::<E>();
    let (shown, report) = thread::scope(|scope| {
        let running = scope.spawn(move || session(commands, events_tx));
        let shown = show(events, control);
        let report = running.join();
        (
            shown,
            report.unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
        )
    });
    shown.map_err(Error::stdout)?;
    Ok(report?)
}

/// How many times Ctrl-C was pressed.
static INTERRUPTS: AtomicUsize = AtomicUsize::new(0);

/// What Ctrl-C does: what the first one says it does (on standard error), and where the
/// commands go (the running session, server or series).
type Route = (&'static str, Box<dyn Fn(Command) + Send>);

static ROUTE: Mutex<Option<Route>> = Mutex::new(None);

/// What the first Ctrl-C does in a session.
const ENDS_THE_GAME: &str = "a running game ends on our turn and is saved";

/// Sends Ctrl-C to `route` from now on: [`Command::Stop`] the first time, [`Command::Abort`]
/// the second; the third ends the process. The first one tells the person `first`, what it does.
pub(crate) fn on_interrupt(first: &'static str, route: impl Fn(Command) + Send + 'static) {
    if let Ok(mut slot) = ROUTE.lock() {
        *slot = Some((first, Box::new(route)));
    }
    static INSTALL: Once = Once::new();
    INSTALL.call_once(install_handler);
}

/// SIGINT's number, the signal of Ctrl-C (the same on every Unix; what Windows' Ctrl-C counts as).
const SIGINT: i32 = 2;

/// The signal that first interrupted the command; 0 before any.
static FIRST_SIGNAL: AtomicI32 = AtomicI32::new(0);

/// Routes SIGINT, SIGTERM and SIGHUP to [`interrupted_now`] on a thread of their own.
#[cfg(unix)]
fn install_handler() {
    use signal_hook::consts::{SIGHUP, SIGTERM};
    let spawned =
        signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]).and_then(|mut signals| {
            std::thread::Builder::new()
                .name("signals".to_owned())
                .spawn(move || {
                    for signal in signals.forever() {
                        interrupted_now(signal);
                    }
                })
        });
    if let Err(error) = spawned {
        debug!("signals cannot be handled: {error}");
    }
}

/// Routes Ctrl-C to [`interrupted_now`].
#[cfg(not(unix))]
fn install_handler() {
    if let Err(error) = ctrlc::set_handler(|| interrupted_now(SIGINT)) {
        debug!("Ctrl-C cannot be handled: {error}");
    }
}

/// The exit code of an interrupted command: 128 plus the number of the first signal.
pub(crate) fn interrupt_exit_code() -> u8 {
    let signal = match FIRST_SIGNAL.load(Ordering::SeqCst) {
        0 => SIGINT,
        signal => signal,
    };
    u8::try_from(128 + signal.clamp(1, 127)).unwrap_or(crate::error::EXIT_INTERRUPTED)
}

/// What interrupted the command, in words: `Ctrl-C`, `SIGTERM`, `SIGHUP`.
pub(crate) fn interrupt_name() -> &'static str {
    match FIRST_SIGNAL.load(Ordering::SeqCst) {
        1 => "SIGHUP",
        15 => "SIGTERM",
        0 | SIGINT => "Ctrl-C",
        _ => "a signal",
    }
}

/// The signal handler (on the handler's own thread), for signal number `signal`.
fn interrupted_now(signal: i32) {
    let _ = FIRST_SIGNAL.compare_exchange(0, signal, Ordering::SeqCst, Ordering::SeqCst);
    let count = INTERRUPTS.fetch_add(1, Ordering::SeqCst) + 1;
    if count > 2 {
        std::process::exit(i32::from(interrupt_exit_code()));
    }
    // The route is set before the handler is installed.
    let Ok(slot) = ROUTE.lock() else { return };
    let Some((first, route)) = slot.as_ref() else {
        return;
    };
    if count == 1 {
        note!("stopping: {first} (Ctrl-C again to abort)");
        route(Command::Stop);
    } else {
        note!("aborting: closing the connection now (Ctrl-C again to quit at once)");
        route(Command::Abort);
    }
}

/// Whether Ctrl-C was pressed.
pub(crate) fn interrupted() -> bool {
    INTERRUPTS.load(Ordering::SeqCst) > 0
}

/// The command's result after these sessions: interrupted, or what they came to
/// ([`SessionReport::outcome`]).
pub(crate) fn verdict<'a>(
    reports: impl IntoIterator<Item = &'a SessionReport>,
) -> Result<(), Error> {
    if interrupted() {
        return Err(Error::Interrupted);
    }
    match SessionReport::outcome(reports) {
        Outcome::Done => Ok(()),
        failed @ Outcome::RecordsFailed(_) => Err(Error::records(failed.to_string())),
        Outcome::Aborted => Err(Error::Interrupted),
        Outcome::Trouble(why) => Err(Error::Peer(why)),
    }
}

//! What the session commands share: a session run on a thread of its own while its events are
//! shown ([`drive`]), Ctrl-C, SIGTERM and SIGHUP routed to it with a word to the person
//! ([`on_interrupt`]; what each does: [`damx_session::interrupt`]), and the exit code a
//! session earns ([`verdict`], with the codes of `damx --help`).

use std::io::{self, Write};
use std::thread;

use crossbeam_channel::{Receiver, Sender, unbounded};
use damx_session::hub::{HubPlayerOptions, local_player};
use damx_session::interrupt;
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

/// What the first Ctrl-C does in a session.
const ENDS_THE_GAME: &str = "a running game ends on our turn and is saved";

/// Sends Ctrl-C, SIGTERM and SIGHUP to `route` from now on ([`interrupt::route`]: the first
/// one stops, the second aborts, the third ends the process), telling the person what each
/// does: `first` says what the first one does.
pub(crate) fn on_interrupt(first: &'static str, route: impl Fn(Command) + Send + 'static) {
    let routed = interrupt::route(move |command| {
        // The command first: telling the person may fail (a closed terminal) and must not
        // keep the session from stopping.
        let stopping = command == Command::Stop;
        route(command);
        if stopping {
            note!("stopping: {first} (Ctrl-C again to abort)");
        } else {
            note!("aborting: closing the connection now (Ctrl-C again to quit at once)");
        }
    });
    if let Err(error) = routed {
        debug!("signals cannot be handled: {error}");
    }
}

/// The command's result after these sessions: interrupted, or what they came to
/// ([`SessionReport::outcome`]).
pub(crate) fn verdict<'a>(
    reports: impl IntoIterator<Item = &'a SessionReport>,
) -> Result<(), Error> {
    if interrupt::interrupted() {
        return Err(Error::Interrupted);
    }
    match SessionReport::outcome(reports) {
        Outcome::Done => Ok(()),
        failed @ Outcome::RecordsFailed(_) => Err(Error::records(failed.to_string())),
        Outcome::Aborted => Err(Error::Interrupted),
        Outcome::Trouble(why) => Err(Error::Peer(why)),
    }
}

//! `damx play`: a person plays in the terminal, against the built-in engine or any DXP
//! program.
//!
//! The game is played by [`damx_session::seat::play_person`]: against the built-in engine it
//! is a real DXP game too, over TCP on 127.0.0.1; against another program, `--connect` or
//! `--listen` reaches it and `--role` says who asks for the game
//! ([`Opponent::person_initiates`]). The person is a [`ChannelPlayer`] answered through a
//! [`Seat`], whose [`Seat::converse`] takes the lines this module reads from standard input
//! on a thread of its own (so the session goes on while the person thinks) and says what to
//! print: the events, the replies, questions and prompts. The end of standard input stops
//! the game.

use std::io::{BufRead, Write};
use std::thread;

use crossbeam_channel::{Receiver, unbounded};
use damx_rules::Position;
use damx_session::seat::{Opponent, Seat, Shown, play_person};
use damx_session::{ChannelPlayer, Control, Event, SeriesPlan, SessionConfig, SessionReport};

use crate::error::Error;
use crate::session::{on_interrupt, session_error, verdict};
use crate::show::{Options, Show};

/// What `damx play` does.
#[derive(Debug)]
pub(crate) struct Config {
    /// The built-in engine or another program.
    pub(crate) opponent: Opponent,
    /// The games asked for as Initiator (the person's colour).
    pub(crate) plan: SeriesPlan,
    /// The start (as Initiator).
    pub(crate) start: Option<Position>,
    /// The person's DXP name.
    pub(crate) name: String,
    /// The person's session: frame gap, time-outs, records (its role and name are set here).
    pub(crate) session: SessionConfig,
}

/// Plays.
pub(crate) fn run(config: &Config, out: &mut dyn Write) -> Result<(), Error> {
    let (human, turns) = ChannelPlayer::new(config.name.clone());
    let mut session = config.session.clone();
    if config.opponent.person_initiates() {
        let openings: Vec<Position> = config.start.into_iter().collect();
        session.role = config.plan.role(&openings);
    }
    session.name = Some(config.name.clone());
    let (control, commands) = Control::new();
    let (events_tx, events) = unbounded::<Event>();
    let route = control.clone();
    on_interrupt(move |command| {
        route.send(command);
    });
    writeln!(
        out,
        "type a move such as 32-28 when it is your turn; `help` lists the commands"
    )
    .map_err(Error::stdout)?;

    let board = Options {
        board_every: Some(1),
        numbered: true,
        detail: crate::show::detail(),
        ..Options::default()
    };
    let mut show = Show::new(board, false);
    let mut written = Ok(());
    let mut print = |shown: Shown<'_>| {
        written = match shown {
            Shown::Event(event) => show.event(None, event, out),
            Shown::Text(text) => writeln!(out, "{text}").and_then(|()| out.flush()),
        };
        written.is_ok()
    };
    let reports: Vec<SessionReport> = thread::scope(|scope| {
        let session = &session;
        let running =
            scope.spawn(move || play_person(&config.opponent, session, human, commands, events_tx));
        Seat::new(control).converse(&events, turns, read_lines(), &mut print);
        running
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            .map_err(session_error)
    })?;
    written.map_err(Error::stdout)?;
    verdict(&reports)
}

/// Standard input, a line at a time, from a thread of its own (the channel closes at its end).
fn read_lines() -> Receiver<String> {
    let (lines, receiver) = unbounded();
    thread::spawn(move || {
        let stdin = std::io::stdin();
        for line in stdin.lock().lines() {
            let Ok(line) = line else { break };
            if lines.send(line).is_err() {
                break;
            }
        }
    });
    receiver
}

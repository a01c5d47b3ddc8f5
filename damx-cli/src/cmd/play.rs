//! `damx play`: a person plays in the terminal, against the built-in engine or any DXP
//! program.
//!
//! The game is played by [`damx_session::seat::play_person`]: against the built-in engine it
//! is a real DXP game too, over TCP on 127.0.0.1; against another program, `--connect` or
//! `--listen` reaches it and `--role` says who asks for the game
//! ([`damx_session::seat::Opponent::person_initiates`]). The person is a [`ChannelPlayer`]
//! answered through a [`Seat`], whose [`Seat::converse`] takes the lines this module reads
//! from standard input on a thread of its own (so the session goes on while the person
//! thinks) and says what to print: the events, the replies, questions and prompts. The end of
//! standard input stops the game.

use std::io::{BufRead, Write};
use std::thread;

use crossbeam_channel::{Receiver, unbounded};
use damx_session::seat::{Seat, Shown, play_person};
use damx_session::{ChannelPlayer, Control, Event, SessionReport};

use crate::args::PlayArgs;
use crate::error::Error;
use crate::session::{on_interrupt, session_error, verdict};
use damx_session::render::{RenderOptions, Renderer};

/// Plays.
pub(crate) fn run(args: &PlayArgs, out: &mut dyn Write) -> Result<(), Error> {
    let opponent = args.opponent();
    let session = args.session(&opponent);
    let (human, turns) = ChannelPlayer::new(session.name.clone().unwrap_or_default());
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

    let mut renderer = Renderer::new(RenderOptions {
        board_every: Some(1),
        numbered: true,
        detail: crate::log::level(),
        ..RenderOptions::default()
    });
    let mut written = Ok(());
    let mut print = |shown: Shown<'_>| {
        written = match shown {
            Shown::Event(event) => super::write_lines(renderer.event(None, event), out),
            Shown::Text(text) => writeln!(out, "{text}").and_then(|()| out.flush()),
        };
        written.is_ok()
    };
    let reports: Vec<SessionReport> = thread::scope(|scope| {
        let session = &session;
        let running =
            scope.spawn(move || play_person(&opponent, session, human, commands, events_tx));
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

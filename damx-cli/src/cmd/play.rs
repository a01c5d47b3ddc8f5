//! `damx play`: a person plays in the terminal, against the built-in engine or any DXP
//! program.
//!
//! The game is played by [`damx_session::seat::play_person`]: against the built-in engine it
//! is a real DXP game too, over TCP on 127.0.0.1; against another program, `--connect` or
//! `--listen` reaches it and `--role` says who asks for the game
//! ([`damx_session::seat::Opponent::person_initiates`]). The person is a [`ChannelPlayer`]
//! answered through a [`Seat`], whose [`Seat::converse`] takes the lines typed on standard
//! input ([`typed_lines`]) and says what to print: the events, the replies, questions and
//! prompts. The end of standard input stops the game. Standard input that is not a terminal
//! is a script ([`Seat::scripted`]): each line is read at the person's turn.

use std::io::{BufReader, IsTerminal, Write};

use damx_session::ChannelPlayer;
use damx_session::render::{RenderOptions, Renderer};
use damx_session::seat::{Seat, Shown, play_person, typed_lines};

use crate::args::PlayArgs;
use crate::error::Error;
use crate::session::{drive_with, verdict};

/// Plays.
pub(crate) fn run(args: &PlayArgs, out: &mut dyn Write) -> Result<(), Error> {
    let opponent = args.opponent();
    let session = args.session(&opponent);
    // A game played to its end and then lost for want of a place to save it helps no one.
    session.records.check()?;
    let (human, turns) = ChannelPlayer::new(session.name.clone().unwrap_or_default());
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
    let converse = |events, control| {
        let mut written = Ok(());
        let mut print = |shown: Shown<'_>| {
            written = match shown {
                Shown::Event(event) => super::write_lines(renderer.event(None, event), out),
                Shown::Text(text) => writeln!(out, "{text}").and_then(|()| out.flush()),
            };
            written.is_ok()
        };
        let typed = typed_lines(BufReader::new(std::io::stdin()));
        // Moves piped in are played in their turns; a person at the terminal is answered at
        // once.
        let seat = Seat::new(control);
        let mut seat = if std::io::stdin().is_terminal() {
            seat
        } else {
            seat.scripted()
        };
        seat.converse(&events, turns, typed, &mut print);
        written
    };
    let reports = drive_with(
        |commands, events| play_person(&opponent, &session, human, commands, events),
        converse,
    )?;
    verdict(&reports)
}

//! `damx play`: a person plays in the terminal, against the built-in engine or any DXP
//! program.
//!
//! The game is played by [`damx_session::seat::play_person`]: against the built-in engine it
//! is a real DXP game too, over TCP on 127.0.0.1; against another program, `--connect` or
//! `--listen` reaches it and `--role` says who asks for the game
//! ([`Opponent::person_initiates`]). The person is a [`ChannelPlayer`] answered through a
//! [`Seat`]: this module reads standard input line by line on a thread of its own (so the
//! session goes on while the person thinks), hands each line to [`Seat::respond`] and prints
//! the events, the seat's replies, questions and prompts. The end of standard input is `quit`.

use std::io::{BufRead, Write};
use std::thread;

use crossbeam_channel::{Receiver, never, select, unbounded};
use damx_rules::Position;
use damx_session::seat::{Opponent, Seat, play_person};
use damx_session::{
    ChannelPlayer, Control, Event, MoveRequest, SeriesPlan, SessionConfig, SessionReport,
};

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

    let mut ui = Ui::new(control, out);
    let reports: Vec<SessionReport> = thread::scope(|scope| {
        let session = &session;
        let running =
            scope.spawn(move || play_person(&config.opponent, session, human, commands, events_tx));
        ui.run(&events, &turns);
        running
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            .map_err(session_error)
    })?;
    ui.result?;
    verdict(&reports)
}

/// The terminal side: reads lines, shows events, passes the person's lines to their seat.
struct Ui<'a> {
    seat: Seat,
    out: &'a mut dyn Write,
    show: Show,
    result: Result<(), Error>,
}

impl<'a> Ui<'a> {
    fn new(control: Control, out: &'a mut dyn Write) -> Ui<'a> {
        let board = Options {
            board_every: Some(1),
            numbered: true,
            detail: crate::show::detail(),
            ..Options::default()
        };
        Ui {
            seat: Seat::new(control),
            out,
            show: Show::new(board, false),
            result: Ok(()),
        }
    }

    /// Runs until the session is over (its events channel closes).
    fn run(&mut self, events: &Receiver<Event>, turns: &Receiver<MoveRequest>) {
        let mut lines = read_lines();
        loop {
            select! {
                recv(events) -> event => match event {
                    Ok(event) => self.event(&event),
                    Err(_) => break,
                },
                recv(turns) -> turn => {
                    if let Ok(turn) = turn {
                        // The events sent before the request (the opponent's move) first.
                        while let Ok(event) = events.try_recv() {
                            self.event(&event);
                        }
                        self.seat.turn(turn);
                        self.prompt();
                    }
                },
                recv(lines) -> line => match line {
                    Ok(line) => {
                        let reply = self.seat.respond(&line);
                        if let Some(text) = reply.text {
                            self.say(&text);
                        }
                        if reply.prompt {
                            self.prompt();
                        }
                    }
                    Err(_) => {
                        lines = never();
                        self.say("end of input: stopping");
                        self.seat.stop();
                    }
                },
            }
        }
    }

    fn say(&mut self, text: &str) {
        if self.result.is_ok() {
            self.result = writeln!(self.out, "{text}")
                .and_then(|()| self.out.flush())
                .map_err(Error::stdout);
            if self.result.is_err() {
                self.seat.stop();
            }
        }
    }

    fn event(&mut self, event: &Event) {
        let question = self.seat.event(event);
        if self.result.is_ok() {
            self.result = self
                .show
                .event(None, event, self.out)
                .map_err(Error::stdout);
        }
        if let Some(question) = question {
            self.say(question);
        }
    }

    fn prompt(&mut self) {
        if let Some(prompt) = self.seat.prompt() {
            self.say(&prompt);
        }
    }
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

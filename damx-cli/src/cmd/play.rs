//! `damx play`: a person plays in the terminal, against the built-in engine or any DXP
//! program.
//!
//! Against the built-in engine the game is a real DXP game too: the person's session is the
//! Initiator and the engine's the Follower, over TCP on 127.0.0.1
//! ([`damx_session::play_loopback`]). Against another program, `--connect` or `--listen`
//! reaches it and `--role` says who asks for the game.
//!
//! The person is a [`ChannelPlayer`] whose moves come from this thread: when the session
//! asks for a move, the request comes here, the board and a prompt are shown, and the typed
//! move goes back through a [`Seat`], which also carries out the commands. Everything typed is read line by line from standard input by a thread of
//! its own, so the session goes on (the peer's chat, a take-back request) while the person
//! thinks. Moves are read with [`damx_rules::Position::parse_move`] (`32-28`, `28x19`, a
//! landing path `27x38x49`, ...); a text that fits several captures lists them with their
//! paths and asks for a number. Each line is read as a [`Wish`] in the words `help` lists
//! ([`HELP`]). The end of standard input is `quit`.

use std::io::{BufRead, Write};
use std::thread;

use crossbeam_channel::{Receiver, never, select, unbounded};
use damx_rules::Position;
use damx_session::seat::{HELP, Seat, SeatError, Wish};
use damx_session::{
    ChannelPlayer, Control, EndReason, EnginePlayer, EnginePlayerOptions, Event, FollowerConfig,
    LoopbackSide, MoveRequest, Role, RoleConfig, SessionConfig, SessionError, SessionReport,
    play_loopback,
};

use crate::error::Error;
use crate::session::{on_interrupt, session_error, verdict};
use damx_session::Endpoint;

use super::initiate::Plan;
use crate::show::{Options, Show};

/// What `damx play` does.
#[derive(Debug)]
pub(crate) struct Config {
    /// Another program, or `None` for the built-in engine.
    pub(crate) peer: Option<Endpoint>,
    /// Who asks for the game against another program.
    pub(crate) role: Role,
    /// The games asked for as Initiator (the person's colour).
    pub(crate) plan: Plan,
    /// The start (as Initiator).
    pub(crate) start: Option<Position>,
    /// The person's DXP name.
    pub(crate) name: String,
    /// The built-in engine.
    pub(crate) engine: EnginePlayerOptions,
    /// The person's session: frame gap, time-outs, records (its role and name are set here).
    pub(crate) session: SessionConfig,
}

/// Plays.
pub(crate) fn run(config: &Config, out: &mut dyn Write) -> Result<(), Error> {
    let (human, turns) = ChannelPlayer::new(config.name.clone());
    let human = Box::new(human);
    let initiator = config.peer.is_none() || config.role == Role::Initiator;
    let mut session = config.session.clone();
    session.role = if initiator {
        let openings: Vec<Position> = config.start.into_iter().collect();
        config.plan.role(&openings)
    } else {
        RoleConfig::Follower(FollowerConfig::default())
    };
    session.name = Some(config.name.clone());

    let (control, commands) = Control::new();
    let (events_tx, events) = unbounded::<Event>();
    let engine_control = match &config.peer {
        None => Some(Control::new()),
        Some(_) => None,
    };
    let route = control.clone();
    let engine_route = engine_control.as_ref().map(|(control, _)| control.clone());
    on_interrupt(move |command| {
        if let (damx_session::Command::Abort, Some(engine)) = (&command, &engine_route) {
            engine.abort();
        }
        route.send(command);
    });
    writeln!(
        out,
        "type a move such as 32-28 when it is your turn; `help` lists the commands"
    )
    .map_err(Error::stdout)?;

    let mut ui = Ui::new(control, out);
    let reports: Vec<SessionReport> = thread::scope(|scope| -> Result<_, Error> {
        let session = &session;
        let running = scope.spawn(move || -> Result<Vec<SessionReport>, SessionError> {
            if let Some(peer) = &config.peer {
                return damx_session::run(peer, session, human, commands, events_tx)
                    .map(|report| vec![report]);
            }
            let (engine_control, engine_commands) =
                engine_control.expect("the built-in engine has a control");
            let engine_config = SessionConfig {
                frame_gap: session.frame_gap,
                ..SessionConfig::default()
            };
            let engine = LoopbackSide {
                config: engine_config,
                player: Box::new(EnginePlayer::new(config.engine.clone())),
                control: engine_commands,
                events: unbounded().0,
            };
            let person = LoopbackSide {
                config: session.clone(),
                player: human,
                control: commands,
                events: events_tx,
            };
            let reports = play_loopback(person, engine, false);
            drop(engine_control);
            let (person, engine) = reports?;
            Ok(vec![person, engine])
        });
        ui.run(&events, &turns);
        running
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            .map_err(session_error)
    })?;
    ui.result?;
    verdict(&reports)
}

/// The terminal side: reads lines, shows events, passes the person's wishes to their seat.
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
                    Ok(line) => self.line(line.trim()),
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
        self.seat.event(event);
        if self.result.is_ok() {
            self.result = self
                .show
                .event(None, event, self.out)
                .map_err(Error::stdout);
        }
        if let Event::TakeBackRequested { .. } = event {
            self.say("accept the take-back? (yes or no)");
        }
    }

    fn prompt(&mut self) {
        if let Some(turn) = self.seat.current_turn() {
            let color = turn.game.position().side_to_move();
            let clock = match turn.clock.our_remaining {
                Some(left) => format!(", {} s left", left.as_secs()),
                None => String::new(),
            };
            self.say(&format!("your move ({color}{clock}):"));
        }
    }

    fn line(&mut self, line: &str) {
        if line.is_empty() {
            return;
        }
        let wish = Wish::read(line, &self.seat);
        if let Wish::Choose(number) = wish {
            let chosen = self.seat.choose(number);
            return self.told(chosen);
        }
        self.seat.drop_choice();
        match wish {
            Wish::Help => self.say(HELP),
            Wish::Board => {
                let position = *self.seat.position();
                let board = position.diagram().numbered(true).indent(2);
                self.say(&format!(
                    "{}{}",
                    board.side_to_move(false),
                    position.to_fen()
                ));
            }
            Wish::Moves => {
                let position = self.seat.position();
                let texts: Vec<String> = position
                    .legal_moves()
                    .iter()
                    .map(|mv| position.move_text(mv))
                    .collect();
                self.say(&format!("legal moves: {}", texts.join(" ")));
            }
            Wish::TakeBack => match self.seat.take_back() {
                Ok(ply) => self.say(&format!("asking to take back to ply {ply}")),
                Err(error) => self.say(&error.to_string()),
            },
            Wish::Chat(text) => self.seat.chat(text),
            Wish::Resign => {
                let ended = self.seat.end(EndReason::GiveUp);
                self.told(ended);
            }
            Wish::Draw => {
                let ended = self.seat.end(EndReason::Draw);
                self.told(ended);
            }
            Wish::Quit => {
                self.say("stopping: the game ends on your turn");
                self.seat.stop();
            }
            Wish::Answer(accept) => {
                let answered = self.seat.answer_take_back(accept);
                self.told(answered);
            }
            Wish::Choose(_) | Wish::Move(_) => match self.seat.play_text(line) {
                Err(SeatError::Ambiguous(candidates)) => {
                    let mut text = format!("{line} fits {} captures:", candidates.len());
                    for (number, candidate) in candidates.iter().enumerate() {
                        text.push_str(&format!("\n  {}) {candidate}", number + 1));
                    }
                    text.push_str("\nwhich one? (type its number)");
                    self.say(&text);
                }
                Err(error @ (SeatError::NoGame | SeatError::NotYourTurn)) => {
                    self.say(&format!("{error}: `help` lists the commands"));
                }
                Err(error) => {
                    self.say(&error.to_string());
                    self.prompt();
                }
                Ok(_) => {}
            },
        }
    }

    /// Says why a wish could not be carried out, if it could not.
    fn told<T>(&mut self, result: Result<T, SeatError>) {
        if let Err(error) = result {
            self.say(&error.to_string());
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

//! A person's seat at a session: what a terminal, a GUI or a chat bot needs to let someone
//! play through a [`ChannelPlayer`], whatever reads their input.
//!
//! [`Seat`] follows the session's [`Event`]s and the player's [`MoveRequest`]s, and turns what
//! the person wants (a move as text, a choice among the captures that text fitted, a
//! take-back of their last move, resigning, a draw claim, stopping, an answer to the peer's
//! take-back request) into the session's [`Command`]s or the move answered;
//! what cannot be done now is a [`SeatError`] that says why. A text front end reads each line
//! the person types as a [`Wish`] ([`Wish::read`]; [`HELP`] lists the words) and shows the
//! [`Reply`] of [`Seat::respond`], the question an event asks ([`Seat::event`]) and the
//! prompt on the person's turn ([`Seat::prompt`]). [`play_person`] plays the person's session
//! against the built-in engine (a real DXP game over 127.0.0.1) or another program.
//!
//! ```
//! use damx_session::seat::{Seat, SeatError};
//! use damx_session::{ChannelPlayer, Control};
//!
//! let (control, _commands) = Control::new();
//! let (_player, _requests) = ChannelPlayer::new("person");
//! let mut seat = Seat::new(control);
//! // No game has started: nothing to take back, no move to play.
//! assert_eq!(seat.take_back(), Err(SeatError::NoGame));
//! assert_eq!(seat.play_text("32-28").unwrap_err(), SeatError::NoGame);
//! ```

use std::fmt;
use std::io::BufRead;

use crossbeam_channel::{Receiver, Sender, bounded, never, select};
use damx_rules::{Move, MoveTextError, MoveTextErrorKind, Position};
use damx_wire::{EndReason, LineReader};

use crate::config::{Role, SeriesPlan, SessionConfig};
use crate::driver::{Control, Endpoint, SessionError, SessionReport, run};
use crate::engine_player::{EnginePlayerOptions, play_against_engine};
use crate::event::{Command, Event};
use crate::player::{ChannelPlayer, MoveRequest};

/// Why the person's wish cannot be carried out now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SeatError {
    /// No game is running.
    NoGame,
    /// It is the opponent's turn.
    NotYourTurn,
    /// The turn passed before the move came (the game ended, the session stops).
    Withdrawn,
    /// The person has made no move yet that could be taken back.
    NothingToTakeBack,
    /// The text is not a legal move here.
    Move(MoveTextError),
    /// The text fits several captures: choose one with [`Seat::choose`], by its number
    /// from 1 in this list (each written with its landing path).
    Ambiguous(Vec<String>),
    /// A choice that is not one of the numbers offered.
    NoSuchChoice,
    /// No take-back request waits for an answer.
    NothingAsked,
}

impl fmt::Display for SeatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SeatError::NoGame => f.write_str("no game is running"),
            SeatError::NotYourTurn => f.write_str("it is not your turn"),
            SeatError::Withdrawn => f.write_str("it is not your turn any more"),
            SeatError::NothingToTakeBack => f.write_str("you have no move to take back"),
            SeatError::Move(error) => write!(f, "{error}"),
            SeatError::Ambiguous(candidates) => {
                write!(f, "it fits {} captures", candidates.len())
            }
            SeatError::NoSuchChoice => f.write_str("type one of the numbers listed"),
            SeatError::NothingAsked => f.write_str("no take-back was asked for"),
        }
    }
}

impl std::error::Error for SeatError {}

/// The words of a text front end, as `help` lists them.
pub const HELP: &str = "\
commands:
  32-28  28x19  27x38x49   play a move (a landing path tells apart captures with the same ends)
  moves                    list the legal moves
  board                    show the board with the square numbers
  undo                     ask to take back your last move (also: takeback)
  chat TEXT                send a chat message
  resign                   give up the game (GAMEEND reason 1)
  draw                     end the game claiming a draw (GAMEEND reason 2: DXP has no draw offer)
  quit                     end the game and stop (GAMEEND with stop code 1); also Ctrl-D
  yes / no                 answer the opponent's request to take back moves
  help                     this list";

/// What a line the person typed asks for, in the words [`HELP`] lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wish<'a> {
    /// `help` or `?`.
    Help,
    /// `board`: the board with its square numbers.
    Board,
    /// `moves`: the legal moves.
    Moves,
    /// `undo` or `takeback` ([`Seat::take_back`]).
    TakeBack,
    /// `chat TEXT`.
    Chat(&'a str),
    /// `resign`: end the game giving up.
    Resign,
    /// `draw`: end the game claiming a draw.
    Draw,
    /// `quit` or `exit`: stop the session.
    Quit,
    /// `yes`/`y`/`accept` or `no`/`n`/`decline`, while the peer's take-back request waits.
    Answer(bool),
    /// A number, while the captures an ambiguous text fitted wait for a choice.
    Choose(usize),
    /// Anything else: a move as text ([`Seat::play_text`]).
    Move(&'a str),
}

impl<'a> Wish<'a> {
    /// Reads a line (trimmed, not empty) in the state of `seat`: a number is a choice only
    /// while one waits, and yes or no an answer only while a take-back request does.
    pub fn read(line: &'a str, seat: &Seat) -> Wish<'a> {
        if seat.choosing()
            && let Ok(number) = line.parse::<usize>()
        {
            return Wish::Choose(number);
        }
        let (word, rest) = match line.split_once(char::is_whitespace) {
            Some((word, rest)) => (word, rest.trim()),
            None => (line, ""),
        };
        match word.to_ascii_lowercase().as_str() {
            "help" | "?" => Wish::Help,
            "board" => Wish::Board,
            "moves" => Wish::Moves,
            "undo" | "takeback" => Wish::TakeBack,
            "chat" if !rest.is_empty() => Wish::Chat(rest),
            "resign" => Wish::Resign,
            "draw" => Wish::Draw,
            "quit" | "exit" => Wish::Quit,
            "yes" | "y" | "accept" if seat.take_back_asked() => Wish::Answer(true),
            "no" | "n" | "decline" if seat.take_back_asked() => Wish::Answer(false),
            _ => Wish::Move(line),
        }
    }
}

/// What a text front end shows, in order ([`Seat::converse`]).
#[derive(Clone, Copy, Debug)]
pub enum Shown<'a> {
    /// An event of the session, to show as the front end shows events.
    Event(&'a Event),
    /// A text for the person: a reply, a question, a prompt.
    Text(&'a str),
}

/// A text front end's side of [`Seat::converse`]: the seat, and where it shows things.
struct Front<'a> {
    seat: &'a mut Seat,
    show: &'a mut dyn FnMut(Shown<'_>) -> bool,
    /// Whether showing still works; once it fails the session is stopped.
    open: bool,
}

impl Front<'_> {
    fn show(&mut self, shown: Shown<'_>) {
        if self.open && !(self.show)(shown) {
            self.open = false;
            self.seat.stop();
        }
    }

    fn event(&mut self, event: &Event) {
        let question = self.seat.event(event);
        self.show(Shown::Event(event));
        if let Some(question) = question {
            self.show(Shown::Text(question));
        }
    }

    fn prompt(&mut self) {
        if let Some(prompt) = self.seat.prompt() {
            self.show(Shown::Text(&prompt));
        }
    }

    fn line(&mut self, line: &str) {
        let reply = self.seat.respond(line);
        if let Some(text) = &reply.text {
            self.show(Shown::Text(text));
        }
        if reply.prompt {
            self.prompt();
        }
    }
}

/// What a front end shows after a line the person typed ([`Seat::respond`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reply {
    /// The text to show, if any (it may hold several lines).
    pub text: Option<String>,
    /// Whether to ask for the move again ([`Seat::prompt`]): the text was no legal move.
    pub prompt: bool,
}

impl Reply {
    /// Nothing to say if `result` is a success, else why not.
    fn unless_done<T>(result: Result<T, SeatError>) -> Reply {
        Reply {
            text: result.err().map(|error| error.to_string()),
            prompt: false,
        }
    }
}

/// The lines a person types on `input` (without their line ends), read on a thread of their
/// own so that the session goes on while they think: the `lines` of [`Seat::converse`]. The
/// channel closes at the end of the input or at a read error, which ends the conversation.
/// At most [`LINES_AHEAD`] lines are read ahead of the conversation (a script piped in waits
/// in its pipe). Bytes that are not UTF-8 are replaced (`U+FFFD`). A line longer than
/// [`MAX_TYPED_LINE`] bytes is not held in memory: it comes as one `U+FFFD` more than the
/// bound, which [`Seat::respond`] refuses.
pub fn typed_lines(input: impl BufRead + Send + 'static) -> Receiver<String> {
    let (lines, typed) = bounded(LINES_AHEAD);
    std::thread::spawn(move || {
        let mut reader = LineReader::new(input, MAX_TYPED_LINE);
        while let Ok(Some(line)) = reader.next_line() {
            let text = match line.item {
                Ok(bytes) => String::from_utf8_lossy(bytes).into_owned(),
                Err(_) => char::REPLACEMENT_CHARACTER
                    .to_string()
                    .repeat(MAX_TYPED_LINE + 1),
            };
            if lines.send(text).is_err() {
                break;
            }
        }
    });
    typed
}

/// How many typed lines [`typed_lines`] reads ahead of the conversation.
pub const LINES_AHEAD: usize = 64;

/// The longest line a person may type, in bytes: [`Seat::respond`] refuses a longer one.
pub const MAX_TYPED_LINE: usize = 1024;

/// The person's DXP name: `given`, else their user name (`$USER`), else `player`.
pub fn person_name(given: Option<String>) -> String {
    let user = || {
        std::env::var("USER")
            .ok()
            .filter(|user| !user.trim().is_empty())
    };
    given.or_else(user).unwrap_or_else(|| "player".to_owned())
}

/// Whom a person plays ([`play_person`]).
#[derive(Clone, Debug)]
pub enum Opponent {
    /// The built-in engine, in a real DXP game over TCP on 127.0.0.1 that the person asks
    /// for as the Initiator.
    Engine(Box<EnginePlayerOptions>),
    /// Another program, listened for or connected to; `role` is the person's.
    Program {
        /// Where it is.
        endpoint: Endpoint,
        /// The person's role: the Initiator asks for the game.
        role: Role,
    },
}

impl Opponent {
    /// Whether the person asks for the game, and so chooses the colours, clock and start.
    pub fn person_initiates(&self) -> bool {
        !matches!(
            self,
            Opponent::Program {
                role: Role::Follower,
                ..
            }
        )
    }

    /// The person's session against this opponent, from `session` (their DXP options and
    /// records): named by [`person_name`], and when the person asks for the games
    /// ([`Opponent::person_initiates`]) an Initiator's playing `plan` from `start` (none: the
    /// normal start).
    pub fn person_session(
        &self,
        mut session: SessionConfig,
        plan: &SeriesPlan,
        start: Option<Position>,
    ) -> SessionConfig {
        session.name = Some(person_name(session.name.take()));
        if self.person_initiates() {
            let openings: Vec<Position> = start.into_iter().collect();
            session.role = plan.role(&openings);
        }
        session
    }
}

/// Plays a person's session against `opponent` until it is over: `session` is the person's
/// (an Initiator's role when [`Opponent::person_initiates`], else a Follower's), `person`
/// their player, fed by a [`Seat`] over the [`Control`] of `commands`; the session's events go
/// to `events`. Against the built-in engine the game is [`play_against_engine`]'s. Returns
/// the reports, the person's first.
///
/// # Errors
/// If the connection cannot be made (or, against the engine, the sockets set up).
pub fn play_person(
    opponent: &Opponent,
    session: &SessionConfig,
    person: ChannelPlayer,
    commands: Receiver<Command>,
    events: Sender<Event>,
) -> Result<Vec<SessionReport>, SessionError> {
    match opponent {
        Opponent::Program { endpoint, .. } => {
            run(endpoint, session, Box::new(person), commands, events).map(|report| vec![report])
        }
        Opponent::Engine(engine) => {
            let engine = engine.as_ref().clone();
            play_against_engine(session, Box::new(person), engine, commands, events)
                .map(|(person, engine)| vec![person, engine])
        }
    }
}

/// A person's seat at one session; see the module docs.
#[derive(Debug)]
pub struct Seat {
    control: Control,
    /// The move asked for, while it is the person's turn.
    turn: Option<MoveRequest>,
    /// The captures an ambiguous text fitted, waiting for a choice.
    choice: Vec<Move>,
    /// The opponent asked to take back moves and waits for an answer.
    take_back_asked: bool,
    /// The position of the running game, and its ply.
    position: Position,
    ply: usize,
    in_game: bool,
    /// Lines are read only when the person is to move or asked a question
    /// ([`Seat::scripted`]).
    scripted: bool,
}

impl Seat {
    /// A seat that sends its commands through `control`.
    pub fn new(control: Control) -> Seat {
        Seat {
            control,
            turn: None,
            choice: Vec::new(),
            take_back_asked: false,
            position: Position::initial(),
            ply: 0,
            in_game: false,
            scripted: false,
        }
    }

    /// The seat of a script (lines piped in rather than typed): [`Seat::converse`] reads the
    /// next line only when the person is to move or a take-back request waits for an answer,
    /// so that moves written ahead are played in their turns instead of being refused before
    /// them. (A person at a terminal is answered at once, whatever the turn.)
    #[must_use]
    pub fn scripted(mut self) -> Seat {
        self.scripted = true;
        self
    }

    /// The position of the running game (or of the last one).
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// Whether the peer's take-back request waits for the person's answer.
    pub fn take_back_asked(&self) -> bool {
        self.take_back_asked
    }

    /// Whether a choice among captures is waiting ([`Seat::choose`]).
    pub fn choosing(&self) -> bool {
        !self.choice.is_empty()
    }

    /// Takes in an event of the session; returns the question it puts to the person, if any
    /// (the peer's take-back request: answer yes or no).
    pub fn event(&mut self, event: &Event) -> Option<&'static str> {
        match event {
            Event::GameStarted(info) => {
                self.in_game = true;
                self.position = info.start;
                self.ply = 0;
            }
            Event::MovePlayed(played) => {
                self.position = played.position;
                self.ply = played.ply;
            }
            Event::TakeBackDone { ply, position, .. } => {
                self.position = *position;
                self.ply = *ply;
            }
            Event::TakeBackRequested { .. } => {
                self.take_back_asked = true;
                return Some("accept the take-back? (yes or no)");
            }
            Event::GameOver(_) => {
                self.in_game = false;
                self.turn = None;
                self.take_back_asked = false;
            }
            _ => {}
        }
        None
    }

    /// Runs a text front end (a terminal, a chat bot) until the session is over, that is
    /// until `events` closes: the session's events, the person's turns (the requests of their
    /// [`ChannelPlayer`]) and the lines they type come in, and `show` gets, in order, each
    /// event and the question it asks, each [`Reply`] and the prompt on the person's turn.
    /// The end of `lines` stops the session; so does `show` returning `false` (nothing can
    /// be shown any more), after which nothing more is shown.
    pub fn converse(
        &mut self,
        events: &Receiver<Event>,
        mut turns: Receiver<MoveRequest>,
        mut lines: Receiver<String>,
        show: &mut dyn FnMut(Shown<'_>) -> bool,
    ) {
        let mut front = Front {
            seat: self,
            show,
            open: true,
        };
        let held = never();
        loop {
            let waiting = front.seat.scripted
                && front.seat.current_turn().is_none()
                && !front.seat.take_back_asked;
            let next_line = if waiting { &held } else { &lines };
            select! {
                recv(events) -> event => match event {
                    Ok(event) => front.event(&event),
                    Err(_) => break,
                },
                recv(turns) -> turn => match turn {
                    Ok(turn) => {
                        // The events sent before the request (the opponent's move) first.
                        while let Ok(event) = events.try_recv() {
                            front.event(&event);
                        }
                        front.seat.turn(turn);
                        front.prompt();
                    }
                    Err(_) => turns = never(),
                },
                recv(next_line) -> line => match line {
                    Ok(line) => front.line(&line),
                    Err(_) => {
                        lines = never();
                        front.show(Shown::Text("end of input: stopping"));
                        front.seat.stop();
                    }
                },
            }
        }
    }

    /// The prompt while it is the person's turn: `your move (white, 296 s left):`.
    pub fn prompt(&mut self) -> Option<String> {
        let turn = self.current_turn()?;
        let color = turn.game.position().side_to_move();
        let clock = match turn.clock.our_remaining {
            Some(left) => format!(", {} s left", left.as_secs()),
            None => String::new(),
        };
        Some(format!("your move ({color}{clock}):"))
    }

    /// Carries out a line the person typed, read as a [`Wish`], and says what to show: the
    /// help, the board, the legal moves, the captures an ambiguous text fits (numbered, to
    /// choose one), why a wish cannot be carried out now; nothing for a move played or a
    /// chat sent.
    pub fn respond(&mut self, line: &str) -> Reply {
        if line.len() > MAX_TYPED_LINE {
            return Reply {
                text: Some(format!(
                    "that line is too long (more than {MAX_TYPED_LINE} bytes): `help` lists the commands"
                )),
                prompt: true,
            };
        }
        let line = line.trim();
        if line.is_empty() {
            return Reply::default();
        }
        let wish = Wish::read(line, self);
        if let Wish::Choose(number) = wish {
            return Reply::unless_done(self.choose(number));
        }
        self.drop_choice();
        let text = match wish {
            Wish::Help => HELP.to_owned(),
            Wish::Board => {
                let board = self.position.diagram().numbered(true).indent(2);
                format!("{}{}", board.side_to_move(false), self.position.to_fen())
            }
            Wish::Moves => {
                let moves = self.position.legal_moves();
                let texts: Vec<String> =
                    moves.iter().map(|mv| self.position.move_text(mv)).collect();
                format!("legal moves: {}", texts.join(" "))
            }
            Wish::TakeBack => match self.take_back() {
                Ok(ply) => format!("asking to take back to ply {ply}"),
                Err(error) => error.to_string(),
            },
            Wish::Chat(text) => {
                self.chat(text);
                return Reply::default();
            }
            Wish::Resign => return Reply::unless_done(self.end(EndReason::GiveUp)),
            Wish::Draw => return Reply::unless_done(self.end(EndReason::Draw)),
            Wish::Quit => {
                self.stop();
                "stopping: the game ends on your turn".to_owned()
            }
            Wish::Answer(accept) => return Reply::unless_done(self.answer_take_back(accept)),
            Wish::Choose(_) | Wish::Move(_) => match self.play_text(line) {
                Ok(_) => return Reply::default(),
                Err(SeatError::Ambiguous(candidates)) => {
                    let mut text = format!("{line} fits {} captures:", candidates.len());
                    for (number, candidate) in candidates.iter().enumerate() {
                        text.push_str(&format!("\n  {}) {candidate}", number + 1));
                    }
                    text + "\nwhich one? (type its number)"
                }
                Err(error @ (SeatError::NoGame | SeatError::NotYourTurn)) => {
                    format!("{error}: `help` lists the commands")
                }
                Err(error) => {
                    return Reply {
                        text: Some(error.to_string()),
                        prompt: true,
                    };
                }
            },
        };
        Reply {
            text: Some(text),
            prompt: false,
        }
    }

    /// Takes in the player's request for the person's move (take the session's events sent
    /// before it first: the opponent's move).
    pub fn turn(&mut self, turn: MoveRequest) {
        self.position = *turn.game.position();
        self.ply = turn.game.ply();
        self.choice.clear();
        self.turn = Some(turn);
    }

    /// The person's turn, if it is still asked for.
    pub fn current_turn(&mut self) -> Option<&MoveRequest> {
        if self.turn.as_ref().is_some_and(MoveRequest::is_withdrawn) {
            self.turn = None;
        }
        self.turn.as_ref()
    }

    /// Plays the move `text` stands for (`32-28`, `28x19`, a landing path `27x38x49`).
    ///
    /// # Errors
    /// No turn, a text that is no legal move, or one that fits several captures (then
    /// [`Seat::choose`] takes the number of one).
    pub fn play_text(&mut self, text: &str) -> Result<Move, SeatError> {
        let Some(turn) = self.current_turn() else {
            return Err(self.no_turn());
        };
        let position = *turn.game.position();
        match position.parse_move(text) {
            Ok(mv) => self.play(mv).map(|()| mv),
            Err(error) => match error.kind {
                MoveTextErrorKind::Ambiguous { candidates, moves } => {
                    self.choice = moves;
                    Err(SeatError::Ambiguous(candidates))
                }
                _ => Err(SeatError::Move(error)),
            },
        }
    }

    /// Plays capture `number` (from 1) of those the last ambiguous text fitted.
    ///
    /// # Errors
    /// No such number (the choice stays open), or the turn has passed.
    pub fn choose(&mut self, number: usize) -> Result<Move, SeatError> {
        let Some(&mv) = self.choice.get(number.wrapping_sub(1)) else {
            return Err(SeatError::NoSuchChoice);
        };
        self.choice.clear();
        self.play(mv).map(|()| mv)
    }

    /// Forgets an open choice among captures (the person typed something else).
    pub fn drop_choice(&mut self) {
        self.choice.clear();
    }

    /// Answers the turn with `mv`.
    ///
    /// # Errors
    /// The turn has passed (the move was withdrawn).
    pub fn play(&mut self, mv: Move) -> Result<(), SeatError> {
        if self.turn.take().is_some_and(|turn| turn.answer(Some(mv))) {
            Ok(())
        } else {
            Err(SeatError::Withdrawn)
        }
    }

    /// Asks to take back the person's last move: two plies back on their turn, one on the
    /// opponent's. Returns the ply asked for.
    ///
    /// # Errors
    /// No game, or no move of theirs yet.
    pub fn take_back(&mut self) -> Result<usize, SeatError> {
        if !self.in_game {
            return Err(SeatError::NoGame);
        }
        let back = if self.current_turn().is_some() { 2 } else { 1 };
        let ply = self
            .ply
            .checked_sub(back)
            .ok_or(SeatError::NothingToTakeBack)?;
        self.control.take_back(ply);
        Ok(ply)
    }

    /// Ends the game with `reason` (giving up, claiming a draw) on the person's turn.
    ///
    /// # Errors
    /// No game is running.
    pub fn end(&mut self, reason: EndReason) -> Result<(), SeatError> {
        if !self.in_game {
            return Err(SeatError::NoGame);
        }
        self.control.end_game(reason);
        Ok(())
    }

    /// Answers the peer's take-back request.
    ///
    /// # Errors
    /// None is waiting.
    pub fn answer_take_back(&mut self, accept: bool) -> Result<(), SeatError> {
        if !std::mem::take(&mut self.take_back_asked) {
            return Err(SeatError::NothingAsked);
        }
        self.control.answer_take_back(accept);
        Ok(())
    }

    /// Sends a chat to the peer.
    pub fn chat(&self, text: &str) {
        self.control.chat(text);
    }

    /// Ends the game on the person's turn and stops the session.
    pub fn stop(&self) {
        self.control.stop();
    }

    fn no_turn(&self) -> SeatError {
        if self.in_game {
            SeatError::NotYourTurn
        } else {
            SeatError::NoGame
        }
    }
}

#[cfg(test)]
mod tests {
    use std::thread;
    use std::time::Duration;

    use crossbeam_channel::unbounded;
    use damx_rules::{Color, Game};

    use super::*;
    use crate::player::{ClockState, GameInfo, Player, StopSignal};

    fn started(start: Position) -> Event {
        Event::GameStarted(GameInfo {
            number: 1,
            role: Role::Initiator,
            our_name: "person".into(),
            peer_name: "peer".into(),
            our_color: start.side_to_move(),
            minutes: 0,
            move_limit: None,
            start,
        })
    }

    /// Asks a [`ChannelPlayer`] for a move on its own thread; the seat answers it.
    fn ask(seat: &mut Seat, game: Game) -> std::thread::JoinHandle<Option<Move>> {
        let (mut player, requests) = ChannelPlayer::new("person");
        let asking = std::thread::spawn(move || {
            player.choose_move(&game, &ClockState::default(), &StopSignal::default())
        });
        let request = requests.recv_timeout(Duration::from_secs(5)).unwrap();
        seat.turn(request);
        asking
    }

    /// A move typed on the person's turn is played; an ambiguous capture waits for a
    /// number; out of turn, and between games, nothing is played and the person is told why.
    #[test]
    fn moves_are_played_on_the_persons_turn() {
        let (control, commands) = Control::new();
        let mut seat = Seat::new(control);
        assert_eq!(seat.play_text("32-28"), Err(SeatError::NoGame));
        seat.event(&started(Position::initial()));
        assert_eq!(seat.play_text("32-28"), Err(SeatError::NotYourTurn));

        let asking = ask(&mut seat, Game::new(Position::initial()));
        assert!(matches!(seat.play_text("32-29"), Err(SeatError::Move(_))));
        let played = seat.play_text("32-28").unwrap();
        assert_eq!(asking.join().unwrap(), Some(played));
        assert_eq!(seat.play_text("33-29"), Err(SeatError::NotYourTurn));
        assert_eq!(seat.play(played), Err(SeatError::Withdrawn));

        let position: Position = "W:WK49:B11,13,17,32".parse().unwrap();
        seat.event(&started(position));
        let asking = ask(&mut seat, Game::new(position));
        let Err(SeatError::Ambiguous(candidates)) = seat.play_text("49x19") else {
            panic!("two captures fit");
        };
        assert_eq!(candidates.len(), 2);
        assert_eq!(seat.choose(3), Err(SeatError::NoSuchChoice));
        let chosen = seat.choose(2).unwrap();
        assert_eq!(asking.join().unwrap(), Some(chosen));
        assert!(commands.try_recv().is_err());
    }

    /// A take-back asks for the ply before the person's last move: two plies back on their
    /// turn, one on the opponent's; the peer's request is answered once.
    #[test]
    fn take_backs_go_back_to_the_persons_last_move() {
        let (control, commands) = Control::new();
        let mut seat = Seat::new(control);
        assert_eq!(seat.take_back(), Err(SeatError::NoGame));
        seat.event(&started(Position::initial()));
        assert_eq!(seat.take_back(), Err(SeatError::NothingToTakeBack));
        let mut game = Game::new(Position::initial());
        for text in ["32-28", "19-23"] {
            let mv = game.position().parse_move(text).unwrap();
            game.play(mv);
        }
        let asking = ask(&mut seat, game);
        assert_eq!(seat.take_back(), Ok(0));
        assert_eq!(commands.try_recv(), Ok(Command::TakeBack { ply: 0 }));
        // The capture is compulsory.
        let played = seat.play_text("28x19").unwrap();
        assert_eq!(asking.join().unwrap(), Some(played));

        assert_eq!(seat.answer_take_back(true), Err(SeatError::NothingAsked));
        seat.event(&Event::TakeBackRequested {
            number: 1,
            ply: 0,
            move_number: 1,
            color: Color::White,
        });
        assert!(seat.take_back_asked());
        assert_eq!(seat.answer_take_back(false), Ok(()));
        assert_eq!(commands.try_recv(), Ok(Command::AnswerTakeBack(false)));
        assert!(!seat.take_back_asked());
    }

    /// What a typed line gets: the help, the board, the legal moves, why a move is refused
    /// (then the prompt again), the numbered captures an ambiguous text fits and the one
    /// chosen, a take-back asked for, the peer's request answered, a chat, quitting.
    #[test]
    fn typed_lines_get_their_replies() {
        let (control, commands) = Control::new();
        let mut seat = Seat::new(control);
        let text = |reply: Reply| reply.text.unwrap_or_default();
        assert_eq!(seat.respond("  "), Reply::default());
        assert_eq!(seat.respond("help").text.as_deref(), Some(HELP));
        assert_eq!(text(seat.respond("resign")), "no game is running");
        let start = Position::initial();
        seat.event(&started(start));
        let not_yet = "it is not your turn: `help` lists the commands";
        assert_eq!(text(seat.respond("32-28")), not_yet);
        assert!(seat.prompt().is_none());

        let asking = ask(&mut seat, Game::new(start));
        assert_eq!(seat.prompt().as_deref(), Some("your move (white):"));
        let board = text(seat.respond("board"));
        assert!(
            board.contains("46") && board.ends_with(&start.to_fen()),
            "{board}"
        );
        let moves = text(seat.respond("moves"));
        assert_eq!(moves.split_whitespace().count(), 2 + 9, "{moves}");
        let refused = seat.respond("32-29");
        assert!(refused.prompt && text(refused).contains("\"32-29\""));
        assert_eq!(seat.respond("chat good luck"), Reply::default());
        assert_eq!(commands.try_recv(), Ok(Command::Chat("good luck".into())));
        assert_eq!(seat.respond("32-28"), Reply::default());
        assert!(asking.join().unwrap().is_some());
        let mv = start.parse_move("32-28").unwrap();
        seat.event(&Event::MovePlayed(crate::event::MovePlayed {
            number: 1,
            ply: 1,
            by: crate::event::Side::Us,
            color: Color::White,
            mv,
            text: "32-28".into(),
            seconds: 0,
            time: Duration::ZERO,
            position: start.play(&mv),
        }));
        assert_eq!(text(seat.respond("undo")), "asking to take back to ply 0");
        assert_eq!(commands.try_recv(), Ok(Command::TakeBack { ply: 0 }));
        let request = Event::TakeBackRequested {
            number: 1,
            ply: 0,
            move_number: 1,
            color: Color::White,
        };
        assert_eq!(
            seat.event(&request),
            Some("accept the take-back? (yes or no)")
        );
        assert_eq!(seat.respond("yes"), Reply::default());
        assert_eq!(commands.try_recv(), Ok(Command::AnswerTakeBack(true)));

        // White's king on 16 reaches 2 over 32, 33 and 8, or over 32, 34 and 8.
        let position: Position = "W:WK16,25:B8,32,33,34,45".parse().unwrap();
        seat.event(&started(position));
        let asking = ask(&mut seat, Game::new(position));
        assert_eq!(
            text(seat.respond("16x2")),
            "16x2 fits 2 captures:\n  1) 16x38x24x2 (captures 8,32,33)\n  \
             2) 16x43x30x2 (captures 8,32,34)\nwhich one? (type its number)"
        );
        assert_eq!(text(seat.respond("3")), "type one of the numbers listed");
        assert_eq!(seat.respond("2"), Reply::default());
        let chosen = asking.join().unwrap().unwrap();
        assert_eq!(position.move_text(&chosen), "16x43x30x2");
        assert_eq!(
            text(seat.respond("quit")),
            "stopping: the game ends on your turn"
        );
        assert_eq!(commands.try_recv(), Ok(Command::Stop));
        assert_eq!(seat.respond("draw"), Reply::default());
        assert_eq!(commands.try_recv(), Ok(Command::EndGame(EndReason::Draw)));
    }

    /// A text front end shows the events, the prompt on the person's turn and the replies to
    /// what they type, and plays their move; the end of their input stops the session.
    #[test]
    fn a_text_front_end_converses() {
        let (control, commands) = Control::new();
        let mut seat = Seat::new(control);
        let (events_tx, events) = unbounded();
        let (lines_tx, lines) = unbounded();
        let (mut player, turns) = ChannelPlayer::new("person");
        events_tx.send(started(Position::initial())).unwrap();
        let asking = thread::spawn(move || {
            let game = Game::new(Position::initial());
            player.choose_move(&game, &ClockState::default(), &StopSignal::default())
        });
        // The session ends once it is told to stop.
        let stopping = thread::spawn(move || {
            let stop = commands.recv_timeout(Duration::from_secs(10));
            drop(events_tx);
            stop
        });
        let (mut lines_tx, mut shown) = (Some(lines_tx), Vec::new());
        seat.converse(&events, turns, lines, &mut |what| {
            shown.push(match what {
                Shown::Event(_) => "an event".to_owned(),
                Shown::Text(text) => text.to_owned(),
            });
            if let Shown::Text("your move (white):") = what
                && let Some(lines) = lines_tx.take()
            {
                lines.send("help".into()).unwrap();
                lines.send("32-28".into()).unwrap();
            }
            true
        });
        let expected = [
            "an event",
            "your move (white):",
            HELP,
            "end of input: stopping",
        ];
        assert_eq!(shown, expected);
        let played = asking.join().unwrap().unwrap();
        assert_eq!(Position::initial().move_text(&played), "32-28");
        assert_eq!(stopping.join().unwrap(), Ok(Command::Stop));
    }

    /// A script's lines wait for the person's turns: a move written before the game starts is
    /// played when the first turn comes (at a terminal it would be refused: no game yet), and
    /// the end of the script stops the session at the next turn.
    #[test]
    fn a_script_plays_its_moves_in_turn() {
        let (control, commands) = Control::new();
        let mut seat = Seat::new(control).scripted();
        let (events_tx, events) = unbounded();
        let (lines_tx, lines) = unbounded();
        lines_tx.send("32-28".into()).unwrap();
        drop(lines_tx);
        let (mut player, turns) = ChannelPlayer::new("person");
        let asking = thread::spawn(move || {
            // The game starts a little after the script was read.
            thread::sleep(Duration::from_millis(50));
            events_tx.send(started(Position::initial())).unwrap();
            let mut game = Game::new(Position::initial());
            let first = player.choose_move(&game, &ClockState::default(), &StopSignal::default());
            game.play(first.unwrap());
            let reply = game.position().parse_move("19-23").unwrap();
            game.play(reply);
            let stop = StopSignal::default();
            let asked = thread::scope(|scope| {
                let second =
                    scope.spawn(|| player.choose_move(&game, &ClockState::default(), &stop));
                // The seat is told to stop at the second turn, for the script has ended.
                let told = commands.recv_timeout(Duration::from_secs(10));
                stop.stop();
                let _ = second.join();
                told
            });
            drop(events_tx);
            (first, asked)
        });
        let mut shown = Vec::new();
        seat.converse(&events, turns, lines, &mut |what| {
            if let Shown::Text(text) = what {
                shown.push(text.to_owned());
            }
            true
        });
        let (first, told) = asking.join().unwrap();
        assert_eq!(Position::initial().move_text(&first.unwrap()), "32-28");
        assert_eq!(told, Ok(Command::Stop));
        assert_eq!(
            shown,
            [
                "your move (white):",
                "your move (white):",
                "end of input: stopping"
            ]
        );
    }

    /// A person's name is the one given, else the user's, else `player`.
    #[test]
    fn a_person_is_named() {
        assert_eq!(person_name(Some("Ann".into())), "Ann");
        let user = std::env::var("USER")
            .ok()
            .filter(|user| !user.trim().is_empty());
        assert_eq!(person_name(None), user.unwrap_or_else(|| "player".into()));
    }

    /// A person's session is named; it asks for the games as the plan says, from the start
    /// given, unless the person is the Follower.
    #[test]
    fn a_persons_session_follows_the_opponent() {
        use crate::config::{RoleConfig, SeriesColors};
        let plan = SeriesPlan {
            games: 2,
            minutes: 60,
            move_limit: 0,
            colors: SeriesColors::Fixed(Color::Black),
        };
        let start = Position::from_fen_or_startpos("W:W31-48:B3-20").unwrap();
        let named = SessionConfig {
            name: Some("Ann".into()),
            ..SessionConfig::default()
        };
        let engine = Opponent::Engine(Box::default());
        let session = engine.person_session(named.clone(), &plan, Some(start));
        assert_eq!(session.name.as_deref(), Some("Ann"));
        let (RoleConfig::Initiator(ours), RoleConfig::Initiator(planned)) =
            (session.role, plan.role(&[start]))
        else {
            panic!("the person initiates against the engine");
        };
        assert_eq!(ours, planned);
        let program = |role| Opponent::Program {
            endpoint: Endpoint::Connect("127.0.0.1:27531".parse().unwrap()),
            role,
        };
        let follower = program(Role::Follower).person_session(named.clone(), &plan, Some(start));
        assert!(matches!(follower.role, RoleConfig::Follower(_)));
        let initiator = program(Role::Initiator).person_session(named, &plan, None);
        assert!(matches!(initiator.role, RoleConfig::Initiator(_)));
    }

    /// Typed lines come without their line ends, the last one without a line end too, and the
    /// channel closes at the end of the input.
    #[test]
    fn typed_lines_come_one_by_one_until_the_input_ends() {
        let typed = typed_lines(std::io::Cursor::new("32-28\r\nhelp\n\nresign"));
        let lines: Vec<String> = typed.iter().collect();
        assert_eq!(lines, ["32-28", "help", "", "resign"]);
    }

    /// A line that is not UTF-8 is read with its bad bytes replaced, not taken for the end of
    /// the input; a line past the bound comes as one replacement character more than the bound
    /// (and is refused by `respond`), the next line as usual.
    #[test]
    fn typed_lines_survive_bad_bytes_and_endless_lines() {
        let mut input = b"chat \xe9t\xe9\n".to_vec();
        input.extend(std::iter::repeat_n(b'a', 5 * MAX_TYPED_LINE));
        input.extend_from_slice(b"\r\n32-28\n");
        let lines: Vec<String> = typed_lines(std::io::Cursor::new(input)).iter().collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0], "chat \u{fffd}t\u{fffd}");
        assert_eq!(lines[1].chars().count(), MAX_TYPED_LINE + 1);
        assert_eq!(lines[2], "32-28");

        let (control, _commands) = Control::new();
        let reply = Seat::new(control).respond(&lines[1]);
        assert!(reply.prompt);
        assert!(reply.text.unwrap().contains("too long"));
    }

    /// A person plays the built-in engine in a real DXP game over 127.0.0.1: the move typed
    /// is played, the engine answers, a take-back of it is asked for and granted, and
    /// resigning ends the game given up; both sides report.
    #[test]
    fn a_person_plays_the_built_in_engine() {
        use crate::config::InitiatorConfig;
        use crossbeam_channel::{after, never, select};
        use damx_engine::{EngineOptions, Limits};

        let (person, turns) = ChannelPlayer::new("person");
        let (control, commands) = Control::new();
        let (events_tx, events) = unbounded();
        let series = InitiatorConfig::series(1, Color::White, 0, 0, &[]);
        let mut session = SessionConfig::initiator(series);
        session.frame_gap = Duration::ZERO;
        let opponent = Opponent::Engine(Box::new(EnginePlayerOptions {
            engine: EngineOptions {
                hash_mb: 4,
                ..EngineOptions::default()
            },
            fixed: Some(Limits::depth(1)),
            ..EnginePlayerOptions::default()
        }));
        assert!(opponent.person_initiates());
        let playing =
            thread::spawn(move || play_person(&opponent, &session, person, commands, events_tx));
        let mut seat = Seat::new(control);
        let typed = [
            ("32-28", None),
            ("undo", Some("asking to take back to ply 0")),
        ];
        let (mut typed, mut turns) = (typed.into_iter().chain([("resign", None)]), turns);
        let mut taken_back = false;
        let (mut over, deadline) = (None, after(Duration::from_secs(30)));
        loop {
            select! {
                recv(events) -> event => match event {
                    Ok(Event::GameOver(record)) => over = Some(record),
                    Ok(event) => {
                        taken_back |= matches!(event, Event::TakeBackDone { ply: 0, .. });
                        seat.event(&event);
                    }
                    Err(_) => break,
                },
                recv(turns) -> turn => match turn {
                    Ok(turn) => {
                        while let Ok(event) = events.try_recv() {
                            taken_back |= matches!(event, Event::TakeBackDone { ply: 0, .. });
                            seat.event(&event);
                        }
                        seat.turn(turn);
                        let (line, says) = typed.next().unwrap();
                        assert_eq!(seat.respond(line).text.as_deref(), says);
                    }
                    Err(_) => turns = never(),
                },
                recv(deadline) -> _ => panic!("the game did not end"),
            }
        }
        let reports = playing.join().unwrap().unwrap();
        assert_eq!(reports.len(), 2);
        let record = over.expect("the game ended");
        assert!(taken_back && record.moves.is_empty(), "{:?}", record.moves);
        assert_eq!(record.termination.to_string(), "white gave up");
    }

    /// Lines read as wishes: the words in any case, `chat` only with a text, numbers and
    /// yes/no only while a choice or an answer waits, anything else a move.
    #[test]
    fn lines_are_read_as_wishes() {
        let (control, _commands) = Control::new();
        let mut seat = Seat::new(control);
        for (line, wish) in [
            ("help", Wish::Help),
            ("?", Wish::Help),
            ("Board", Wish::Board),
            ("moves", Wish::Moves),
            ("takeback", Wish::TakeBack),
            ("UNDO", Wish::TakeBack),
            ("chat good  luck", Wish::Chat("good  luck")),
            ("chat", Wish::Move("chat")),
            ("resign", Wish::Resign),
            ("draw", Wish::Draw),
            ("exit", Wish::Quit),
            ("yes", Wish::Move("yes")),
            ("2", Wish::Move("2")),
            ("32-28", Wish::Move("32-28")),
        ] {
            assert_eq!(Wish::read(line, &seat), wish, "{line}");
        }
        seat.event(&Event::TakeBackRequested {
            number: 1,
            ply: 0,
            move_number: 1,
            color: Color::White,
        });
        assert_eq!(Wish::read("y", &seat), Wish::Answer(true));
        assert_eq!(Wish::read("decline", &seat), Wish::Answer(false));
        seat.choice = Position::initial().legal_moves().iter().copied().collect();
        assert_eq!(Wish::read("2", &seat), Wish::Choose(2));
    }
}

//! The DXP dialogue as a state machine without I/O (dxp.md §3).
//!
//! [`PlayerMachine::handle`] takes an [`Input`] (a message or a bad frame from the peer, the end of
//! the connection, a move chosen by our player, a user's [`Command`], or a [`Input::Tick`] of
//! the clock) and the current time, and returns the [`Output`]s to carry out in order: messages
//! to send, a move to think about, a thinking to stop, events for the user, and the close of
//! the connection. It never reads a clock, never blocks and never fails; time comes in as
//! `now`, and [`PlayerMachine::next_deadline`] says when the next [`Input::Tick`] is due.
//!
//! # States
//!
//! ```text
//! Initiator: AwaitingGameAcc --A0--> playing --E handshake--> AwaitingGameAcc (next R) or Closed
//!                            --A2--> AwaitingGameAcc (next game of the plan) or Closed
//!                            --A1/A3--> Closed
//! Follower:  AwaitingGameReq --R, A0--> playing --E handshake--> AwaitingGameReq or Closed
//! playing:   OurTurn <--MOVE--> TheirTurn; our E --> AwaitingEndAck --E--> (next)
//!                                          their E --> we answer E --> (next)
//! ```
//!
//! # Decisions (where the spec leaves room or assumes a correct peer)
//!
//! What DXP allows is the [`Observer`]'s: the machine feeds it every message it sends and
//! receives; it holds the game and whose turn it is, and says what a message means or which
//! rule it breaks. What follows is the player's policy on top.
//!
//! - **Ending a game.** On our turn we send GAMEEND instead of a MOVE when we have no legal
//!   move (reason `1`), a draw rule applied at any position since the last take-back (reason
//!   `2`; so a peer that plays on past a draw still gets the draw), the opponent's clock as we
//!   measure it is past its time by more than the grace (reason `0`), each side has made the
//!   game's number of moves (reason `0`), the user asked (the user's reason), or the user asked
//!   to stop (reason `0`, stop code `1`). A request that comes while it is not our turn waits
//!   for our turn.
//! - **Stop codes.** Ours is `1` when the user asked to stop, the Initiator has no game left to
//!   ask for, or the Follower has played its maximum. After a handshake with a `1` the
//!   connection is closed.
//! - **The acknowledgement.** Any GAMEEND after ours is its acknowledgement, whatever its reason
//!   (pydraughts repeats ours). A Follower that gets a GAMEREQ instead (GWD does not
//!   acknowledge) takes it as the acknowledgement and answers the request. No acknowledgement
//!   within the reply time-out: reported, and the session goes on as if it had come.
//! - **A GAMEEND on our turn** (pydraughts' `quit()` sends one at any time) ends the game all
//!   the same: the spec says the receiver has no choice. It is reported as a violation, not
//!   told.
//! - **Results** are the dialogue's ([`rules_ending`], else [`claim_ending`]); for a GAMEEND
//!   with reason `0`, the side whose clock ran out lost, else unfinished (`*`, with "move
//!   limit reached" when it was).
//! - **The Follower's answers.** Version other than `01`: `A…1`. Configured to refuse all:
//!   `A…3`. A start the rules refuse, one without a legal move, or one the configured filter
//!   refuses: `A…2`. Anything else, thinking time `000` included: `A…0`. A GAMEREQ during a
//!   game is answered `A…2` and the game goes on (Moby Dam does this).
//! - **The Initiator's refusals.** `A…2`: on to the next game of the plan. `A…1`, `A…3`: the
//!   session closes.
//! - **Take-backs.** With [`TakeBackPolicy::Accept`] the peer's BACKREQ is accepted (`K0`) when
//!   its position is in the game (0 <= ply <= moves played; equal is a no-op), else declined
//!   (`K2`); thinking stops, and whoever is to move there moves next. Our own BACKREQ (on
//!   command) holds back our moves until the answer: `K0` restores the position, `K1`/`K2` (or
//!   no answer within the reply time-out) let the game go on; after the time-out the request
//!   is withdrawn, so a late `K0` answers nothing and is reported. A MOVE that crosses our
//!   BACKREQ is applied normally first. During our GAMEEND handshake a BACKREQ gets `K2`.
//! - **What the spec does not allow.** An illegal MOVE, a MOVE out of turn, or a frame that
//!   does not decode during a game: reported with its raw bytes, told by CHAT, and the game
//!   ends with our GAMEEND (reason `0`), the offender losing; a harmless frame or a broken CHAT
//!   ([`frame_fault`]) ends nothing, and only the broken CHAT is told. Between games and during
//!   a handshake, anything out of place is reported, told and ignored; a stray GAMEEND between
//!   games (DXC100 sends one) is tolerated, not told and not counted against the peer. A peer
//!   silent past its time (its remaining time plus the grace; without a clock,
//!   [`Timeouts::peer_move`], if set) gets a GAMEEND with stop code `1` and the connection
//!   closes; it loses the game. The connection lost during a game: the record says so, with
//!   the rules' verdict if there is one.
//! - **Our player** returning no move gives up (reason `1`); returning an illegal move is
//!   reported and also gives up. Its move goes out with the whole seconds of our turn.
//!
//! [`Timeouts::peer_move`]: crate::Timeouts::peer_move
//! [`rules_ending`]: crate::dialogue::Observer::rules_ending
//! [`claim_ending`]: crate::dialogue::claim_ending
//! [`frame_fault`]: crate::dialogue::frame_fault

use std::time::{Duration, Instant};

use damx_rules::{Color, Game, GameResult, Move, Position};
use damx_wire::{
    AcceptCode, BackAcc, BackAccCode, BackReq, Chat, EndReason, GameAcc, GameReq, MAX_CHAT_LEN,
    Message, Name, ProtocolVersion, RawBytes, StreamError,
};

use crate::config::{Role, RoleConfig, SessionConfig, Timeouts};
use crate::convert::{back_request_for_ply, move_to_wire, start_position};
use crate::dialogue::{
    Clock, FrameFault, Meaning, NoiseMeter, Observed, Observer, PEER, Rule, SEND_AWAY, US,
    claim_ending, claim_reason, frame_fault, game_answer, game_end, game_request, is_noise,
};
use crate::event::{CloseReason, Command, Event, MovePlayed, Side, Violation, ViolationAction};
use crate::player::{ClockState, GameInfo, TakeBackPolicy};
use crate::record::{GameRecord, Termination, win};

/// What the connection delivers: a message, a frame that is not one, or the end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Incoming {
    /// A decoded message.
    Message(Message),
    /// A frame that is not a message, with its raw bytes.
    Bad(StreamError),
    /// The peer closed the connection (end of stream).
    Closed,
    /// Reading or writing failed.
    Failed(String),
}

impl Incoming {
    /// Whether it counts against the [`NoiseBudget`](crate::NoiseBudget): a frame that is not a
    /// message, or a message that is noise.
    pub(crate) fn is_noise(&self) -> bool {
        match self {
            Incoming::Bad(_) => true,
            Incoming::Message(message) => is_noise(message),
            Incoming::Closed | Incoming::Failed(_) => false,
        }
    }
}

/// One input of the machine.
#[derive(Clone, Debug, PartialEq)]
pub enum Input {
    /// Something from the connection.
    Peer(Incoming),
    /// Our player's answer to [`Output::StartThinking`] with this ticket.
    MoveChosen {
        /// The ticket of the request.
        ticket: u64,
        /// The move, or `None` to give up.
        mv: Option<Move>,
    },
    /// The user's command.
    Command(Command),
    /// Our MOVE frame was written to the peer at this instant ([`Connection::moves_sent`]):
    /// the peer's turn starts then, and the time our move waited behind other frames is ours.
    ///
    /// [`Connection::moves_sent`]: crate::Connection::moves_sent
    MoveSent {
        /// When it was written.
        at: Instant,
    },
    /// Time passed: check the deadlines.
    Tick,
}

/// A request to our player: choose a move at the end of `game`.
#[derive(Clone, Debug)]
pub struct ThinkRequest {
    /// Identifies the answer ([`Input::MoveChosen`]); answers to older tickets are ignored.
    pub ticket: u64,
    /// The game so far.
    pub game: Game,
    /// The clocks.
    pub clock: ClockState,
}

/// One thing for the driver to do.
#[derive(Clone, Debug)]
pub enum Output {
    /// Send this message.
    Send(Message),
    /// Tell our player a game starts.
    NewGame(GameInfo),
    /// Ask our player for a move.
    StartThinking(ThinkRequest),
    /// Stop our player's current thinking (its answer will be ignored).
    StopThinking,
    /// Tell the user.
    Event(Event),
    /// Close the connection (after sending what was queued).
    Close,
}

/// The outputs of one step, in order.
type Out = Vec<Output>;

/// How a game ended: its result, and why.
type Ending = (GameResult, Termination);

/// Where the dialogue stands, for display and tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PhaseKind {
    /// [`PlayerMachine::start`] has not been called.
    NotStarted,
    /// The Initiator waits for GAMEACC.
    AwaitingGameAcc,
    /// The Follower waits for GAMEREQ.
    AwaitingGameReq,
    /// A game runs and we are to move.
    OurTurn,
    /// A game runs and the peer is to move.
    TheirTurn,
    /// We sent the first GAMEEND and wait for its acknowledgement.
    AwaitingEndAck,
    /// The session is over.
    Closed,
}

/// A running game.
#[derive(Clone, Debug)]
struct Play {
    info: GameInfo,
    /// Seconds per move (ply), as we measured them.
    seconds: Vec<u16>,
    /// Both sides' thinking time.
    clock: Clock,
    /// The ticket of our player's current thinking.
    thinking: Option<u64>,
    /// When the answer to our BACKREQ is due.
    our_backreq: Option<Instant>,
    /// When the user's answer to the peer's BACKREQ is due.
    peer_backreq: Option<Instant>,
    /// A GAMEEND the user asked for while it was not our turn.
    pending_end: Option<EndReason>,
    /// When the peer's move is due, on its turn.
    peer_deadline: Option<Instant>,
}

impl Play {
    fn new(info: GameInfo, grace: Duration, now: Instant) -> Play {
        Play {
            clock: Clock::new(info.time_per_player(), grace, now),
            info,
            seconds: Vec::new(),
            thinking: None,
            our_backreq: None,
            peer_backreq: None,
            pending_end: None,
            peer_deadline: None,
        }
    }

    fn our_color(&self) -> Color {
        self.info.our_color
    }

    fn their_color(&self) -> Color {
        !self.info.our_color
    }

    /// When the peer's move is due if its turn starts at `since`: its clock and the grace, or
    /// the move time-out without a clock.
    fn peer_deadline(&self, timeouts: &Timeouts, since: Instant) -> Option<Instant> {
        match self.clock.remaining(self.their_color()) {
            Some(left) => Some(since + left + timeouts.clock_grace),
            None => timeouts.peer_move.map(|limit| since + limit),
        }
    }

    fn clock_state(&self, game: &Game) -> ClockState {
        // The moves we made: half the plies, rounded up when we moved first.
        let first = u32::from(game.start().side_to_move() == self.our_color());
        let our_moves_made = (game.ply() as u32 + first) / 2;
        let to_go = |limit: u16| u32::from(limit).saturating_sub(our_moves_made).max(1);
        ClockState {
            our_remaining: self.clock.remaining(self.our_color()),
            their_remaining: self.clock.remaining(self.their_color()),
            our_moves_to_go: (self.info.move_limit).map(to_go),
        }
    }

    fn limit_reached(&self, game: &Game) -> bool {
        (self.info.move_limit).is_some_and(|limit| game.ply() >= 2 * usize::from(limit))
    }

    fn record(&self, game: &Game, result: GameResult, termination: Termination) -> GameRecord {
        GameRecord {
            number: self.info.number,
            role: self.info.role,
            white: self.info.name_of(Color::White).to_owned(),
            black: self.info.name_of(Color::Black).to_owned(),
            our_color: self.info.our_color,
            minutes: self.info.minutes,
            move_limit: self.info.move_limit,
            start: *game.start(),
            moves: game.moves().to_vec(),
            seconds: self.seconds.clone(),
            result,
            termination,
            site: None,
            date: None,
        }
    }
}

/// The DXP dialogue of one connection, for either role. See the module documentation.
#[derive(Debug)]
pub struct PlayerMachine {
    role: RoleConfig,
    timeouts: Timeouts,
    end_at_move_limit: bool,
    end_on_time: bool,
    name: Name,
    policy: TakeBackPolicy,
    started: bool,
    /// The running game, also while our GAMEEND waits for its acknowledgement.
    play: Option<Play>,
    /// When the GAMEACC, the GAMEREQ or the acknowledgement of our GAMEEND is due.
    deadline: Option<Instant>,
    /// Games started so far (the number of the last one).
    games_started: u32,
    /// The Initiator's next entry of its plan.
    next_request: usize,
    /// The user asked to stop.
    want_stop: bool,
    next_ticket: u64,
    close_reason: Option<CloseReason>,
    noise: NoiseMeter,
    /// The dialogue as DXP sees it (we are [`US`], the peer [`PEER`]): its turns, and the
    /// position of the game.
    dialogue: Observer,
}

impl PlayerMachine {
    /// A machine for `config`'s role and settings, sending `name`, answering take-backs with
    /// `policy`. Call [`PlayerMachine::start`] next.
    pub fn new(config: &SessionConfig, name: Name, policy: TakeBackPolicy) -> PlayerMachine {
        let initiator = match config.role.role() {
            Role::Initiator => US,
            Role::Follower => PEER,
        };
        PlayerMachine {
            role: config.role.clone(),
            timeouts: config.timeouts,
            end_at_move_limit: config.end_at_move_limit,
            end_on_time: config.end_on_time,
            name,
            policy,
            started: false,
            play: None,
            deadline: None,
            games_started: 0,
            next_request: 0,
            want_stop: false,
            next_ticket: 0,
            close_reason: None,
            noise: NoiseMeter::new(config.noise),
            dialogue: Observer::with_initiator(initiator),
        }
    }

    /// Starts the dialogue once connected: the Initiator sends its first GAMEREQ, the Follower
    /// starts waiting for one.
    pub fn start(&mut self, now: Instant) -> Vec<Output> {
        let mut out = Vec::new();
        if !std::mem::replace(&mut self.started, true) && !self.is_closed() {
            match self.role.role() {
                Role::Initiator => self.request_next(now, &mut out),
                Role::Follower => self.deadline = Some(now + self.timeouts.first_request),
            }
        }
        out
    }

    /// Handles one input at time `now`; returns what to do, in order.
    pub fn handle(&mut self, now: Instant, input: Input) -> Vec<Output> {
        let mut out = Vec::new();
        if self.is_closed() {
            return out;
        }
        match input {
            Input::Peer(incoming) => self.on_incoming(now, incoming, &mut out),
            Input::MoveChosen { ticket, mv } => self.on_move_chosen(now, ticket, mv, &mut out),
            Input::Command(command) => self.on_command(now, command, &mut out),
            Input::MoveSent { at } => self.on_move_sent(at),
            Input::Tick => self.on_tick(now, &mut out),
        }
        out
    }

    /// When the next [`Input::Tick`] is due, if a deadline is running.
    pub fn next_deadline(&self) -> Option<Instant> {
        match (&self.play, self.phase()) {
            (_, PhaseKind::NotStarted | PhaseKind::Closed) => None,
            (Some(play), PhaseKind::OurTurn | PhaseKind::TheirTurn) => {
                [play.peer_deadline, play.our_backreq, play.peer_backreq]
                    .into_iter()
                    .flatten()
                    .min()
            }
            _ => self.deadline,
        }
    }

    /// Where the dialogue stands: the dialogue's turn while a game runs, else the role's wait.
    pub fn phase(&self) -> PhaseKind {
        match (&self.play, self.dialogue.to_move()) {
            _ if self.is_closed() => PhaseKind::Closed,
            _ if !self.started => PhaseKind::NotStarted,
            (Some(_), Some(US)) => PhaseKind::OurTurn,
            (Some(_), Some(_)) => PhaseKind::TheirTurn,
            (Some(_), None) => PhaseKind::AwaitingEndAck,
            (None, _) if self.role.role() == Role::Initiator => PhaseKind::AwaitingGameAcc,
            (None, _) => PhaseKind::AwaitingGameReq,
        }
    }

    /// Whether the session is over (the driver closes the connection).
    pub fn is_closed(&self) -> bool {
        self.close_reason.is_some()
    }

    /// Why the session ended, once it has.
    pub fn close_reason(&self) -> Option<&CloseReason> {
        self.close_reason.as_ref()
    }

    /// The running game (also while its GAMEEND handshake runs).
    pub fn game(&self) -> Option<&Game> {
        self.play.as_ref().map(|_| self.dialogue.current())
    }

    /// The number of games started so far.
    pub fn games_started(&self) -> u32 {
        self.games_started
    }

    /// Whether a game runs (its GAMEEND handshake not begun).
    fn in_game(&self) -> bool {
        self.play.is_some() && self.dialogue.to_move().is_some()
    }

    // ---- the peer ------------------------------------------------------------------------

    fn on_incoming(&mut self, now: Instant, incoming: Incoming, out: &mut Out) {
        let noisy = incoming.is_noise();
        match incoming {
            Incoming::Message(message) => self.on_message(now, message, out),
            Incoming::Bad(error) => self.on_bad_frame(now, error, out),
            Incoming::Closed => self.on_connection_end(CloseReason::PeerClosed, out),
            Incoming::Failed(why) => {
                self.on_connection_end(CloseReason::ConnectionFailed(why), out);
            }
        }
        self.count_noise(now, noisy, out);
    }

    fn on_message(&mut self, now: Instant, message: Message, out: &mut Out) {
        let phase = self.phase();
        let observed = self.dialogue.observe(PEER, &message);
        match (phase, message) {
            (_, Message::Chat(chat)) => {
                out.push(Output::Event(Event::ChatReceived(chat.text().to_owned())));
            }
            (PhaseKind::AwaitingGameAcc, Message::GameAcc(acc)) => {
                self.on_game_acc(now, acc, observed, out);
            }
            (PhaseKind::AwaitingGameReq, Message::GameReq(request)) => {
                self.on_game_req(now, request, out);
            }
            (PhaseKind::OurTurn | PhaseKind::TheirTurn, message) => {
                self.on_game_message(now, message, observed, out);
            }
            (PhaseKind::AwaitingEndAck, message) => self.on_message_while_ending(now, message, out),
            (PhaseKind::AwaitingGameAcc | PhaseKind::AwaitingGameReq, Message::GameEnd(end)) => {
                let (what, raw) = ("GAMEEND between games".to_owned(), raw_of(&end.into()));
                violation(what, raw, false, ViolationAction::Tolerated, out);
            }
            (_, message) => {
                let what = format!("{} out of place", message.kind());
                violation(what, raw_of(&message), true, ViolationAction::Ignored, out);
            }
        }
    }

    fn on_game_message(&mut self, now: Instant, message: Message, seen: Observed, out: &mut Out) {
        let Some(play) = self.play.as_mut() else {
            return;
        };
        let (text, by) = (message.to_string(), play.their_color());
        let breach = (seen.breaches.into_iter().next()).map(|breach| (breach.rule, breach.illegal));
        match (seen.meaning, breach) {
            (Some(Meaning::Moved { before, mv }), _) => {
                let spent = play.clock.charge(by, now);
                self.played(&before, mv, spent, Side::Peer, out);
                self.start_turn(now, out);
            }
            (Some(Meaning::Ended { reason }), out_of_turn) => {
                if out_of_turn.is_some() {
                    let (what, raw) = (
                        "GAMEEND on our turn (accepted)".to_owned(),
                        raw_of(&message),
                    );
                    violation(what, raw, false, ViolationAction::EndedGame, out);
                }
                let (result, termination) = self.verdict(by, reason);
                self.stop_thinking(out);
                self.send(out, self.dialogue.acknowledgement(self.our_stop_code()));
                self.finish_game(result, termination, out);
                self.after_game(now, out);
            }
            (Some(asked @ Meaning::BackRequested { .. }), _) => self.on_back_req(now, asked, out),
            (Some(Meaning::TakenBack { ply, before }), _) => {
                play.our_backreq = None;
                self.take_back(now, ply, before, Side::Us, out);
            }
            (Some(Meaning::BackRefused { code }), _) => self.our_take_back_refused(now, code, out),
            (None, Some((Rule::BadField, _))) if matches!(message, Message::BackAcc(_)) => {
                self.our_take_back_refused(now, BackAccCode::Accepted, out);
            }
            (None, Some((_, Some(error)))) => {
                let (what, why) = (format!("illegal move {text}: {error}"), error.to_string());
                let termination = Termination::IllegalMove { by, raw: text, why };
                self.end_for_breach(now, what, raw_of(&message), termination, out);
            }
            (None, Some((Rule::OutOfTurn, _))) => {
                let what = format!("move {text} out of turn");
                let termination = Termination::OutOfTurn { by, raw: text };
                self.end_for_breach(now, what, raw_of(&message), termination, out);
            }
            _ => self.on_stray_in_game(message, out),
        }
    }

    /// The answer to our BACKREQ that leaves the game as it is (a refusal, or a `K0` to a
    /// position that is not in the game): the game goes on.
    fn our_take_back_refused(&mut self, now: Instant, code: BackAccCode, out: &mut Out) {
        let Some(play) = self.play.as_mut() else {
            return;
        };
        play.our_backreq = None;
        take_back_refused(play.info.number, Side::Us, code, out);
        self.start_turn(now, out);
    }

    /// A message with no place in a running game: answered or ignored, and reported.
    fn on_stray_in_game(&mut self, message: Message, out: &mut Out) {
        let raw = raw_of(&message);
        let (what, told, action) = match message {
            Message::GameReq(_) if self.role.role() == Role::Follower => {
                let (follower, code) = (self.name, AcceptCode::GameNotAcceptable);
                self.send(out, GameAcc { follower, code });
                let what = "GAMEREQ during a game (answered A…2)";
                (what.to_owned(), false, ViolationAction::Answered)
            }
            Message::BackAcc(_) => {
                let what = "BACKACC without a BACKREQ";
                (what.to_owned(), true, ViolationAction::Ignored)
            }
            message => {
                let what = format!("{} during a game", message.kind());
                (what, true, ViolationAction::Ignored)
            }
        };
        violation(what, raw, told, action, out);
    }

    /// The peer broke the rules so that the game cannot go on: reported and told (`what`, with
    /// the frame `raw`), and our GAMEEND ends the game, the peer losing (`termination`).
    fn end_for_breach(
        &mut self,
        now: Instant,
        what: String,
        raw: Option<RawBytes>,
        termination: Termination,
        out: &mut Out,
    ) {
        violation(what, raw, true, ViolationAction::EndedGame, out);
        if let Some(play) = &self.play {
            let verdict = (win(play.our_color()), termination);
            self.end_ours(now, EndReason::NoReason, Some(verdict), out);
        }
    }

    fn on_message_while_ending(&mut self, now: Instant, message: Message, out: &mut Out) {
        let raw = raw_of(&message);
        match message {
            Message::GameEnd(_) => self.after_game(now, out),
            Message::GameReq(request) if self.role.role() == Role::Follower => {
                let what = "GAMEREQ instead of the GAMEEND acknowledgement (taken as one)";
                violation(what.to_owned(), raw, false, ViolationAction::Answered, out);
                self.after_game(now, out);
                if self.phase() == PhaseKind::AwaitingGameReq {
                    self.on_game_req(now, request, out);
                }
            }
            Message::BackReq(_) => {
                let code = BackAccCode::Declined;
                self.send(out, BackAcc { code });
                let what = "BACKREQ after the game ended (declined)".to_owned();
                violation(what, raw, false, ViolationAction::Answered, out);
            }
            message => {
                let what = format!("{} after the game ended", message.kind());
                violation(what, raw, true, ViolationAction::Ignored, out);
            }
        }
    }

    fn on_bad_frame(&mut self, now: Instant, error: StreamError, out: &mut Out) {
        let raw = error.raw();
        let what = format!("unreadable frame: {error}");
        match (frame_fault(&error), &self.play) {
            // A lone NUL carries nothing; a truncated frame comes with the end of the stream.
            (FrameFault::Harmless, _) => {
                violation(what, Some(raw), false, ViolationAction::Ignored, out);
            }
            (FrameFault::Breach, Some(play)) if self.dialogue.to_move().is_some() => {
                let termination = Termination::Undecodable {
                    by: play.their_color(),
                    raw: raw.to_string(),
                    why: error.to_string(),
                };
                self.end_for_breach(now, what, Some(raw), termination, out);
            }
            _ => violation(what, Some(raw), true, ViolationAction::Ignored, out),
        }
    }

    fn on_connection_end(&mut self, reason: CloseReason, out: &mut Out) {
        let reason = match self.phase() {
            PhaseKind::OurTurn | PhaseKind::TheirTurn => {
                self.abandon(Termination::ConnectionLost, out);
                reason
            }
            // We asked to stop: the peer closing instead of acknowledging is fine.
            PhaseKind::AwaitingEndAck if self.our_stop_code() => self.stop_reason(),
            _ => reason,
        };
        self.close(reason, out);
    }

    fn on_game_req(&mut self, now: Instant, request: GameReq, out: &mut Out) {
        let RoleConfig::Follower(config) = &self.role else {
            return;
        };
        let refusal = if request.version != ProtocolVersion::V1 {
            let version = request.version.get();
            let why = format!("protocol version {version:02} is not supported");
            Some((AcceptCode::VersionNotSupported, why))
        } else if !config.accept_games {
            Some((AcceptCode::NoGames, "not accepting games".to_owned()))
        } else if let Err(error) = start_position(&request.start) {
            Some((AcceptCode::GameNotAcceptable, error.to_string()))
        } else if request.minutes.get() > config.max_minutes {
            let most = config.max_minutes;
            let why = format!("games of more than {most} minutes each are not accepted");
            Some((AcceptCode::GameNotAcceptable, why))
        } else if let Some(Err(why)) = config.filter.as_ref().map(|filter| filter(&request)) {
            Some((AcceptCode::GameNotAcceptable, why))
        } else {
            None
        };
        let (code, why) = refusal.unwrap_or((AcceptCode::Accepted, String::new()));
        let observed = self.send(
            out,
            GameAcc {
                follower: self.name,
                code,
            },
        );
        if code == AcceptCode::Accepted {
            return self.begin_game(now, request.initiator, observed, out);
        }
        self.game_refused(Side::Us, code, Some(why), out);
        self.await_request(now);
    }

    fn on_game_acc(&mut self, now: Instant, acc: GameAcc, observed: Observed, out: &mut Out) {
        if acc.code == AcceptCode::Accepted {
            return self.begin_game(now, acc.follower, observed, out);
        }
        self.game_refused(Side::Peer, acc.code, None, out);
        match game_answer(acc.code) {
            (_, true) => self.request_next(now, out),
            (_, false) => self.close(CloseReason::Refused(acc.code), out),
        }
    }

    /// The next game was refused by `by` with `code` (`why`, when we refused it).
    fn game_refused(&self, by: Side, code: AcceptCode, why: Option<String>, out: &mut Out) {
        let number = self.games_started + 1;
        out.push(Output::Event(Event::GameRefused {
            number,
            by,
            code,
            why,
        }));
    }

    /// The peer's BACKREQ, as the dialogue read it (`asked`).
    fn on_back_req(&mut self, now: Instant, asked: Meaning, out: &mut Out) {
        let Meaning::BackRequested {
            move_number,
            color,
            ply,
            in_game,
        } = asked
        else {
            return;
        };
        let Some(play) = self.play.as_mut() else {
            return;
        };
        let number = play.info.number;
        match self.policy {
            TakeBackPolicy::NotSupported => self.refuse_take_back(BackAccCode::NotSupported, out),
            TakeBackPolicy::Decline => self.refuse_take_back(BackAccCode::Declined, out),
            TakeBackPolicy::Accept if in_game => self.grant_take_back(now, out),
            TakeBackPolicy::Ask if in_game && play.peer_backreq.is_none() => {
                play.peer_backreq = Some(now + self.timeouts.take_back_answer);
                out.push(Output::Event(Event::TakeBackRequested {
                    number,
                    ply,
                    move_number,
                    color,
                }));
            }
            TakeBackPolicy::Accept | TakeBackPolicy::Ask => {
                // This K2 answers the peer's latest BACKREQ: none is left for the user.
                play.peer_backreq = None;
                self.refuse_take_back(BackAccCode::Declined, out);
            }
        }
    }

    // ---- our side ------------------------------------------------------------------------

    fn on_move_chosen(&mut self, now: Instant, ticket: u64, mv: Option<Move>, out: &mut Out) {
        let Some(play) = (self.play.as_mut()).filter(|play| play.thinking == Some(ticket)) else {
            return;
        };
        play.thinking = None;
        match mv {
            None => self.end_ours(now, EndReason::GiveUp, None, out),
            Some(mv) if !self.dialogue.current().position().is_legal(&mv) => {
                let why = format!("it chose the illegal move {mv}");
                out.push(Output::Event(Event::PlayerError(why.clone())));
                let by = play.our_color();
                let verdict = (win(!by), Termination::PlayerFailed { by, why });
                self.end_ours(now, EndReason::GiveUp, Some(verdict), out);
            }
            Some(mv) => {
                let spent = play.clock.charge(play.our_color(), now);
                let before = *self.dialogue.current().position();
                self.send(out, move_to_wire(&mv, spent));
                self.played(&before, mv, spent, Side::Us, out);
                self.start_turn(now, out);
            }
        }
    }

    fn on_command(&mut self, now: Instant, command: Command, out: &mut Out) {
        let reject = |why: &str, out: &mut Out| {
            let (command, why) = (command.to_string(), why.to_owned());
            out.push(Output::Event(Event::CommandRejected { command, why }));
        };
        let in_game = self.in_game();
        match &command {
            Command::Chat(text) => {
                let chats = chat_messages(text);
                if chats.is_empty() {
                    reject("nothing to send", out);
                }
                for chat in chats {
                    out.push(Output::Event(Event::ChatSent(chat.text().to_owned())));
                    self.send(out, chat);
                }
            }
            Command::Stop => self.on_stop(now, out),
            Command::Abort => {
                if in_game {
                    self.abandon(Termination::Aborted, out);
                }
                self.close(CloseReason::Aborted, out);
            }
            _ if !in_game => reject("no game is running", out),
            Command::EndGame(reason) if self.our_turn() => self.end_ours(now, *reason, None, out),
            Command::EndGame(reason) => {
                if let Some(play) = self.play.as_mut() {
                    play.pending_end = Some(*reason);
                }
                let (reason, stop) = (*reason, self.our_stop_code());
                out.push(Output::Event(Event::EndPending { reason, stop }));
            }
            Command::TakeBack { ply } => {
                if let Err(why) = self.ask_take_back(now, *ply, out) {
                    reject(why, out);
                }
            }
            Command::AnswerTakeBack(accept) => {
                let Some(play) = self.play.as_mut() else {
                    return;
                };
                match play.peer_backreq.take() {
                    None => reject("no take-back was asked", out),
                    Some(_) if *accept => self.grant_take_back(now, out),
                    Some(_) => self.refuse_take_back(BackAccCode::Declined, out),
                }
            }
        }
    }

    /// The user asked to stop: end the game on our turn, or after it, or close now.
    fn on_stop(&mut self, now: Instant, out: &mut Out) {
        self.want_stop = true;
        match self.phase() {
            PhaseKind::OurTurn => {
                let pending = self.play.as_ref().and_then(|play| play.pending_end);
                self.end_ours(now, pending.unwrap_or(EndReason::NoReason), None, out);
            }
            PhaseKind::TheirTurn | PhaseKind::AwaitingGameAcc => {
                let (reason, stop) = (EndReason::NoReason, true);
                out.push(Output::Event(Event::EndPending { reason, stop }));
            }
            // Our GAMEEND is out; the session closes after its acknowledgement.
            PhaseKind::AwaitingEndAck => {}
            _ => self.close(CloseReason::StopRequested, out),
        }
    }

    /// Sends our BACKREQ for the position at `ply`, holding back our moves until the answer;
    /// or says why not.
    fn ask_take_back(
        &mut self,
        now: Instant,
        ply: usize,
        out: &mut Out,
    ) -> Result<(), &'static str> {
        if matches!(
            self.play,
            Some(Play {
                our_backreq: Some(_),
                ..
            })
        ) {
            return Err("a take-back is already asked");
        }
        let game = self.dialogue.current();
        if ply > game.ply() {
            return Err("that position is not in the game");
        }
        let first = game.start().side_to_move();
        let Some((move_number, to_move)) = back_request_for_ply(first, ply) else {
            return Err("that move number does not fit in a BACKREQ");
        };
        self.send(
            out,
            BackReq {
                move_number,
                to_move,
            },
        );
        if let Some(play) = self.play.as_mut() {
            play.our_backreq = Some(now + self.timeouts.reply);
        }
        self.stop_thinking(out);
        Ok(())
    }

    fn on_tick(&mut self, now: Instant, out: &mut Out) {
        let reply_secs = self.timeouts.reply.as_secs();
        let due = self.deadline.is_some_and(|due| now >= due);
        match self.phase() {
            PhaseKind::AwaitingGameAcc if due => {
                let what = format!("no GAMEACC within {reply_secs} s");
                violation(what, None, true, ViolationAction::Closed, out);
                self.close(CloseReason::PeerSilent, out);
            }
            PhaseKind::AwaitingGameReq if due => {
                let idle = if self.games_started == 0 {
                    self.timeouts.first_request
                } else {
                    self.timeouts.idle
                };
                let what = format!("no GAMEREQ within {} s", idle.as_secs());
                violation(what, None, true, ViolationAction::Closed, out);
                self.close(CloseReason::Idle, out);
            }
            PhaseKind::AwaitingEndAck if due => {
                let what = format!("no GAMEEND acknowledgement within {reply_secs} s");
                violation(what, None, false, ViolationAction::Ignored, out);
                self.after_game(now, out);
            }
            PhaseKind::OurTurn | PhaseKind::TheirTurn => self.tick_game(now, out),
            _ => {}
        }
    }

    fn tick_game(&mut self, now: Instant, out: &mut Out) {
        let their_turn = self.dialogue.to_move() == Some(PEER);
        let Some(play) = self.play.as_mut() else {
            return;
        };
        let due = |deadline: &mut Option<Instant>| deadline.take_if(|due| now >= *due).is_some();
        let (peer_backreq, our_backreq) = (due(&mut play.peer_backreq), due(&mut play.our_backreq));
        if peer_backreq {
            self.refuse_take_back(BackAccCode::Declined, out);
        }
        if our_backreq {
            self.dialogue.withdraw_back_request(US);
            let what = format!("no BACKACC within {} s", self.timeouts.reply.as_secs());
            violation(what, None, true, ViolationAction::Ignored, out);
            return self.start_turn(now, out);
        }
        let Some(play) = self.play.as_mut() else {
            return;
        };
        if !their_turn || play.peer_deadline.is_none_or(|due| now < due) {
            return;
        }
        let waited = now.saturating_duration_since(play.clock.since);
        let their = play.their_color();
        play.clock.charge(their, now);
        let (by, seconds) = (their, waited.as_secs());
        let termination = if play.info.time_per_player().is_some() {
            Termination::TimeForfeit { loser: by }
        } else {
            Termination::Silent { by, seconds }
        };
        let what = format!("no move within {} s", waited.as_secs());
        violation(what, None, true, ViolationAction::Closed, out);
        self.send(out, SEND_AWAY);
        self.finish_game(win(!their), termination, out);
        self.close(CloseReason::PeerSilent, out);
    }

    // ---- noise ---------------------------------------------------------------------------

    /// Counts what the peer's last input cost against the [`NoiseBudget`] (`noisy`, a
    /// violation among `out`, or a game that brought no play: a request we refused, a game
    /// ended before its first move), keeps the CHAT replies within their rate, and ends the
    /// game (GAMEEND, stop code `1`) and the connection once the budget is spent.
    fn count_noise(&mut self, now: Instant, noisy: bool, out: &mut Out) {
        let counted = |output: &&Output| {
            matches!(output, Output::Event(Event::Violation(v))
                if v.action != ViolationAction::Tolerated)
        };
        let violations = out.iter().filter(counted).count() as u32;
        if self.is_closed() {
            return;
        }
        // A stream of refused requests or of move-less games costs answers, records and
        // engine set-ups without any play: as much noise as a stream of chats.
        let playless = out.iter().any(|output| match output {
            Output::Event(Event::GameRefused { by, .. }) => *by == Side::Us,
            Output::Event(Event::GameOver(record)) => record.moves.is_empty(),
            _ => false,
        });
        let within = self.noise.count(now, noisy || playless, violations);
        out.retain(|output| {
            !matches!(output, Output::Send(Message::Chat(_))) || self.noise.reply_allowed(now)
        });
        if within {
            return;
        }
        if self.in_game()
            && let Some(play) = &self.play
        {
            let by = play.their_color();
            self.stop_thinking(out);
            self.send(out, SEND_AWAY);
            self.finish_game(win(!by), Termination::Noise { by }, out);
        }
        let what = self.noise.spent();
        violation(what, None, false, ViolationAction::Closed, out);
        self.close(CloseReason::Noise, out);
    }

    // ---- transitions ---------------------------------------------------------------------

    fn request_next(&mut self, now: Instant, out: &mut Out) {
        if self.want_stop {
            return self.close(CloseReason::StopRequested, out);
        }
        let Some(settings) = self.role.games().get(self.next_request).cloned() else {
            return self.close(CloseReason::SeriesComplete, out);
        };
        self.next_request += 1;
        let request = game_request(
            self.name,
            !settings.our_color,
            settings.minutes,
            settings.move_limit,
            settings.start.as_ref(),
        );
        self.send(out, request);
        let number = self.games_started + 1;
        out.push(Output::Event(Event::GameRequested { number, settings }));
        self.deadline = Some(now + self.timeouts.reply);
    }

    fn await_request(&mut self, now: Instant) {
        self.deadline = Some(now + self.timeouts.idle);
    }

    /// The dialogue started a game with `peer` (`observed`: its meaning) as the GAMEREQ says.
    fn begin_game(&mut self, now: Instant, peer: Name, observed: Observed, out: &mut Out) {
        let meaning = observed.meaning;
        let (Some(Meaning::Started { start, request, .. }), Some(our_color)) =
            (meaning, self.dialogue.color_of(US))
        else {
            return;
        };
        self.games_started += 1;
        let info = GameInfo {
            number: self.games_started,
            role: self.role.role(),
            our_name: self.name.trimmed().to_owned(),
            peer_name: peer.trimmed().to_owned(),
            our_color,
            minutes: request.minutes.get(),
            move_limit: request.move_limit.limit(),
            start,
        };
        out.push(Output::NewGame(info.clone()));
        out.push(Output::Event(Event::GameStarted(info.clone())));
        self.deadline = None;
        self.play = Some(Play::new(info, self.timeouts.clock_grace, now));
        self.start_turn(now, out);
    }

    /// Our move left at `at`: the peer's turn starts then. A note about an earlier move (the
    /// turn has changed since) changes nothing.
    fn on_move_sent(&mut self, at: Instant) {
        let their_turn = self.dialogue.to_move() == Some(PEER);
        if let Some(play) = self.play.as_mut()
            && their_turn
            && at > play.clock.since
        {
            play.clock.charge(play.info.our_color, at);
            play.peer_deadline = play.peer_deadline(&self.timeouts, at);
        }
    }

    /// The side to move changed (or may move again): think, end the game, or wait.
    fn start_turn(&mut self, now: Instant, out: &mut Out) {
        let our_turn = self.our_turn();
        let Some(play) = self.play.as_mut() else {
            return;
        };
        play.peer_deadline = if our_turn {
            None
        } else {
            play.peer_deadline(&self.timeouts, now)
        };
        if !our_turn || play.our_backreq.is_some() || play.thinking.is_some() {
            return;
        }
        if let Some(reason) = self.our_end_reason() {
            return self.end_ours(now, reason, None, out);
        }
        self.next_ticket += 1;
        let (ticket, game) = (self.next_ticket, self.dialogue.current());
        let Some(play) = self.play.as_mut() else {
            return;
        };
        play.thinking = Some(ticket);
        let clock = play.clock_state(game);
        let game = game.clone();
        out.push(Output::StartThinking(ThinkRequest {
            ticket,
            game,
            clock,
        }));
    }

    /// The result of the game ended by `ender`'s GAMEEND with `reason`: the rules', the
    /// GAMEEND's, or for reason `0` a loss on time or the move limit.
    fn verdict(&self, ender: Color, reason: EndReason) -> Ending {
        if let Some(verdict) = self.dialogue.rules_ending() {
            return verdict;
        }
        let (game, play) = (self.dialogue.current(), self.play.as_ref());
        let flagged = play.and_then(|play| play.clock.flagged);
        let limit = play.and_then(|play| play.info.move_limit.filter(|_| play.limit_reached(game)));
        match (claim_ending(ender, reason), flagged, limit) {
            ((Some(result), termination), ..) => (result, termination),
            (_, Some(loser), _) => (win(!loser), Termination::TimeForfeit { loser }),
            (_, _, Some(moves)) => (GameResult::Unfinished, Termination::MoveLimit { moves }),
            ((None, termination), ..) => (GameResult::Unfinished, termination),
        }
    }

    /// Why we end the game now, on our turn, if we do.
    fn our_end_reason(&self) -> Option<EndReason> {
        let (game, play) = (self.dialogue.current(), self.play.as_ref()?);
        let out_of_time = self.end_on_time && play.clock.flagged == Some(play.their_color());
        if let Some((result, _)) = self.dialogue.rules_ending() {
            Some(claim_reason(play.our_color(), result))
        } else if out_of_time || (self.end_at_move_limit && play.limit_reached(game)) {
            Some(EndReason::NoReason)
        } else {
            play.pending_end
                .or(self.want_stop.then_some(EndReason::NoReason))
        }
    }

    /// We send the first GAMEEND (on our turn, or because the peer broke the protocol).
    fn end_ours(&mut self, now: Instant, reason: EndReason, ending: Option<Ending>, out: &mut Out) {
        self.stop_thinking(out);
        let stop = self.our_stop_code();
        self.send(out, game_end(reason, stop));
        let Some(play) = &self.play else {
            return;
        };
        let (result, termination) =
            ending.unwrap_or_else(|| self.verdict(play.our_color(), reason));
        self.finish_game(result, termination, out);
        self.deadline = Some(now + self.timeouts.reply);
    }

    /// Accepts the peer's BACKREQ (`K0`) and goes back to the position it asked for.
    fn grant_take_back(&mut self, now: Instant, out: &mut Out) {
        let code = BackAccCode::Accepted;
        if let Some(Meaning::TakenBack { ply, before }) = self.send(out, BackAcc { code }).meaning {
            self.take_back(now, ply, before, Side::Peer, out);
        }
    }

    /// The dialogue went back to the position at `ply`, `before` having been to move.
    fn take_back(&mut self, now: Instant, ply: usize, before: Color, by: Side, out: &mut Out) {
        self.stop_thinking(out);
        let Some(play) = self.play.as_mut() else {
            return;
        };
        play.clock.charge(before, now);
        play.seconds.truncate(ply);
        out.push(Output::Event(Event::TakeBackDone {
            number: play.info.number,
            requested_by: by,
            ply,
            position: *self.dialogue.current().position(),
        }));
        self.start_turn(now, out);
    }

    /// The game is over and the GAMEEND handshake done: next game, or close when either side
    /// asked to stop.
    fn after_game(&mut self, now: Instant, out: &mut Out) {
        self.play = None;
        if self.dialogue.stopping() || self.our_stop_code() {
            let reason = self.stop_reason();
            return self.close(reason, out);
        }
        match self.role.role() {
            Role::Initiator => self.request_next(now, out),
            Role::Follower => self.await_request(now),
        }
    }

    fn close(&mut self, reason: CloseReason, out: &mut Out) {
        out.push(Output::Close);
        out.push(Output::Event(Event::Closed(reason.clone())));
        self.close_reason = Some(reason);
        self.play = None;
        self.deadline = None;
    }

    // ---- helpers -------------------------------------------------------------------------

    /// `mv` was played from `before` (the dialogue's position is after it).
    fn played(&mut self, before: &Position, mv: Move, spent: Duration, by: Side, out: &mut Out) {
        let game = self.dialogue.current();
        let Some(play) = self.play.as_mut() else {
            return;
        };
        let seconds = spent.as_secs().min(u64::from(u16::MAX)) as u16;
        play.seconds.push(seconds);
        out.push(Output::Event(Event::MovePlayed(MovePlayed {
            number: play.info.number,
            ply: game.ply(),
            by,
            color: before.side_to_move(),
            mv,
            text: before.move_text(&mv),
            seconds,
            time: spent,
            position: *game.position(),
        })));
    }

    fn stop_thinking(&mut self, out: &mut Out) {
        if let Some(play) = self.play.as_mut()
            && play.thinking.take().is_some()
        {
            out.push(Output::StopThinking);
        }
    }

    fn finish_game(&self, result: GameResult, termination: Termination, out: &mut Out) {
        if let Some(play) = &self.play {
            let record = play.record(self.dialogue.current(), result, termination);
            out.push(Output::Event(Event::GameOver(Box::new(record))));
        }
    }

    /// The game stops without a GAMEEND (`termination`, unfinished, unless the rules decided
    /// it already).
    fn abandon(&mut self, termination: Termination, out: &mut Out) {
        self.stop_thinking(out);
        let (result, termination) =
            (self.dialogue.rules_ending()).unwrap_or((GameResult::Unfinished, termination));
        self.finish_game(result, termination, out);
    }

    /// Sends `message`, and follows it in the dialogue.
    fn send(&mut self, out: &mut Out, message: impl Into<Message>) -> Observed {
        let message = message.into();
        let observed = self.dialogue.observe(US, &message);
        out.push(Output::Send(message));
        observed
    }

    /// Answers the peer's BACKREQ with `code` (not `K0`) and says so.
    fn refuse_take_back(&mut self, code: BackAccCode, out: &mut Out) {
        let Some(number) = self.play.as_ref().map(|play| play.info.number) else {
            return;
        };
        self.send(out, BackAcc { code });
        take_back_refused(number, Side::Peer, code, out);
    }

    /// Whether a game runs and we are to move.
    fn our_turn(&self) -> bool {
        self.dialogue.to_move() == Some(US)
    }

    /// Whether our GAMEEND (or acknowledgement) asks to stop.
    fn our_stop_code(&self) -> bool {
        self.want_stop || self.series_complete()
    }

    fn series_complete(&self) -> bool {
        match &self.role {
            RoleConfig::Initiator(config) => self.next_request >= config.games.len(),
            RoleConfig::Follower(config) => config
                .max_games
                .is_some_and(|max| self.games_started >= max),
        }
    }

    fn stop_reason(&self) -> CloseReason {
        if self.want_stop {
            CloseReason::StopRequested
        } else if self.series_complete() {
            CloseReason::SeriesComplete
        } else {
            CloseReason::PeerStopped
        }
    }
}

/// The bytes of a received message, for the log (decoding keeps every choice the sender made,
/// so encoding again gives the bytes received).
fn raw_of(message: &Message) -> Option<RawBytes> {
    let mut buf = bytes::BytesMut::from(&message.to_frame()[..]);
    damx_wire::Framer::new()
        .next_frame(&mut buf)
        .ok()
        .flatten()
        .map(|frame| frame.raw())
}

/// Says that the take-back `requested_by` asked for in game `number` was refused with `code`.
fn take_back_refused(number: u32, requested_by: Side, code: BackAccCode, out: &mut Out) {
    out.push(Output::Event(Event::TakeBackRefused {
        number,
        requested_by,
        code,
    }));
}

/// Reports a violation, telling the peer by CHAT if `tell`.
fn violation(
    what: String,
    raw: Option<RawBytes>,
    tell: bool,
    action: ViolationAction,
    out: &mut Out,
) {
    if tell && let Some(chat) = chat_messages(&format!("error: {what}")).into_iter().next() {
        out.push(Output::Send(chat.into()));
    }
    out.push(Output::Event(Event::Violation(Violation {
        what,
        raw,
        told: tell,
        action,
    })));
}

/// `text` as CHAT messages: characters outside printable ASCII become `?`, and the text is
/// cut into pieces of at most 126 characters.
pub(crate) fn chat_messages(text: &str) -> Vec<Chat> {
    let clean: Vec<u8> = text
        .chars()
        .map(|c| match c {
            ' '..='~' => c as u8,
            '\t' | '\n' | '\r' => b' ',
            _ => b'?',
        })
        .collect();
    clean
        .chunks(MAX_CHAT_LEN)
        .filter_map(|piece| Chat::new(String::from_utf8_lossy(piece).into_owned()).ok())
        .collect()
}

#[cfg(test)]
mod tests;

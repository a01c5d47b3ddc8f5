//! One refereed game as a state machine without I/O: what the two programs send (and the
//! clock) in, messages to send (and connections to close) out. The decisions are listed in
//! the [module documentation](super).

use std::time::{Duration, Instant};

use damx_rules::{Color, Game, GameResult, Move};
use damx_wire::{
    AcceptCode, BackAcc, BackAccCode, EndReason, GameAcc, GameEnd, Message, StreamError,
};

use super::{
    ClaimPolicy, DEFAULT_MOVE_TIMEOUT, GameSetup, Judge, Reason, RefereeConfig, RefereeEvent,
    Verdict,
};
use crate::convert::move_to_wire;
use crate::dialogue::{
    Clock, FrameFault, Meaning, NoiseMeter, Observed, Observer, PEER as PROGRAM, Rule, SEND_AWAY,
    US as REFEREE, claim_ending, claim_reason, frame_fault, game_answer, game_end, game_request,
};
use crate::driver::dxp_name;
use crate::machine::Incoming;
use crate::record::Termination;

/// One input of the referee.
#[derive(Clone, Debug, PartialEq)]
pub enum RefereeInput {
    /// A message or a bad frame from the program playing this colour.
    Peer(Color, Incoming),
    /// The connection of this colour's program ended.
    Lost {
        /// Its colour.
        side: Color,
        /// `Some(status)` when its process is known to have exited.
        crashed: Option<String>,
    },
    /// Time passed: check the deadlines.
    Tick,
    /// End the game now (result `*`) and tell both programs to stop.
    Abort,
    /// Let the game play on, but tell both programs to stop when it ends (stop code `1`).
    StopAfter,
}

/// One thing for the driver to do.
#[derive(Clone, Debug, PartialEq)]
pub enum RefereeOutput {
    /// Send this message to this colour's program.
    Send(Color, Message),
    /// Close this colour's connection (after sending what was queued); the program is not to
    /// be used again.
    Close(Color),
    /// Report this.
    Event(RefereeEvent),
}

/// The outputs of one step, in order.
type Out = Vec<RefereeOutput>;

/// Everything about a refereed game once it is over.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameReport {
    /// The setup it was played with.
    pub setup: GameSetup,
    /// The decision.
    pub verdict: Verdict,
    /// The moves played (the last one may not have been relayed: see the module docs).
    pub moves: Vec<Move>,
    /// The referee's measure of each move, in milliseconds.
    pub millis: Vec<u64>,
    /// Each program's total thinking time ([`Color::index`] order).
    pub used: [Duration; 2],
    /// The names the programs gave in their GAMEACC.
    pub dxp_names: [Option<String>; 2],
    /// Whether each program's connection can play another game (no stop code `1`, not lost,
    /// not closed by the referee).
    pub keep: [bool; 2],
}

impl GameReport {
    /// The report of a game that could not start because `missing` programs could not be
    /// started or reached: each of them forfeits (both: a double forfeit).
    pub fn not_started(setup: GameSetup, missing: &[Color], detail: &str) -> GameReport {
        let verdict = match missing {
            [color] => Verdict::forfeit(*color, Reason::NoStart, detail),
            _ => Verdict {
                disqualified: vec![Color::White, Color::Black],
                ..decided(GameResult::Unfinished, Reason::DoubleForfeit, detail)
            },
        };
        GameReport {
            setup,
            verdict,
            moves: Vec::new(),
            millis: Vec::new(),
            used: [Duration::ZERO; 2],
            dxp_names: [None, None],
            keep: [false, false],
        }
    }
}

/// Where the referee stands with one program.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Phase {
    /// Not asked yet.
    #[default]
    Idle,
    /// GAMEREQ sent, GAMEACC due.
    AwaitAcc,
    /// In the game.
    InGame,
    /// The game is decided; the program is thinking, and gets its GAMEEND after its move.
    OweEnd,
    /// Our GAMEEND is out; its acknowledgement is due.
    AwaitAck,
    /// Done with this game; the connection stays.
    Finished,
    /// Done, and the connection is gone or closed.
    Closed,
}

#[derive(Clone, Debug, Default)]
struct Seat {
    phase: Phase,
    /// When the current wait ends.
    deadline: Option<Instant>,
    dxp_name: Option<String>,
    /// The noise this program made against the budget.
    noise: NoiseMeter,
    /// The dialogue with this program (the referee is [`REFEREE`], the program [`PROGRAM`]).
    dialogue: Observer,
}

impl Seat {
    fn new(config: &RefereeConfig) -> Seat {
        Seat {
            noise: NoiseMeter::new(config.noise),
            dialogue: Observer::with_initiator(REFEREE),
            ..Seat::default()
        }
    }

    /// The referee waits for this program's MOVE (it has the opponent's last move, or the
    /// start with itself to move).
    fn to_move(&self) -> bool {
        self.dialogue.to_move() == Some(PROGRAM)
    }

    /// Enters `phase`, whose wait ends at `deadline`.
    fn enter(&mut self, phase: Phase, deadline: Option<Instant>) {
        (self.phase, self.deadline) = (phase, deadline);
    }

    fn done(&self) -> bool {
        matches!(self.phase, Phase::Finished | Phase::Closed)
    }
}

/// The referee of one game. See the [module documentation](super).
#[derive(Debug)]
pub struct RefereeMachine {
    setup: GameSetup,
    config: RefereeConfig,
    judge: Judge,
    game: Game,
    seats: [Seat; 2],
    clock: Clock,
    millis: Vec<u64>,
    verdict: Option<Verdict>,
    aborting: bool,
}

impl RefereeMachine {
    /// A referee for `setup` under `config`. Call [`RefereeMachine::start`] next.
    pub fn new(setup: GameSetup, config: RefereeConfig, now: Instant) -> RefereeMachine {
        RefereeMachine {
            game: Game::new(setup.start_position()),
            judge: Judge::new(config.adjudication.method.clone()),
            setup,
            seats: [Seat::new(&config), Seat::new(&config)],
            clock: Clock::new(config.budget(), config.time_margin, now),
            config,
            millis: Vec::new(),
            verdict: None,
            aborting: false,
        }
    }

    /// Sends the first GAMEREQ: to the program that does not move first.
    pub fn start(&mut self, now: Instant) -> Vec<RefereeOutput> {
        let mut out = Vec::new();
        if self.seats.iter().all(|seat| seat.phase == Phase::Idle) {
            let second = !self.mover();
            self.request(second, now, &mut out);
        }
        out
    }

    /// Handles one input at time `now`; returns what to do, in order.
    pub fn handle(&mut self, now: Instant, input: RefereeInput) -> Vec<RefereeOutput> {
        let mut out = Vec::new();
        match input {
            RefereeInput::Peer(color, incoming) => {
                let noisy = incoming.is_noise();
                match incoming {
                    Incoming::Message(message) => self.on_message(color, message, now, &mut out),
                    Incoming::Bad(error) => self.on_bad_frame(color, &error, now, &mut out),
                    Incoming::Closed | Incoming::Failed(_) => {
                        self.on_lost(color, None, now, &mut out)
                    }
                }
                self.count_noise(color, noisy, now, &mut out);
            }
            RefereeInput::Lost { side, crashed } => self.on_lost(side, crashed, now, &mut out),
            RefereeInput::Tick => self.on_tick(now, &mut out),
            RefereeInput::StopAfter => self.setup.stop_after = [true, true],
            RefereeInput::Abort => {
                self.aborting = true;
                self.decide(aborted("the referee was stopped"), now, &mut out);
            }
        }
        out
    }

    /// When the next [`RefereeInput::Tick`] is due.
    pub fn next_deadline(&self) -> Option<Instant> {
        self.seats.iter().filter_map(|seat| seat.deadline).min()
    }

    /// Whether the game and both handshakes are over.
    pub fn is_done(&self) -> bool {
        self.verdict.is_some() && self.seats.iter().all(Seat::done)
    }

    /// The game so far.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The verdict, once the game is decided.
    pub fn verdict(&self) -> Option<&Verdict> {
        self.verdict.as_ref()
    }

    /// The report; a game not decided yet is reported as aborted.
    pub fn into_report(self) -> GameReport {
        let keep = self.seats.clone().map(|seat| seat.phase == Phase::Finished);
        GameReport {
            verdict: (self.verdict).unwrap_or_else(|| aborted("the game was not finished")),
            moves: self.game.moves().to_vec(),
            millis: self.millis,
            used: self.clock.used,
            dxp_names: self.seats.map(|seat| seat.dxp_name),
            keep,
            setup: self.setup,
        }
    }

    fn mover(&self) -> Color {
        self.game.start().side_to_move()
    }

    fn seat(&mut self, color: Color) -> &mut Seat {
        &mut self.seats[color.index()]
    }

    // ---- requests ------------------------------------------------------------------------

    fn request(&mut self, color: Color, now: Instant, out: &mut Out) {
        let request = game_request(
            dxp_name(&self.setup.names[(!color).index()]),
            color,
            self.config.minutes,
            self.config.move_limit,
            self.setup.start.as_ref(),
        );
        self.send(color, request, out);
        let deadline = Some(now + self.config.reply_timeout);
        self.seat(color).enter(Phase::AwaitAcc, deadline);
    }

    fn on_accept(&mut self, color: Color, acc: GameAcc, now: Instant, out: &mut Out) {
        let (code, name) = (acc.code, acc.follower.trimmed().to_owned());
        let seat = self.seat(color);
        seat.dxp_name = Some(name.clone());
        seat.deadline = None;
        out.push(RefereeOutput::Event(RefereeEvent::Identified {
            color,
            name,
        }));
        if code != AcceptCode::Accepted {
            let (meaning, keep) = game_answer(code);
            if keep {
                self.seat(color).phase = Phase::Finished;
            } else {
                self.close_seat(color, out);
            }
            let detail = format!("GAMEACC code {}: {meaning}", char::from(code.digit()));
            return self.forfeit(color, Reason::Refused, detail, now, out);
        }
        self.seat(color).phase = Phase::InGame;
        if color != self.mover() {
            let mover = self.mover();
            self.request(mover, now, out);
        } else {
            // Both have accepted: the first mover's clock starts.
            self.await_move(color, now);
        }
    }

    // ---- messages ------------------------------------------------------------------------

    fn on_message(&mut self, color: Color, message: Message, now: Instant, out: &mut Out) {
        let observed = self.seat(color).dialogue.observe(PROGRAM, &message);
        if let Some(Meaning::Chat(text)) = observed.meaning {
            return out.push(RefereeOutput::Event(RefereeEvent::Chat { color, text }));
        }
        let phase = self.seats[color.index()].phase;
        match (phase, message) {
            (Phase::AwaitAcc, Message::GameAcc(acc)) => self.on_accept(color, acc, now, out),
            (Phase::InGame, message @ Message::Move(_)) => {
                self.on_move(color, message.to_string(), observed, now, out);
            }
            (Phase::InGame, Message::GameEnd(end)) => {
                let in_turn = !(observed.breaches.iter()).any(|b| b.rule == Rule::OutOfTurn);
                self.on_claim(color, end, in_turn, now, out);
            }
            (Phase::InGame, Message::BackReq(_)) => {
                let code = BackAccCode::NotSupported;
                self.send(color, BackAcc { code }, out);
                note(out, color, "asked for a take-back (answered K1)");
            }
            (Phase::InGame, message @ (Message::GameReq(_) | Message::GameAcc(_))) => {
                let detail = format!("{} during the game: {message}", message.kind());
                self.forfeit(color, Reason::ProtocolError, detail, now, out);
            }
            (Phase::OweEnd, Message::Move(_)) => {
                note(out, color, "moved after the game was decided (not relayed)");
                self.send_end(color, now, out);
            }
            (Phase::OweEnd, Message::GameEnd(_)) => self.acknowledge(color, out),
            (Phase::AwaitAck, Message::GameEnd(_)) => self.finish_seat(color, out),
            (_, message) => {
                let what = format!("{} ignored: {message}", message.kind());
                note(out, color, &what);
            }
        }
    }

    fn on_bad_frame(&mut self, color: Color, error: &StreamError, now: Instant, out: &mut Out) {
        let raw = error.raw().to_string();
        let phase = self.seats[color.index()].phase;
        if frame_fault(error) != FrameFault::Breach
            || !matches!(phase, Phase::InGame | Phase::AwaitAcc)
        {
            let what = format!("unreadable frame ignored: {raw} ({error})");
            return note(out, color, &what);
        }
        let detail = if phase == Phase::AwaitAcc {
            // In place of the GAMEACC: the handshake cannot go on.
            self.close_seat(color, out);
            format!("unreadable frame {raw} instead of a GAMEACC ({error})")
        } else {
            format!("unreadable frame {raw} ({error})")
        };
        self.forfeit(color, Reason::ProtocolError, detail, now, out);
    }

    /// A program's MOVE, as its dialogue read it.
    fn on_move(&mut self, color: Color, text: String, seen: Observed, now: Instant, out: &mut Out) {
        let illegal = (seen.breaches.into_iter()).find_map(|breach| breach.illegal);
        let (reason, detail) = match (seen.meaning, illegal) {
            (Some(Meaning::Moved { mv, .. }), _) => return self.on_legal_move(color, mv, now, out),
            (_, Some(error)) => (Reason::IllegalMove, format!("{text}: {error}")),
            _ => (Reason::OutOfTurn, format!("{text} out of turn")),
        };
        self.forfeit(color, reason, detail, now, out);
    }

    /// `color`'s legal move `mv`: charged, played, then relayed unless it ends the game.
    fn on_legal_move(&mut self, color: Color, mv: Move, now: Instant, out: &mut Out) {
        let spent = self.charge(color, now);
        if let Some(detail) = self.out_of_time(color) {
            self.forfeit(color, Reason::Time, detail, now, out);
            return;
        }
        let notation = self.game.position().move_text(&mv);
        self.game.play(mv);
        let millis = spent.as_millis().min(u128::from(u64::MAX)) as u64;
        self.millis.push(millis);
        let (ply, text) = (self.game.ply(), notation);
        out.push(RefereeOutput::Event(RefereeEvent::Moved {
            ply,
            color,
            text,
            millis,
        }));
        if let Some(verdict) = self.rules_verdict(color) {
            self.decide(verdict, now, out);
        } else if let Some((result, how)) = self.judge.database(&self.game) {
            self.decide(decided(result, Reason::Egdb, how), now, out);
        } else if let Some(cap) = (self.config.adjudication.max_moves)
            .filter(|&cap| self.game.ply() >= 2 * usize::from(cap))
        {
            let (result, how) = self.judge.judge(&self.game);
            let detail = format!("{cap} moves each; {how}");
            self.decide(decided(result, Reason::MoveCap, detail), now, out);
        } else {
            self.send(!color, move_to_wire(&mv, spent), out);
            self.await_move(!color, now);
        }
    }

    /// A program's GAMEEND during the game: acknowledged at once, read as a claim.
    fn on_claim(&mut self, color: Color, end: GameEnd, in_turn: bool, now: Instant, out: &mut Out) {
        if in_turn {
            self.charge(color, now);
        } else {
            note(out, color, "sent GAMEEND out of turn (honoured)");
        }
        if end.reason != EndReason::GiveUp
            && let Some(verdict) = self.rules_verdict(color)
        {
            self.acknowledge(color, out);
            self.decide(verdict, now, out);
            return;
        }
        let claim = match end.reason {
            EndReason::GiveUp => "gave up",
            EndReason::Draw => "claimed a draw",
            EndReason::Win => "claimed a win",
            EndReason::NoReason => "ended the game without a reason",
        };
        let detail = format!("{color} {claim}");
        let (result, termination) = claim_ending(color, end.reason);
        let trusted = end.reason == EndReason::GiveUp || self.config.claims == ClaimPolicy::Trust;
        let verdict = match result {
            Some(result) if trusted => decided(result, termination.reason(), detail),
            _ if self.config.claims == ClaimPolicy::Strict => {
                Verdict::forfeit(color, Reason::FalseClaim, detail)
            }
            _ => {
                let (result, how) = self.judge.judge(&self.game);
                decided(result, termination.reason(), format!("{detail}; {how}"))
            }
        };
        self.acknowledge(color, out);
        self.decide(verdict, now, out);
    }

    // ---- time ----------------------------------------------------------------------------

    fn on_tick(&mut self, now: Instant, out: &mut Out) {
        for color in [Color::White, Color::Black] {
            let seat = &self.seats[color.index()];
            if seat.deadline.is_none_or(|due| now < due) {
                continue;
            }
            let reply = self.config.reply_timeout.as_secs_f64();
            match seat.phase {
                Phase::AwaitAcc => {
                    self.close_seat(color, out);
                    let detail = format!("no GAMEACC within {reply} s");
                    self.forfeit(color, Reason::Silent, detail, now, out);
                }
                Phase::InGame => {
                    let waited = now.saturating_duration_since(self.clock.since);
                    self.charge(color, now);
                    let silent = format!("no move within {:.1} s", waited.as_secs_f64());
                    let (reason, detail) = (self.out_of_time(color))
                        .map_or((Reason::Silent, silent), |detail| (Reason::Time, detail));
                    self.send_away(color, out);
                    self.forfeit(color, reason, detail, now, out);
                }
                Phase::OweEnd => {
                    note(out, color, "no move after the game was decided");
                    self.send_end(color, now, out);
                }
                Phase::AwaitAck => {
                    let what = format!("no GAMEEND acknowledgement within {reply} s");
                    note(out, color, &what);
                    self.finish_seat(color, out);
                }
                Phase::Idle | Phase::Finished | Phase::Closed => {
                    self.seat(color).deadline = None;
                }
            }
        }
    }

    /// Sends `color` away: a GAMEEND with stop code `1`, and its connection closed.
    fn send_away(&mut self, color: Color, out: &mut Out) {
        self.send(color, SEND_AWAY, out);
        self.close_seat(color, out);
    }

    /// Counts what `color`'s last input cost against the noise budget (`noisy`, or the notes
    /// among `out`); a program past it forfeits (`noise`) and is sent away.
    fn count_noise(&mut self, color: Color, noisy: bool, now: Instant, out: &mut Out) {
        let noted = |output: &&RefereeOutput| {
            matches!(output, RefereeOutput::Event(RefereeEvent::Note { color: by, .. })
                if *by == color)
        };
        let notes = out.iter().filter(noted).count() as u32;
        let seat = self.seat(color);
        if seat.phase == Phase::Closed || seat.noise.count(now, noisy, notes) {
            return;
        }
        let detail = seat.noise.spent();
        self.send_away(color, out);
        self.forfeit(color, Reason::Noise, detail, now, out);
    }

    /// Charges the time since the turn started to `color`; returns it.
    fn charge(&mut self, color: Color, now: Instant) -> Duration {
        let spent = self.clock.charge(color, now);
        self.seat(color).deadline = None;
        spent
    }

    /// How `color` lost on time, when the time loses and its clock is past the margin.
    fn out_of_time(&self, color: Color) -> Option<String> {
        let (budget, used) = (self.clock.budget?, self.clock.used[color.index()]);
        (self.config.time_loss && self.clock.is_past(color))
            .then(|| format!("used {:.1} s of {} s", used.as_secs_f64(), budget.as_secs()))
    }

    /// `color` is to move from `now`: its clock runs and its deadline is set.
    fn await_move(&mut self, color: Color, now: Instant) {
        self.clock.since = now;
        let config = &self.config;
        let limit = match self.clock.remaining(color) {
            Some(left) if config.time_loss => left + config.time_margin,
            Some(left) => left + config.silence_margin,
            None => config.move_timeout.unwrap_or(DEFAULT_MOVE_TIMEOUT),
        };
        let limit = config.move_timeout.map_or(limit, |hard| hard.min(limit));
        self.seat(color).deadline = Some(now + limit);
    }

    // ---- ending --------------------------------------------------------------------------

    fn on_lost(&mut self, side: Color, crashed: Option<String>, now: Instant, out: &mut Out) {
        let seat = self.seat(side);
        if seat.phase == Phase::Closed {
            return;
        }
        let was_done = seat.done();
        seat.enter(Phase::Closed, None);
        if self.verdict.is_some() {
            if !was_done {
                note(out, side, "connection ended before the GAMEEND handshake");
            }
            return;
        }
        let (reason, detail) = match crashed {
            Some(status) => (Reason::Crash, format!("the program exited ({status})")),
            None => (Reason::ConnectionLost, "the connection ended".to_owned()),
        };
        self.forfeit(side, reason, detail, now, out);
    }

    fn forfeit(&mut self, color: Color, why: Reason, detail: String, now: Instant, out: &mut Out) {
        self.decide(Verdict::forfeit(color, why, detail), now, out);
    }

    /// The game is decided: each program still in it gets its GAMEEND, an offender at once,
    /// the others on the referee's turn. A second decision changes nothing; its offenders are
    /// noted.
    fn decide(&mut self, verdict: Verdict, now: Instant, out: &mut Out) {
        if self.verdict.is_some() {
            // The game is decided already: a second offence changes nothing but is noted.
            let (reason, detail) = (verdict.reason, &verdict.detail);
            let what = format!("{reason} after the game was decided: {detail}");
            for &color in &verdict.disqualified {
                note(out, color, &what);
            }
            return;
        }
        let offenders = verdict.disqualified.clone();
        for &color in &offenders {
            let (reason, detail) = (verdict.reason, verdict.detail.clone());
            let disqualified = RefereeEvent::Disqualified {
                color,
                reason,
                detail,
            };
            out.push(RefereeOutput::Event(disqualified));
        }
        self.verdict = Some(verdict);
        // An offender gets its GAMEEND at once, whatever it was doing.
        for color in offenders {
            if self.seats[color.index()].phase == Phase::InGame {
                self.send_end(color, now, out);
            }
        }
        self.settle(now, out);
    }

    /// Each program still in the decided game gets its GAMEEND on the referee's turn.
    fn settle(&mut self, now: Instant, out: &mut Out) {
        for color in [Color::White, Color::Black] {
            let seat = &self.seats[color.index()];
            match seat.phase {
                Phase::Idle => self.seat(color).phase = Phase::Finished,
                // Not in the game yet, and an answer may still come: start afresh next time.
                Phase::AwaitAcc => self.close_seat(color, out),
                Phase::InGame if seat.to_move() => {
                    let cap = now + self.config.reply_timeout;
                    let due = seat.deadline.map_or(cap, |due| due.min(cap));
                    self.seat(color).enter(Phase::OweEnd, Some(due));
                }
                Phase::InGame => self.send_end(color, now, out),
                Phase::OweEnd | Phase::AwaitAck | Phase::Finished | Phase::Closed => {}
            }
        }
    }

    /// Our GAMEEND to `color`, with an informative reason and the stop code.
    fn send_end(&mut self, color: Color, now: Instant, out: &mut Out) {
        let result = (self.verdict.as_ref()).map_or(GameResult::Unfinished, |v| v.result);
        let reason = claim_reason(!color, result);
        self.send(color, game_end(reason, self.our_stop(color)), out);
        let deadline = Some(now + self.config.reply_timeout);
        self.seat(color).enter(Phase::AwaitAck, deadline);
    }

    /// Answers a program's own GAMEEND; its handshake is done.
    fn acknowledge(&mut self, color: Color, out: &mut Out) {
        let stop = self.our_stop(color);
        let ack = self.seats[color.index()].dialogue.acknowledgement(stop);
        self.send(color, ack, out);
        self.finish_seat(color, out);
    }

    fn our_stop(&self, color: Color) -> bool {
        self.setup.stop_after[color.index()] || self.aborting
    }

    /// The handshake with `color` is over: keep the connection, or close it after a stop code
    /// `1` from either side.
    fn finish_seat(&mut self, color: Color, out: &mut Out) {
        if self.seats[color.index()].dialogue.stopping() {
            self.close_seat(color, out);
        } else {
            self.seat(color).enter(Phase::Finished, None);
        }
    }

    /// The verdict of the rules in the game of `color`'s dialogue (which has `color`'s last
    /// move, relayed or not).
    fn rules_verdict(&self, color: Color) -> Option<Verdict> {
        let (result, termination) = self.seats[color.index()].dialogue.rules_ending()?;
        let detail = match &termination {
            Termination::DrawRule(draw) => draw.to_string(),
            termination => termination.to_string(),
        };
        Some(decided(result, termination.reason(), detail))
    }

    /// Sends `message` to `color`'s program, and follows it in that dialogue.
    fn send(&mut self, color: Color, message: impl Into<Message>, out: &mut Out) {
        let message = message.into();
        self.seat(color).dialogue.observe(REFEREE, &message);
        out.push(RefereeOutput::Send(color, message));
    }

    fn close_seat(&mut self, color: Color, out: &mut Out) {
        let seat = self.seat(color);
        if seat.phase != Phase::Closed {
            seat.enter(Phase::Closed, None);
            out.push(RefereeOutput::Close(color));
        }
    }
}

/// The verdict of an aborted game: result `*`, counting for nobody.
fn aborted(detail: &str) -> Verdict {
    decided(GameResult::Unfinished, Reason::Aborted, detail)
}

/// A verdict that disqualifies no one.
fn decided(result: GameResult, reason: Reason, detail: impl Into<String>) -> Verdict {
    let detail = detail.into();
    Verdict {
        result,
        reason,
        detail,
        disqualified: Vec::new(),
    }
}

fn note(out: &mut Out, color: Color, what: &str) {
    let what = what.to_owned();
    out.push(RefereeOutput::Event(RefereeEvent::Note { color, what }));
}

#[cfg(test)]
mod tests;

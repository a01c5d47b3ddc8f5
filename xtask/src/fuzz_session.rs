//! `cargo xtask fuzz-session [SECONDS] [--seed N]`: session-level fuzzing of damx-session's
//! state machines.
//!
//! Each case drives one role's machine without I/O (the Follower's and the Initiator's
//! [`PlayerMachine`], the [`RefereeMachine`] between two programs, and the [`Monitor`] that `damx
//! proxy` runs over the traffic it relays: the proxy's only logic) with a random sequence of
//! inputs from a seeded generator: sensible messages (a GAMEREQ when one is awaited, a legal
//! MOVE on the peer's turn, the GAMEEND acknowledgement, ...), wrong ones (any message with
//! random fields, out of state or out of turn, illegal moves, floods of CHATs and BACKREQs),
//! frames that do not decode (garbage, empty, longer than the framer allows, control
//! characters), time passing (a tick when a deadline is due, jumps of minutes), the user's
//! commands, our player's answers (late, stale, none), and disconnects. Every frame goes
//! through the real `damx_wire::Framer`, as on a socket.
//!
//! Checked for every case: no panic; no unbounded growth (each input yields a bounded number
//! of outputs, and the frames sent to the peer in any second of simulated time are bounded
//! whatever the peer sends); and that everything ends: once the inputs stop and only time
//! passes, the machine closes (the referee decides) within a bounded simulated time, and every
//! game that started has ended with a record. A failing case prints its seed; `--seed N` runs
//! that one case again.
//!
//! The per-role adapters (building a machine and mapping its inputs and outputs) sit together
//! in the section marked `ADAPTERS` below, so that a change to a machine's API touches one
//! place.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use bytes::BytesMut;
use damx_rules::{Color, Game, Move, Position};
use damx_session::config::{FollowerConfig, InitiatorConfig, SessionConfig};
use damx_session::monitor::Party;
use damx_session::referee::{
    Adjudication, AdjudicationMethod, GameSetup, RefereeConfig, RefereeInput, RefereeMachine,
    RefereeOutput,
};
use damx_session::{
    Command, EndReason, Event, GameSettings, Incoming, Input, Monitor, Output, PhaseKind,
    PlayerMachine, TakeBackPolicy,
};
use damx_wire::{Framer, Message, Name};

pub(crate) const ARGS: &str = "[SECONDS] [--seed N]";

pub(crate) const ABOUT: &str = "\
drive the Follower, Initiator, referee and monitor (damx proxy's logic) state machines with
random valid and invalid messages, timer events and disconnects (seeded, reproducible) for
SECONDS (default 120; CI runs 3); checks no panic, bounded outputs and that every game and
session ends; prints the cases run and the rate; --seed N replays one case";

/// Inputs handed to the machines, and games they started, over the run.
static INPUTS: AtomicU64 = AtomicU64::new(0);
static GAMES: AtomicU64 = AtomicU64::new(0);

/// Inputs in one case before only time passes.
const STEPS: usize = 400;
/// Outputs one input may produce.
const MAX_OUTPUTS: usize = 64;
/// Frames sent to one peer within one second of simulated time.
const MAX_SENT_PER_SECOND: usize = 64;
/// Simulated time in which a machine left alone must close.
const DRAIN_LIMIT: Duration = Duration::from_secs(6 * 3600);

pub(crate) fn run(args: &[String]) -> anyhow::Result<()> {
    let mut seconds = 120.0_f64;
    let mut seed = None;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        if arg == "--seed" {
            let value = args.next().context("--seed needs a number")?;
            seed = Some(value.parse::<u64>().context("--seed needs a number")?);
        } else {
            seconds = arg
                .parse()
                .with_context(|| format!("SECONDS must be a number, got `{arg}`"))?;
        }
    }
    if let Some(seed) = seed {
        let role = run_case(seed).map_err(|failure| anyhow::anyhow!("seed {seed}: {failure}"))?;
        println!("fuzz-session: seed {seed} ({role}) passed");
        return Ok(());
    }
    let start = Instant::now();
    let limit = Duration::from_secs_f64(seconds.max(0.0));
    let base = 0x5eed_d0c5_u64;
    let mut cases = 0u64;
    let mut inputs_per_role = [0u64; 4];
    while cases == 0 || start.elapsed() < limit {
        let seed = base.wrapping_add(cases);
        match run_case(seed) {
            Ok(role) => inputs_per_role[role as usize] += 1,
            Err(failure) => bail!(
                "case {cases} failed: {failure}\n  replay: cargo xtask fuzz-session --seed {seed}"
            ),
        }
        cases += 1;
    }
    let elapsed = start.elapsed().as_secs_f64();
    let inputs = INPUTS.load(Ordering::Relaxed);
    println!(
        "fuzz-session: {cases} cases ({} follower, {} initiator, {} referee, {} monitor), \
         {inputs} inputs, {} games started, in {elapsed:.1} s: {:.0} cases/s, {:.0} inputs/s, no failure",
        inputs_per_role[0],
        inputs_per_role[1],
        inputs_per_role[2],
        inputs_per_role[3],
        GAMES.load(Ordering::Relaxed),
        cases as f64 / elapsed,
        inputs as f64 / elapsed,
    );
    Ok(())
}

/// The role a case drives.
#[derive(Clone, Copy, Debug)]
enum Role {
    Follower = 0,
    Initiator = 1,
    Referee = 2,
    Monitor = 3,
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Role::Follower => "follower",
            Role::Initiator => "initiator",
            Role::Referee => "referee",
            Role::Monitor => "monitor",
        })
    }
}

/// Runs the case of `seed`, catching a panic as a failure.
fn run_case(seed: u64) -> Result<Role, String> {
    let mut rng = Rng::new(seed);
    let role = match rng.below(4) {
        0 => Role::Follower,
        1 => Role::Initiator,
        2 => Role::Referee,
        _ => Role::Monitor,
    };
    let outcome = catch_unwind(AssertUnwindSafe(|| match role {
        Role::Follower | Role::Initiator => fuzz_player(&mut rng, role),
        Role::Referee => fuzz_referee(&mut rng),
        Role::Monitor => fuzz_monitor(&mut rng),
    }));
    match outcome {
        Ok(Ok(())) => Ok(role),
        Ok(Err(failure)) => Err(format!("{role}: {failure}")),
        Err(panic) => {
            let text = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .unwrap_or_default();
            Err(format!("{role}: panic: {text}"))
        }
    }
}

// ---------------------------------------------------------------------------------------------
// ADAPTERS: how each role's machine is built and driven (its public API). A change to a
// machine's inputs or outputs is adapted here.
// ---------------------------------------------------------------------------------------------

/// A Follower or Initiator [`PlayerMachine`] against a random peer, our player answering late,
/// never, or with a stale ticket, and the user's commands.
fn fuzz_player(rng: &mut Rng, role: Role) -> Result<(), String> {
    let mut config = match role {
        Role::Initiator => {
            let games = (0..1 + rng.below(3))
                .map(|_| GameSettings {
                    minutes: [0, 1, 5][rng.below(3)],
                    move_limit: [0, 10][rng.below(2)],
                    ..GameSettings::default()
                })
                .collect();
            SessionConfig::initiator(InitiatorConfig { games })
        }
        _ => SessionConfig::follower(FollowerConfig {
            max_games: [None, Some(1), Some(3)][rng.below(3)],
            ..FollowerConfig::default()
        }),
    };
    config.end_at_move_limit = rng.chance(500);
    config.end_on_time = rng.chance(500);
    let policy = [
        TakeBackPolicy::Accept,
        TakeBackPolicy::Decline,
        TakeBackPolicy::NotSupported,
        TakeBackPolicy::Ask,
    ][rng.below(4)];
    let mut machine = PlayerMachine::new(&config, Name::new("fuzz").expect("a name"), policy);
    let mut now = Instant::now();
    let mut watch = Watch::new(now);
    let mut ours = Ours::default();
    let mut framer = Framer::default();
    // How much of the peer's traffic is noise: a quiet peer plays whole games, a hostile one
    // spends its noise budget.
    let hostility = [50, 300, 1000][rng.below(3)];
    let outputs = machine.start(now);
    watch.see_player(now, &outputs, &mut ours)?;

    for _ in 0..STEPS {
        if machine.is_closed() {
            break;
        }
        let mut roll = rng.below(100);
        if (45..62).contains(&roll) && !rng.chance(hostility) {
            roll = 0;
        }
        let input = match roll {
            0..45 => match sensible_for_player(rng, &machine) {
                Some(text) => frames(&mut framer, &text)
                    .into_iter()
                    .next()
                    .map(Input::Peer),
                None => None,
            },
            45..62 => {
                let incoming = frames(&mut framer, &noise(rng, machine.game()));
                // A flood: many frames at once, as one read delivers them.
                let mut last = None;
                for item in incoming {
                    let outputs = machine.handle(now, Input::Peer(item));
                    watch.see_player(now, &outputs, &mut ours)?;
                    last = Some(());
                }
                last.map(|()| Input::Tick)
            }
            // A stale ticket leaves the request pending: the real answer still comes.
            62..65 => ours.pending.as_ref().map(|(ticket, _)| Input::MoveChosen {
                ticket: ticket.wrapping_add(1),
                mv: None,
            }),
            65..75 => ours.pending.take().map(|(ticket, game)| Input::MoveChosen {
                ticket,
                mv: if rng.chance(20) {
                    None
                } else {
                    random_legal(rng, game.position())
                },
            }),
            75..80 if ours.move_unsent => {
                ours.move_unsent = false;
                Some(Input::MoveSent { at: now })
            }
            80..94 => {
                now += random_wait(rng);
                Some(Input::Tick)
            }
            94..97 => Some(Input::Command(random_command(rng, &machine))),
            97 if rng.chance(200) => Some(Input::Peer(if rng.chance(500) {
                Incoming::Closed
            } else {
                Incoming::Failed("connection reset".to_owned())
            })),
            _ => Some(Input::MoveChosen {
                ticket: ours.last_ticket.wrapping_sub(1),
                mv: None,
            }),
        };
        if let Some(input) = input {
            let outputs = machine.handle(now, input);
            watch.see_player(now, &outputs, &mut ours)?;
        }
    }

    // The peer falls silent; our player still answers (it is trusted), time passes.
    let drain_start = now;
    while !machine.is_closed() {
        if now - drain_start > DRAIN_LIMIT {
            return Err(format!(
                "not closed {} s after the peer fell silent (phase {:?})",
                DRAIN_LIMIT.as_secs(),
                machine.phase()
            ));
        }
        let input = if let Some((ticket, game)) = ours.pending.take() {
            Input::MoveChosen {
                ticket,
                mv: random_legal(rng, game.position()),
            }
        } else if ours.move_unsent {
            ours.move_unsent = false;
            Input::MoveSent { at: now }
        } else {
            now = machine.next_deadline().map_or(now, |due| due.max(now)) + Duration::from_secs(1);
            Input::Tick
        };
        let outputs = machine.handle(now, input);
        watch.see_player(now, &outputs, &mut ours)?;
    }
    if watch.games_open != 0 {
        return Err(format!(
            "{} game(s) started without a GameOver",
            watch.games_open
        ));
    }
    if machine.phase() != PhaseKind::Closed {
        return Err(format!("closed in phase {:?}", machine.phase()));
    }
    Ok(())
}

/// What a well-behaved peer would send now, if anything.
fn sensible_for_player(rng: &mut Rng, machine: &PlayerMachine) -> Option<String> {
    match machine.phase() {
        PhaseKind::AwaitingGameReq => Some(game_request(rng, true)),
        PhaseKind::AwaitingGameAcc => Some(format!(
            "A{:<32}{}",
            "peer",
            if rng.chance(900) { 0 } else { rng.below(4) }
        )),
        PhaseKind::TheirTurn => {
            let game = machine.game()?;
            let mv = random_legal(rng, game.position())?;
            Some(move_text(&mv, rng.below(30)))
        }
        PhaseKind::AwaitingEndAck => Some(format!("E0{}", rng.below(2))),
        _ => None,
    }
}

/// A user's command, mostly sensible for the phase.
fn random_command(rng: &mut Rng, machine: &PlayerMachine) -> Command {
    let ply = machine.game().map_or(0, Game::ply);
    match rng.below(7) {
        0 => Command::Chat(random_text(rng, 300)),
        1 => Command::EndGame(
            [
                EndReason::NoReason,
                EndReason::GiveUp,
                EndReason::Draw,
                EndReason::Win,
            ][rng.below(4)],
        ),
        2 => Command::Stop,
        3 => Command::TakeBack {
            ply: ply.saturating_sub(rng.below(4)),
        },
        4 => Command::AnswerTakeBack(rng.chance(500)),
        5 if rng.chance(200) => Command::Abort,
        _ => Command::TakeBack { ply: ply + 5 },
    }
}

/// The [`RefereeMachine`] between two random programs that mostly play by the rules.
fn fuzz_referee(rng: &mut Rng) -> Result<(), String> {
    let setup = GameSetup {
        number: 1,
        names: ["white".to_owned(), "black".to_owned()],
        start: None,
        stop_after: [rng.chance(500), rng.chance(500)],
    };
    let config = RefereeConfig {
        minutes: [0, 1, 5][rng.below(3)],
        time_loss: rng.chance(500),
        adjudication: Adjudication {
            max_moves: Some(60),
            method: AdjudicationMethod::Material { margin: 2 },
        },
        ..RefereeConfig::default()
    };
    let mut now = Instant::now();
    let mut referee = RefereeMachine::new(setup, config, now);
    GAMES.fetch_add(1, Ordering::Relaxed);
    let mut framer = Framer::default();
    // What each program owes: a GAMEACC, a GAMEEND acknowledgement.
    let mut owed: [Vec<String>; 2] = [Vec::new(), Vec::new()];
    let mut watch = Watch::new(now);
    let hostility = [50, 300, 1000][rng.below(3)];
    let outputs = referee.start(now);
    watch.see_referee(now, &outputs, &mut owed)?;
    for _ in 0..STEPS {
        if referee.is_done() {
            break;
        }
        let color = [Color::White, Color::Black][rng.below(2)];
        let mut roll = rng.below(100);
        if (55..75).contains(&roll) && !rng.chance(hostility) {
            roll = 0;
        }
        let input = match roll {
            0..55 => {
                let text = if let Some(text) = owed[color.index()].pop() {
                    Some(text)
                } else {
                    let mover = referee.game().position().side_to_move();
                    random_legal(rng, referee.game().position())
                        .map(|mv| (mover, move_text(&mv, rng.below(10))))
                        .filter(|(mover, _)| *mover == color || rng.chance(100))
                        .map(|(_, text)| text)
                };
                text.and_then(|text| frames(&mut framer, &text).into_iter().next())
                    .map(|incoming| RefereeInput::Peer(color, incoming))
            }
            55..75 => {
                for incoming in frames(&mut framer, &noise(rng, Some(referee.game()))) {
                    let outputs = referee.handle(now, RefereeInput::Peer(color, incoming));
                    watch.see_referee(now, &outputs, &mut owed)?;
                }
                None
            }
            75..92 => {
                now += random_wait(rng);
                Some(RefereeInput::Tick)
            }
            92..95 => Some(RefereeInput::StopAfter),
            95 if rng.chance(200) => Some(RefereeInput::Abort),
            96 if rng.chance(200) => Some(RefereeInput::Lost {
                side: color,
                crashed: rng.chance(500).then(|| "exit status: 1".to_owned()),
            }),
            97 if rng.chance(200) => Some(RefereeInput::Peer(color, Incoming::Closed)),
            _ => None,
        };
        if let Some(input) = input {
            let outputs = referee.handle(now, input);
            watch.see_referee(now, &outputs, &mut owed)?;
        }
    }
    let drain_start = now;
    while !referee.is_done() {
        if now - drain_start > DRAIN_LIMIT {
            return Err(format!(
                "no decision {} s after both programs fell silent",
                DRAIN_LIMIT.as_secs()
            ));
        }
        now = referee.next_deadline().map_or(now, |due| due.max(now)) + Duration::from_secs(1);
        let outputs = referee.handle(now, RefereeInput::Tick);
        watch.see_referee(now, &outputs, &mut owed)?;
    }
    if referee.verdict().is_none() {
        return Err("done without a verdict".to_owned());
    }
    let report = referee.into_report();
    if report.moves.len() > 2 * 60 + 2 {
        return Err(format!(
            "{} moves past a cap of 60 each",
            report.moves.len()
        ));
    }
    Ok(())
}

/// The [`Monitor`] over a dialogue of two programs that mostly play by the rules.
fn fuzz_monitor(rng: &mut Rng) -> Result<(), String> {
    let mut monitor = Monitor::new();
    let mut framer = Framer::default();
    let mut awaiting: Option<(Party, String)> = None;
    // A party whose stream ended sends nothing more.
    let mut closed = [false; 2];
    let index = |party: Party| usize::from(party == Party::B);
    // The monitor lets a game start after one party's stream ended (a GAMEREQ sent before the
    // end, answered after it); such a game can stay in its GAMEEND handshake once both ended.
    let mut started_after_close = false;
    for _ in 0..STEPS {
        if closed.contains(&true) && monitor.game().is_none() {
            started_after_close = true;
        }
        let party = [Party::A, Party::B][rng.below(2)];
        let text = match rng.below(100) {
            0..60 => {
                if let Some((owed_by, text)) = awaiting.take() {
                    Some((owed_by, text))
                } else if let Some(game) = monitor.game() {
                    // Either party may move (a wrong one is out of turn): the monitor
                    // sorts out which was in turn.
                    let initiator = monitor.initiator().unwrap_or(Party::A);
                    let by = if rng.chance(500) {
                        initiator
                    } else {
                        initiator.other()
                    };
                    random_legal(rng, game.position()).map(|mv| (by, move_text(&mv, 1)))
                } else {
                    awaiting = Some((party.other(), format!("A{:<32}0", "follower")));
                    Some((party, game_request(rng, false)))
                }
            }
            60..70 if monitor.game().is_some() => {
                awaiting = Some((party.other(), "E00".to_owned()));
                Some((party, format!("E{}{}", rng.below(3), rng.below(2))))
            }
            70..97 => Some((party, noise(rng, monitor.game()))),
            _ => {
                closed[index(party)] = true;
                let observation = monitor.closed(party);
                if observation.findings.len() > 4 {
                    return Err(format!(
                        "{} findings for one close",
                        observation.findings.len()
                    ));
                }
                None
            }
        };
        if let Some((party, text)) = text.filter(|(party, _)| !closed[index(*party)]) {
            let mut buf = BytesMut::from(frame_bytes(&text).as_slice());
            while let Some(item) = next_item(&mut framer, &mut buf) {
                let frame = match &item {
                    Incoming::Message(message) => Ok(message),
                    Incoming::Bad(error) => Err(error.to_string()),
                    _ => continue,
                };
                INPUTS.fetch_add(1, Ordering::Relaxed);
                let had_game = monitor.game().is_some();
                let observation = monitor.frame(party, frame);
                if !had_game && monitor.game().is_some() {
                    GAMES.fetch_add(1, Ordering::Relaxed);
                }
                if observation.findings.len() > 4 {
                    return Err(format!(
                        "{} findings for one frame",
                        observation.findings.len()
                    ));
                }
            }
        }
    }
    monitor.closed(Party::A);
    monitor.closed(Party::B);
    if monitor.game().is_some() && !started_after_close {
        return Err("a game still runs after both streams closed".to_owned());
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// END OF ADAPTERS
// ---------------------------------------------------------------------------------------------

/// What our side of a player fuzz case owes the machine: the move request not yet answered,
/// the last ticket seen (a stale answer uses an older one), and a MOVE written but not yet
/// reported sent.
#[derive(Default)]
struct Ours {
    pending: Option<(u64, Game)>,
    last_ticket: u64,
    move_unsent: bool,
}

/// The checks on what a machine outputs.
struct Watch {
    /// The second of simulated time being counted, and the frames sent in it (per colour).
    second: Instant,
    sent: [usize; 2],
    /// Games started and not yet over.
    games_open: i64,
}

impl Watch {
    fn new(now: Instant) -> Watch {
        Watch {
            second: now,
            sent: [0; 2],
            games_open: 0,
        }
    }

    /// Counts `sends` frames to `side` at `now`; fails past the bound.
    fn count_sent(&mut self, now: Instant, side: usize, sends: usize) -> Result<(), String> {
        if now.duration_since(self.second) >= Duration::from_secs(1) {
            self.second = now;
            self.sent = [0; 2];
        }
        self.sent[side] += sends;
        if self.sent[side] > MAX_SENT_PER_SECOND {
            return Err(format!("{} frames sent within one second", self.sent[side]));
        }
        Ok(())
    }

    fn see_player(
        &mut self,
        now: Instant,
        outputs: &[Output],
        ours: &mut Ours,
    ) -> Result<(), String> {
        INPUTS.fetch_add(1, Ordering::Relaxed);
        if outputs.len() > MAX_OUTPUTS {
            return Err(format!("{} outputs for one input", outputs.len()));
        }
        let mut sends = 0;
        for output in outputs {
            match output {
                Output::Send(message) => {
                    sends += 1;
                    if matches!(message, Message::Move(_)) {
                        ours.move_unsent = true;
                    }
                }
                Output::StartThinking(request) => {
                    ours.last_ticket = request.ticket;
                    ours.pending = Some((request.ticket, request.game.clone()));
                }
                Output::StopThinking => ours.pending = None,
                Output::Event(Event::GameStarted(_)) => {
                    GAMES.fetch_add(1, Ordering::Relaxed);
                    self.games_open += 1;
                }
                Output::Event(Event::GameOver(_)) => self.games_open -= 1,
                _ => {}
            }
        }
        if self.games_open < 0 || self.games_open > 1 {
            return Err(format!("{} games open at once", self.games_open));
        }
        self.count_sent(now, 0, sends)
    }

    fn see_referee(
        &mut self,
        now: Instant,
        outputs: &[RefereeOutput],
        owed: &mut [Vec<String>; 2],
    ) -> Result<(), String> {
        INPUTS.fetch_add(1, Ordering::Relaxed);
        if outputs.len() > MAX_OUTPUTS {
            return Err(format!("{} outputs for one input", outputs.len()));
        }
        for output in outputs {
            if let RefereeOutput::Send(color, message) = output {
                let reply = match message {
                    Message::GameReq(_) => Some(format!("A{:<32}0", "program")),
                    Message::GameEnd(_) => Some("E00".to_owned()),
                    _ => None,
                };
                if let Some(reply) = reply {
                    owed[color.index()].push(reply);
                    owed[color.index()].truncate(4);
                }
                self.count_sent(now, color.index(), 1)?;
            }
        }
        Ok(())
    }
}

/// The frame of a message text (its bytes and the NUL).
fn frame_bytes(text: &str) -> Vec<u8> {
    let mut bytes = text.as_bytes().to_vec();
    bytes.push(0);
    bytes
}

/// What the connection's reader would deliver for `text` (one frame, or several where the
/// text holds NULs, or errors for an oversized one).
fn frames(framer: &mut Framer, text: &str) -> Vec<Incoming> {
    let mut buf = BytesMut::from(frame_bytes(text).as_slice());
    let mut items = Vec::new();
    while let Some(item) = next_item(framer, &mut buf) {
        items.push(item);
    }
    items
}

fn next_item(framer: &mut Framer, buf: &mut BytesMut) -> Option<Incoming> {
    match framer.next_message(buf) {
        Ok(Some(message)) => Some(Incoming::Message(message)),
        Ok(None) => None,
        Err(error) => Some(Incoming::Bad(error)),
    }
}

/// A GAMEREQ text, `sensible` with a short clock and the normal start.
fn game_request(rng: &mut Rng, sensible: bool) -> String {
    let minutes = if sensible {
        [0, 1, 5, 120][rng.below(4)]
    } else {
        rng.below(1000)
    };
    let start = if sensible || rng.chance(700) {
        "A".to_owned()
    } else {
        let squares: String = (0..50)
            .map(|_| ['e', 'w', 'z', 'W', 'Z'][rng.below(5)])
            .collect();
        format!("B{}{squares}", ['W', 'Z'][rng.below(2)])
    };
    format!(
        "R01{:<32}{}{minutes:03}{:03}{start}",
        "peer",
        ['W', 'Z'][rng.below(2)],
        [0, 10, 75][rng.below(3)]
    )
}

/// A MOVE text for `mv`.
fn move_text(mv: &Move, seconds: usize) -> String {
    let captured: String = mv
        .captured()
        .into_iter()
        .map(|square| format!("{:02}", square.number()))
        .collect();
    format!(
        "M{seconds:04}{:02}{:02}{:02}{captured}",
        mv.from().number(),
        mv.to().number(),
        mv.capture_count()
    )
}

/// Any message or frame that a broken or hostile peer could send.
fn noise(rng: &mut Rng, game: Option<&Game>) -> String {
    match rng.below(14) {
        0 => String::new(),
        1 => random_text(rng, 200),
        2 => format!("C{}", random_text(rng, 126)),
        3 => format!("B{:03}{}", rng.below(1000), ['W', 'Z', 'x'][rng.below(3)]),
        4 => format!("K{}", rng.below(10)),
        5 => format!("E{}{}", rng.below(10), rng.below(10)),
        6 => game_request(rng, false),
        7 => format!("A{}{}", random_text(rng, 32), rng.below(10)),
        8 => {
            // An illegal or out-of-turn move.
            let from = 1 + rng.below(50);
            let to = 1 + rng.below(50);
            format!("M{:04}{from:02}{to:02}00", rng.below(10_000))
        }
        9 => game
            .and_then(|game| random_legal(rng, game.position()))
            .map_or_else(|| "M0001353000".to_owned(), |mv| move_text(&mv, 9999)),
        10 => "x\0x\0\0\0E00\0C\x1b[2J\0R".to_owned(),
        11 => "C".repeat(1 + rng.below(400)),
        12 => format!("Cname\r\n\x07\x1b]0;{}", random_text(rng, 20)),
        _ => format!("R01{}", random_text(rng, 60)),
    }
}

/// Printable and control characters, no NUL.
fn random_text(rng: &mut Rng, max: usize) -> String {
    (0..rng.below(max + 1))
        .map(|_| match rng.below(10) {
            0 => char::from(1 + rng.below(31) as u8),
            _ => char::from(32 + rng.below(95) as u8),
        })
        .collect()
}

/// A legal move of `position`, if it has one.
fn random_legal(rng: &mut Rng, position: &Position) -> Option<Move> {
    let moves = position.legal_moves();
    (!moves.is_empty()).then(|| moves[rng.below(moves.len())])
}

/// How long to let time pass: mostly a fraction of a second, sometimes minutes.
fn random_wait(rng: &mut Rng) -> Duration {
    match rng.below(10) {
        0..7 => Duration::from_millis(rng.below(1500) as u64),
        7 | 8 => Duration::from_secs(rng.below(60) as u64),
        _ => Duration::from_secs(rng.below(1200) as u64),
    }
}

/// SplitMix64: small, fast and reproducible across platforms.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number below `n` (which is at least 1).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    /// True `per_thousand` times in a thousand.
    fn chance(&mut self, per_thousand: usize) -> bool {
        self.below(1000) < per_thousand
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A few hundred cases of every role pass (the CI run is longer, through the task).
    #[test]
    fn cases_pass() {
        for seed in 0..200 {
            run_case(seed).unwrap_or_else(|failure| panic!("seed {seed}: {failure}"));
        }
    }

    /// The same seed drives the same case.
    #[test]
    fn seeds_reproduce() {
        let draw = |seed| {
            let mut rng = Rng::new(seed);
            (0..8).map(|_| rng.below(1000)).collect::<Vec<_>>()
        };
        assert_eq!(draw(7), draw(7));
        assert_ne!(draw(7), draw(8));
    }
}

//! The referee's decisions, one conversation each, without sockets: the programs' messages
//! go in as text and what the referee sends comes out as text.

use super::*;
use crate::referee::{Adjudication, AdjudicationMethod};
use damx_wire::decode;

const WHITE: Color = Color::White;
const BLACK: Color = Color::Black;

fn config() -> RefereeConfig {
    RefereeConfig {
        minutes: 0,
        move_timeout: Some(Duration::from_secs(10)),
        reply_timeout: Duration::from_secs(5),
        adjudication: Adjudication {
            max_moves: None,
            method: AdjudicationMethod::Material { margin: 2 },
        },
        ..RefereeConfig::default()
    }
}

fn setup(start: Option<&str>) -> GameSetup {
    GameSetup {
        number: 1,
        names: ["north".into(), "south".into()],
        start: start.map(|fen| fen.parse().unwrap()),
        stop_after: [false, false],
    }
}

fn acc(name: &str, code: char) -> String {
    format!("A{name:<32}{code}")
}

struct Referee {
    machine: RefereeMachine,
    now: Instant,
    /// Every output so far.
    log: Vec<RefereeOutput>,
}

impl Referee {
    fn new(setup: GameSetup, config: RefereeConfig) -> Referee {
        let now = Instant::now();
        let mut machine = RefereeMachine::new(setup, config, now);
        let log = machine.start(now);
        Referee { machine, now, log }
    }

    /// Both programs accept; returns the referee ready for the first move.
    fn started(setup: GameSetup, config: RefereeConfig) -> Referee {
        let mut referee = Referee::new(setup, config);
        let mover = referee.machine.mover();
        referee.from(!mover, &acc("Second", '0'));
        referee.from(mover, &acc("First", '0'));
        referee
    }

    fn handle(&mut self, input: RefereeInput) -> Vec<RefereeOutput> {
        let out = self.machine.handle(self.now, input);
        self.log.extend(out.clone());
        out
    }

    /// The program of `color` sends `text`.
    fn from(&mut self, color: Color, text: &str) -> Vec<RefereeOutput> {
        let message = decode(text.as_bytes()).expect("a valid message");
        self.handle(RefereeInput::Peer(color, Incoming::Message(message)))
    }

    fn wait(&mut self, time: Duration) -> Vec<RefereeOutput> {
        self.now += time;
        self.handle(RefereeInput::Tick)
    }

    /// Everything sent to `color` so far, as text.
    fn sent_to(&self, color: Color) -> Vec<String> {
        sent(&self.log, color)
    }

    fn report(self) -> GameReport {
        assert!(self.machine.is_done(), "the game is over: {:?}", self.log);
        self.machine.into_report()
    }
}

fn sent(outputs: &[RefereeOutput], to: Color) -> Vec<String> {
    outputs
        .iter()
        .filter_map(|output| match output {
            RefereeOutput::Send(color, message) if *color == to => Some(message.to_string()),
            _ => None,
        })
        .collect()
}

fn closed(outputs: &[RefereeOutput], color: Color) -> bool {
    outputs.contains(&RefereeOutput::Close(color))
}

fn disqualified(outputs: &[RefereeOutput]) -> Vec<(Color, Reason)> {
    outputs
        .iter()
        .filter_map(|output| match output {
            RefereeOutput::Event(RefereeEvent::Disqualified { color, reason, .. }) => {
                Some((*color, *reason))
            }
            _ => None,
        })
        .collect()
}

/// The GAMEREQ goes to the second mover first, each with its own colour and the opponent's
/// name; moves are relayed with the time measured; the game needs both acceptances.
#[test]
fn requests_in_order_and_moves_relayed() {
    let mut referee = Referee::new(setup(None), config());
    assert_eq!(
        referee.sent_to(BLACK),
        [format!("R01{:<32}Z000000A", "north")],
        "black first, told it plays Z against north"
    );
    assert!(referee.sent_to(WHITE).is_empty());
    let out = referee.from(BLACK, &acc("Black Program", '0'));
    assert_eq!(sent(&out, WHITE), [format!("R01{:<32}W000000A", "south")]);
    let out = referee.from(WHITE, &acc("White Program", '0'));
    assert!(out.iter().all(|o| !matches!(o, RefereeOutput::Send(..))));

    referee.now += Duration::from_millis(2_500);
    let out = referee.from(WHITE, "M0002322800");
    assert_eq!(
        sent(&out, BLACK),
        ["M0002322800"],
        "relayed with 2 whole seconds"
    );
    assert!(out.contains(&RefereeOutput::Event(RefereeEvent::Moved {
        ply: 1,
        color: WHITE,
        text: "32-28".into(),
        millis: 2_500,
    })));
    let out = referee.from(BLACK, "M0000192300");
    assert_eq!(sent(&out, WHITE), ["M0000192300"]);
    assert_eq!(referee.machine.game().ply(), 2);
    assert!(!referee.machine.is_done());
}

/// A program that sends a GAMEREQ of its own before it is asked (it is the Follower) has it
/// ignored, and its game runs as any other.
#[test]
fn a_gamereq_from_a_program_is_ignored() {
    let mut referee = Referee::new(setup(None), config());
    let out = referee.from(WHITE, &format!("R01{:<32}Z000000A", "white"));
    assert!(sent(&out, WHITE).is_empty() && disqualified(&out).is_empty());
    referee.from(BLACK, &acc("Black Program", '0'));
    referee.from(WHITE, &acc("White Program", '0'));
    let out = referee.from(WHITE, "M0000322800");
    assert_eq!(sent(&out, BLACK), ["M0000322800"]);
    assert!(disqualified(&referee.log).is_empty());
}

/// An illegal move forfeits at once: both get a GAMEEND (reason from the opponent's seat),
/// both acknowledge, both connections stay for the next game.
#[test]
fn illegal_move_forfeits() {
    let mut referee = Referee::started(setup(None), config());
    let out = referee.from(WHITE, "M0000332700");
    assert_eq!(disqualified(&out), [(WHITE, Reason::IllegalMove)]);
    assert_eq!(sent(&out, WHITE), ["E30"], "the loser hears 'I win'");
    assert_eq!(sent(&out, BLACK), ["E10"], "the winner hears 'I give up'");
    referee.from(WHITE, "E00");
    referee.from(BLACK, "E00");
    let report = referee.report();
    assert_eq!(report.verdict.result, GameResult::BlackWins);
    assert_eq!(report.verdict.reason, Reason::IllegalMove);
    assert!(
        report
            .verdict
            .detail
            .contains("no legal move goes from 33 to 27")
    );
    assert_eq!(report.keep, [true, true]);
}

/// A move out of turn forfeits; the program that is thinking gets its GAMEEND only after its
/// move, which is not relayed.
#[test]
fn out_of_turn_forfeits_and_the_thinker_finishes_its_move() {
    let mut referee = Referee::started(setup(None), config());
    let out = referee.from(BLACK, "M0000192300");
    assert_eq!(disqualified(&out), [(BLACK, Reason::OutOfTurn)]);
    assert_eq!(sent(&out, BLACK), ["E30"]);
    assert!(
        sent(&out, WHITE).is_empty(),
        "white is thinking: it is not our turn"
    );
    let out = referee.from(WHITE, "M0000322800");
    assert_eq!(
        sent(&out, WHITE),
        ["E10"],
        "its move is not relayed: E instead"
    );
    assert!(sent(&out, BLACK).is_empty());
    referee.from(WHITE, "E00");
    referee.from(BLACK, "E00");
    assert_eq!(referee.report().verdict.result, GameResult::WhiteWins);
}

/// A move that ends the game by the rules is not relayed: both get a GAMEEND on the
/// referee's turn.
#[test]
fn a_rules_ending_is_not_relayed() {
    let mut referee = Referee::started(setup(Some("W:W28:B23")), config());
    assert!(referee.sent_to(BLACK)[0].ends_with(&format!(
        "B{}",
        "W".to_owned() + &"e".repeat(22) + "z" + &"e".repeat(4) + "w" + &"e".repeat(22)
    )));
    let out = referee.from(WHITE, "M000028190123");
    assert_eq!(sent(&out, BLACK), ["E30"], "no MOVE for black, who lost");
    assert_eq!(sent(&out, WHITE), ["E10"]);
    referee.from(WHITE, "E00");
    referee.from(BLACK, "E00");
    let report = referee.report();
    assert_eq!(report.verdict.result, GameResult::WhiteWins);
    assert_eq!(report.verdict.reason, Reason::NoMoves);
    assert_eq!(report.verdict.detail, "black has no legal move");
    assert_eq!(report.moves.len(), 1);
}

/// At the move cap the game is adjudicated (here by material: equal, a draw) and the last
/// move is not relayed.
#[test]
fn the_move_cap_adjudicates() {
    let mut config = config();
    config.adjudication.max_moves = Some(1);
    let mut referee = Referee::started(setup(None), config);
    referee.from(WHITE, "M0000322800");
    let out = referee.from(BLACK, "M0000192300");
    assert_eq!(sent(&out, WHITE), ["E20"]);
    assert_eq!(sent(&out, BLACK), ["E20"]);
    referee.from(WHITE, "E00");
    referee.from(BLACK, "E00");
    let verdict = referee.report().verdict;
    assert_eq!(verdict.result, GameResult::Draw);
    assert_eq!(verdict.reason, Reason::MoveCap);
    assert_eq!(
        verdict.detail,
        "1 moves each; material 20-20 (a king counts 3): a draw"
    );
}

/// A program silent past its move time-out forfeits, gets a GAMEEND with stop code 1 and is
/// disconnected; the other program's connection stays.
#[test]
fn silence_forfeits() {
    let mut referee = Referee::started(setup(None), config());
    assert!(referee.wait(Duration::from_secs(9)).is_empty());
    let out = referee.wait(Duration::from_secs(2));
    assert_eq!(disqualified(&out), [(WHITE, Reason::Silent)]);
    assert_eq!(sent(&out, WHITE), ["E01"]);
    assert!(closed(&out, WHITE));
    assert_eq!(sent(&out, BLACK), ["E10"]);
    referee.from(BLACK, "E00");
    let report = referee.report();
    assert_eq!(report.keep, [false, true]);
    assert_eq!(report.verdict.detail, "no move within 11.0 s");
}

/// With loss on time, a move that comes after the time (plus the margin) forfeits and is not
/// played.
#[test]
fn loss_on_time() {
    let mut config = config();
    config.minutes = 1;
    config.time_loss = true;
    config.move_timeout = None;
    let mut referee = Referee::started(setup(None), config);
    referee.now += Duration::from_millis(61_500);
    let out = referee.from(WHITE, "M0061322800");
    assert_eq!(disqualified(&out), [(WHITE, Reason::Time)]);
    assert!(sent(&out, BLACK).iter().all(|m| m.starts_with('E')));
    assert!(referee.machine.game().moves().is_empty());
}

/// No GAMEACC in time is silence; a refusal forfeits without asking the other program.
#[test]
fn refusals_and_missing_answers_forfeit() {
    let mut referee = Referee::new(setup(None), config());
    let out = referee.from(BLACK, &acc("Picky", '2'));
    assert_eq!(disqualified(&out), [(BLACK, Reason::Refused)]);
    assert!(referee.sent_to(WHITE).is_empty(), "white was never asked");
    let report = referee.report();
    assert_eq!(report.verdict.result, GameResult::WhiteWins);
    assert_eq!(report.verdict.detail, "GAMEACC code 2: game not acceptable");
    assert_eq!(report.keep, [true, true]);

    let mut referee = Referee::new(setup(None), config());
    let out = referee.wait(Duration::from_secs(6));
    assert_eq!(disqualified(&out), [(BLACK, Reason::Silent)]);
    assert!(closed(&out, BLACK));
    assert_eq!(referee.report().keep, [true, false]);
}

/// A frame that does not decode in place of the GAMEACC is a protocol error at once (not a
/// silence after the reply time-out), and the connection is closed.
#[test]
fn an_unreadable_gameacc_is_a_protocol_error() {
    let mut referee = Referee::new(setup(None), config());
    let bad = damx_wire::Framer::new()
        .next_message(&mut bytes::BytesMut::from(&b"Ashort\0"[..]))
        .unwrap_err();
    let out = referee.handle(RefereeInput::Peer(BLACK, Incoming::Bad(bad)));
    assert_eq!(disqualified(&out), [(BLACK, Reason::ProtocolError)]);
    assert!(closed(&out, BLACK));
    let report = referee.report();
    assert!(
        report.verdict.detail.contains("instead of a GAMEACC"),
        "{}",
        report.verdict.detail
    );
    assert_eq!(report.keep, [true, false]);
}

/// A crash while the opponent thinks: the crash forfeits, the opponent finishes its move and
/// gets its GAMEEND.
#[test]
fn a_crash_forfeits() {
    let mut referee = Referee::started(setup(None), config());
    referee.from(WHITE, "M0000322800");
    let out = referee.handle(RefereeInput::Lost {
        side: WHITE,
        crashed: Some("exit status: 1".into()),
    });
    assert_eq!(disqualified(&out), [(WHITE, Reason::Crash)]);
    assert!(sent(&out, BLACK).is_empty());
    let out = referee.from(BLACK, "M0000192300");
    assert_eq!(sent(&out, BLACK), ["E10"]);
    referee.from(BLACK, "E00");
    let report = referee.report();
    assert_eq!(report.verdict.detail, "the program exited (exit status: 1)");
    assert_eq!(report.keep, [false, true]);
}

/// GAMEEND claims: a resignation loses; a draw claim is adjudicated by default, taken at its
/// word when trusted, and forfeits when strict.
#[test]
fn claims() {
    let mut referee = Referee::started(setup(None), config());
    let out = referee.from(WHITE, "E10");
    assert_eq!(sent(&out, WHITE), ["E00"], "acknowledged at once");
    assert_eq!(sent(&out, BLACK), ["E10"]);
    referee.from(BLACK, "E00");
    let verdict = referee.report().verdict;
    assert_eq!(
        (verdict.result, verdict.reason),
        (GameResult::BlackWins, Reason::Resigned)
    );

    let claim = |policy, fen: &str, text: &str| {
        let mut config = config();
        config.claims = policy;
        let mut referee = Referee::started(setup(Some(fen)), config);
        referee.from(WHITE, text);
        referee.from(BLACK, "E00");
        referee.report().verdict
    };
    let even = "W:W31,32:B19,20";
    let ahead = "W:W31,32,33,34:B19,20";
    let verdict = claim(ClaimPolicy::Adjudicate, even, "E20");
    assert_eq!(
        (verdict.result, verdict.reason),
        (GameResult::Draw, Reason::DrawClaim)
    );
    let verdict = claim(ClaimPolicy::Adjudicate, ahead, "E20");
    assert_eq!(verdict.result, GameResult::WhiteWins, "{}", verdict.detail);
    assert_eq!(
        verdict.detail,
        "white claimed a draw; material 4-2 (a king counts 3): white wins"
    );
    let verdict = claim(ClaimPolicy::Trust, even, "E30");
    assert_eq!(
        (verdict.result, verdict.reason),
        (GameResult::WhiteWins, Reason::WinClaim)
    );
    let verdict = claim(ClaimPolicy::Strict, ahead, "E20");
    assert_eq!(verdict.reason, Reason::FalseClaim);
    assert_eq!(verdict.disqualified, [WHITE]);
}

/// Protocol errors forfeit; a take-back request gets K1, a chat and an empty frame change
/// nothing.
#[test]
fn protocol_errors_and_harmless_messages() {
    let mut referee = Referee::started(setup(None), config());
    let out = referee.from(BLACK, "B001W");
    assert_eq!(sent(&out, BLACK), ["K1"]);
    referee.from(WHITE, "Chello");
    let empty = StreamError::Frame(
        damx_wire::Framer::new()
            .next_frame(&mut bytes::BytesMut::from(&b"\0"[..]))
            .unwrap_err(),
    );
    let out = referee.handle(RefereeInput::Peer(WHITE, Incoming::Bad(empty)));
    assert!(disqualified(&out).is_empty());
    let out = referee.from(WHITE, &acc("Again", '0'));
    assert_eq!(disqualified(&out), [(WHITE, Reason::ProtocolError)]);
}

/// Abort: result `*`, stop code 1 to both; the thinking program gets its GAMEEND after the
/// reply time-out at the latest.
#[test]
fn abort_stops_both() {
    let mut referee = Referee::started(setup(None), config());
    let out = referee.handle(RefereeInput::Abort);
    assert_eq!(sent(&out, BLACK), ["E01"]);
    assert!(sent(&out, WHITE).is_empty());
    let out = referee.wait(Duration::from_secs(5));
    assert_eq!(sent(&out, WHITE), ["E01"]);
    referee.from(WHITE, "E01");
    referee.from(BLACK, "E01");
    let report = referee.report();
    assert_eq!(report.verdict.reason, Reason::Aborted);
    assert_eq!(report.verdict.result, GameResult::Unfinished);
    assert_eq!(report.keep, [false, false], "both asked to stop");
}

/// `stop_after` puts stop code 1 in the referee's GAMEEND and closes after the handshake; a
/// missing acknowledgement is only noted.
#[test]
fn stop_codes_and_missing_acknowledgements() {
    let mut setup = setup(None);
    setup.stop_after = [true, false];
    let mut referee = Referee::started(setup, config());
    let out = referee.from(WHITE, "M0000332700");
    assert_eq!(sent(&out, WHITE), ["E31"]);
    assert_eq!(sent(&out, BLACK), ["E10"]);
    let out = referee.from(WHITE, "E01");
    assert!(closed(&out, WHITE));
    let out = referee.wait(Duration::from_secs(6));
    assert!(
        out.iter()
            .any(|o| matches!(o, RefereeOutput::Event(RefereeEvent::Note { .. })))
    );
    assert_eq!(referee.report().keep, [false, true]);
}

/// Told to stop after the game (a first Ctrl-C), the game plays on and its GAMEENDs carry
/// stop code 1.
#[test]
fn stop_after_the_game() {
    let mut referee = Referee::started(setup(None), config());
    assert!(referee.handle(RefereeInput::StopAfter).is_empty());
    referee.from(WHITE, "M0000322800");
    let out = referee.from(BLACK, "E10");
    assert_eq!(sent(&out, BLACK), ["E01"]);
    assert_eq!(sent(&out, WHITE), ["E11"]);
    referee.from(WHITE, "E01");
    let report = referee.report();
    assert_eq!(report.verdict.reason, Reason::Resigned);
    assert_eq!(report.keep, [false, false]);
}

/// The noise budget of the dialogue holds for refereed programs too: chats within the burst
/// change nothing, a flood past it forfeits (`noise`) and is sent away with stop code `1`.
#[test]
fn a_flood_of_chats_forfeits_for_noise() {
    let mut referee = Referee::started(setup(None), config());
    for _ in 0..20 {
        referee.from(Color::White, "Chello");
    }
    assert!(
        referee.machine.verdict().is_none(),
        "a burst of 20 is allowed"
    );
    let out = referee.from(Color::White, "Chello");
    assert_eq!(disqualified(&out), [(Color::White, Reason::Noise)]);
    assert_eq!(sent(&out, Color::White), ["E01"]);
    assert!(closed(&out, Color::White));
    assert_eq!(
        referee.machine.verdict().map(|v| v.result),
        Some(GameResult::BlackWins)
    );
}

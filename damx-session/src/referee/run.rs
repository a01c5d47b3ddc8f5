//! [`play_game`]: the [`RefereeMachine`] over two running programs, in one `select!` loop.

use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, at, never, select};
use damx_rules::Color;

use super::{GameReport, GameSetup, Instance, RefereeConfig, RefereeControl, RefereeEvent};
use super::{RefereeInput, RefereeMachine, RefereeOutput};
use crate::machine::Incoming;

/// How long the referee waits, once a connection has ended, for the process to be seen as
/// exited (a crash rather than a lost connection).
const EXIT_WAIT: Duration = Duration::from_millis(300);

/// Referees one game between `white` and `black` (running instances, kept connected between
/// games) and returns its report; `on_event` hears what happens as it happens.
/// [`RefereeControl::finish`] and [`RefereeControl::last_games`] make the game's GAMEENDs
/// carry stop code `1`;
/// [`RefereeControl::abort`] aborts the game: result `*`, both programs told to stop.
///
/// It does not fail: whatever goes wrong is a verdict in the report. An instance whose
/// [`GameReport::keep`] is `false` should be stopped and not used again.
pub fn play_game(
    white: &mut Instance,
    black: &mut Instance,
    setup: &GameSetup,
    config: &RefereeConfig,
    control: &RefereeControl,
    on_event: &mut dyn FnMut(RefereeEvent),
) -> GameReport {
    let mut instances = [white, black];
    let mut machine = RefereeMachine::new(setup.clone(), config.clone(), Instant::now());
    let mut closed = [false, false];
    let outputs = machine.start(Instant::now());
    carry_out(outputs, &instances, &mut closed, on_event);
    let mut incoming = [
        instances[0].connection().incoming().clone(),
        instances[1].connection().incoming().clone(),
    ];
    let mut abort = control.aborted().clone();
    let mut finishing = false;
    while !machine.is_done() {
        let timer = machine.next_deadline().map(at).unwrap_or_else(never);
        let input = select! {
            recv(incoming[0]) -> item => peer_input(Color::White, item.ok(), &mut incoming, &mut instances),
            recv(incoming[1]) -> item => peer_input(Color::Black, item.ok(), &mut incoming, &mut instances),
            recv(abort) -> _ => {
                abort = never();
                RefereeInput::Abort
            },
            recv(timer) -> _ => RefereeInput::Tick,
        };
        if !finishing && control.stops_after_games() {
            finishing = true;
            machine.handle(Instant::now(), RefereeInput::StopAfter);
        }
        let outputs = machine.handle(Instant::now(), input);
        carry_out(outputs, &instances, &mut closed, on_event);
    }
    let mut report = machine.into_report();
    for color in [Color::White, Color::Black] {
        report.keep[color.index()] &= !closed[color.index()];
    }
    report
}

/// What arrived from `side`: a message or a bad frame as it is; the end of the stream, a
/// failure or the channel gone as the end of the connection (a crash if the process exited).
fn peer_input(
    side: Color,
    item: Option<Incoming>,
    incoming: &mut [Receiver<Incoming>; 2],
    instances: &mut [&mut Instance; 2],
) -> RefereeInput {
    match item {
        Some(item @ (Incoming::Message(_) | Incoming::Bad(_))) => RefereeInput::Peer(side, item),
        _ => {
            incoming[side.index()] = never();
            let crashed = instances[side.index()].exit_status(EXIT_WAIT);
            RefereeInput::Lost { side, crashed }
        }
    }
}

fn carry_out(
    outputs: Vec<RefereeOutput>,
    instances: &[&mut Instance; 2],
    closed: &mut [bool; 2],
    on_event: &mut dyn FnMut(RefereeEvent),
) {
    for output in outputs {
        match output {
            RefereeOutput::Send(color, message) => {
                if !closed[color.index()] {
                    instances[color.index()].connection().send(message);
                }
            }
            // The caller stops the instance; what was queued still goes out then.
            RefereeOutput::Close(color) => closed[color.index()] = true,
            RefereeOutput::Event(event) => on_event(event),
        }
    }
}

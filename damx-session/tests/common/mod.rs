//! Helpers shared by the socket tests: hard time limits, waiting for events, a player the test
//! moves by hand.

#![allow(dead_code, unreachable_pub)]

pub mod raw_peer;

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::thread;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender, select, unbounded};
use damx_rules::{Game, Move};
use damx_session::{
    ClockState, Command, Control, Endpoint, Event, FirstLegalPlayer, FollowerConfig,
    InitiatorConfig, Player, RandomPlayer, SessionConfig, SessionError, SessionReport, StopSignal,
    TakeBackPolicy,
};
use std::net::SocketAddr;

/// Runs `test` on its own thread and fails if it takes longer than `limit`: no socket test can
/// hang the suite.
pub fn bounded<T: Send + 'static>(limit: Duration, test: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = unbounded();
    thread::spawn(move || {
        let _ = tx.send(std::panic::catch_unwind(std::panic::AssertUnwindSafe(test)));
    });
    match rx.recv_timeout(limit) {
        Ok(Ok(value)) => value,
        Ok(Err(panic)) => std::panic::resume_unwind(panic),
        Err(_) => panic!("the test did not finish within {limit:?}"),
    }
}

/// A Follower playing the first legal move, run by `damx_session::run` on a free port of
/// 127.0.0.1 on a thread of its own; the address it says it listens on.
pub fn listening_follower() -> (
    thread::JoinHandle<Result<SessionReport, SessionError>>,
    SocketAddr,
) {
    let (events_tx, events) = unbounded();
    let (_control, commands) = Control::new();
    let follower = thread::spawn(move || {
        damx_session::run(
            &Endpoint::Listen("127.0.0.1:0".parse().unwrap()),
            &quick(SessionConfig::follower(FollowerConfig::default())),
            Box::new(FirstLegalPlayer::new("First")),
            commands,
            events_tx,
        )
    });
    let address = wait_for(&events, |event| match event {
        Event::Listening(address) => Some(*address),
        _ => None,
    });
    (follower, address)
}

/// An Initiator making random moves, run by `damx_session::run` to `address` with `plan`, to
/// its end.
pub fn connecting_initiator(address: SocketAddr, plan: InitiatorConfig) -> SessionReport {
    let (_control, commands) = Control::new();
    damx_session::run(
        &Endpoint::Connect(address.into()),
        &quick(SessionConfig::initiator(plan)),
        Box::new(RandomPlayer::new("Random", 7)),
        commands,
        unbounded().0,
    )
    .expect("someone listens")
}

/// Waits (at most 10 s) for the first event that `pick` accepts; returns what it picked.
pub fn wait_for<T>(events: &Receiver<Event>, mut pick: impl FnMut(&Event) -> Option<T>) -> T {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match events.recv_deadline(deadline) {
            Ok(event) => {
                if let Some(found) = pick(&event) {
                    return found;
                }
            }
            Err(error) => panic!("no such event in time: {error}"),
        }
    }
}

/// Every event until the channel closes (the session is over), at most 10 s.
pub fn drain(events: &Receiver<Event>) -> Vec<Event> {
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut all = Vec::new();
    while let Ok(event) = events.recv_deadline(deadline) {
        all.push(event);
    }
    all
}

/// A configuration for fast tests: no gap between frames, short replies.
pub fn quick(mut config: SessionConfig) -> SessionConfig {
    config.frame_gap = Duration::ZERO;
    config.timeouts.reply = Duration::from_secs(5);
    config
}

/// A temporary directory for one test, empty, under the build's scratch directory
/// (`target/tmp`, so that `cargo clean` removes it).
///
/// A test's directory stays after it (what a failed test wrote is there to look at): each test
/// process holds a lock on its own directories while it runs and removes those of earlier runs
/// that no process holds any more.
pub fn temp_dir(name: &str) -> PathBuf {
    static OWN: OnceLock<(PathBuf, File)> = OnceLock::new();
    let (own, _lock) = OWN.get_or_init(|| {
        let runs = Path::new(env!("CARGO_TARGET_TMPDIR")).join("session-tests");
        for run in std::fs::read_dir(&runs).into_iter().flatten().flatten() {
            let lock = File::open(run.path().join("lock"));
            if lock.is_ok_and(|lock| lock.try_lock().is_ok()) {
                let _ = std::fs::remove_dir_all(run.path());
            }
        }
        let own = runs.join(std::process::id().to_string());
        std::fs::create_dir_all(&own).unwrap();
        // Locked before it takes its name, so that no other run sees it unlocked.
        let lock = File::create(own.join("lock.new")).unwrap();
        lock.lock().unwrap();
        std::fs::rename(own.join("lock.new"), own.join("lock")).unwrap();
        (own, lock)
    });
    let dir = own.join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Plays the first legal move when the test opens its gate for the current ply; returns at
/// once when told to stop. A token names its ply, so a thinking that was stopped (and whose
/// answer the session ignores) cannot use up the token meant for the one after it.
pub struct GatedPlayer {
    name: String,
    gate: Receiver<usize>,
    opened: Vec<usize>,
    policy: TakeBackPolicy,
}

impl GatedPlayer {
    /// The player and its gate: `send(ply)` lets it move once at that ply.
    pub fn new(name: &str, policy: TakeBackPolicy) -> (GatedPlayer, Sender<usize>) {
        let (open, gate) = unbounded();
        let player = GatedPlayer {
            name: name.into(),
            gate,
            opened: Vec::new(),
            policy,
        };
        (player, open)
    }
}

impl Player for GatedPlayer {
    fn name(&self) -> &str {
        &self.name
    }

    fn choose_move(&mut self, game: &Game, _: &ClockState, stop: &StopSignal) -> Option<Move> {
        loop {
            if stop.is_stopped() {
                return None;
            }
            if let Some(index) = self.opened.iter().position(|&ply| ply == game.ply()) {
                self.opened.swap_remove(index);
                return game.position().legal_moves().first().copied();
            }
            select! {
                recv(self.gate) -> ply => self.opened.push(ply.ok()?),
                default(Duration::from_millis(5)) => {}
            }
        }
    }

    fn take_back_policy(&self) -> TakeBackPolicy {
        self.policy
    }
}

/// Shorthand for a command.
pub fn chat(text: &str) -> Command {
    Command::Chat(text.into())
}

//! `damx hub` as a real process: input closed at any point ends it at once and cleanly (what
//! each bad line gets: damx-session's hub tests); `damx hub` as a match participant and behind
//! `damx follow`.

use std::time::Duration;

mod common;
use common::{Damx, words};

const START: &str = "Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww";

/// `damx hub` with a small table.
fn start() -> Damx {
    Damx::start(&["hub", "--hash", "4"])
}

/// The lines up to the first that starts with `prefix`.
fn until(hub: &mut Damx, prefix: &str) -> Vec<String> {
    hub.until(prefix, |line| line.starts_with(prefix))
}

/// Closes the input and checks that the process exits at once and cleanly.
fn close(hub: Damx) {
    hub.exits_within(0, Duration::from_secs(10));
}

/// Waits at most two minutes for the process to end cleanly; returns everything it wrote.
fn finish(process: Damx) -> String {
    let (out, errors) = process.exits_within(0, Duration::from_secs(120));
    out + &errors
}

/// Input closed in the middle of an unlimited search: the process exits at once, cleanly.
#[test]
fn input_closed_during_a_search() {
    let mut hub = start();
    hub.send(format!("pos pos={START}\nlevel infinite\ngo analyze\n").as_bytes());
    until(&mut hub, "info");
    close(hub);
}

/// Input closed without a newline after a partial line, and with nothing at all.
#[test]
fn input_closed_early() {
    let mut hub = start();
    hub.send(b"hub\nin");
    until(&mut hub, "wait");
    close(hub);
    close(start());
}

/// `damx hub` itself as the Hub participant of a match against the built-in engine.
#[cfg(unix)]
#[test]
fn match_between_a_hub_engine_and_the_builtin_one() {
    let hub = format!(
        "hub:{} hub --hash 4,name=viahub,depth=2",
        env!("CARGO_BIN_EXE_damx")
    );
    let mut args = vec!["match", "--engine", &hub, "--engine"];
    args.extend(words(
        "builtin,depth=2,hash=4 --games 2 --minutes 0 --max-moves 60 --adjudicate material --pace 0",
    ));
    let text = finish(Damx::start(&args));
    assert!(text.contains("\nEND complete\n"), "{text}");
    assert_eq!(text.matches("\nRESULT ").count(), 2, "{text}");
    assert!(!text.contains("gave up"), "{text}");
}

/// `damx follow --engine hub:"damx hub"` plays a whole DXP game against `damx initiate`.
#[cfg(unix)]
#[test]
fn follow_with_a_hub_engine() {
    let hub = format!("hub:{} hub --hash 4", env!("CARGO_BIN_EXE_damx"));
    let mut args = vec!["follow", "--engine", &hub];
    args.extend(words("--listen 127.0.0.1:0 --games 1 --depth 2 --pace 0"));
    let mut follower = Damx::start(&args);
    let address = follower.listening_address();
    let initiate =
        format!("initiate --connect {address} --games 1 --depth 2 --hash 4 --pace 0 --minutes 5");
    let text = finish(Damx::line(&initiate));
    assert!(text.contains("game 1 over"), "{text}");
    assert!(!text.contains("gave up"), "{text}");
    finish(follower);
}

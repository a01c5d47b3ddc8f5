//! A DXP Follower with the damx engine: listens, plays the games it is asked for, saves them.
//!
//! ```text
//! cargo run -p damx-session --example follower -- [--listen ADDR] [--depth N] [--games N]
//!     [--pdn DIR|FILE.pdn] [--transcript FILE] [--pace MS] [--name NAME]
//! ```
//!
//! It serves one connection (default address 127.0.0.1:27531) and exits when that session is
//! over: 0 if it ended without a protocol violation, 1 otherwise, 2 for bad arguments. Events
//! go to standard error, one line each. The flags are those `damx follow` takes, so that
//! `cargo xtask interop` can run either.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use damx_engine::{EngineOptions, Limits};
use damx_session::{
    Control, Endpoint, EnginePlayer, EnginePlayerOptions, Event, FollowerConfig, PdnTarget,
    SessionConfig, run,
};

struct Args {
    listen: SocketAddr,
    depth: Option<u32>,
    games: Option<u32>,
    pdn: Option<PathBuf>,
    transcript: Option<PathBuf>,
    pace: Duration,
    name: String,
}

fn parse() -> Result<Args, String> {
    let mut args = Args {
        listen: SocketAddr::from(([127, 0, 0, 1], damx_session::DEFAULT_PORT)),
        depth: None,
        games: None,
        pdn: None,
        transcript: None,
        pace: Duration::from_millis(100),
        name: "damx".into(),
    };
    let mut words = std::env::args().skip(1);
    while let Some(flag) = words.next() {
        let mut value = || words.next().ok_or(format!("{flag} needs a value"));
        let number = |text: String| text.parse::<u32>().map_err(|e| format!("{flag}: {e}"));
        match flag.as_str() {
            "--listen" => args.listen = value()?.parse().map_err(|e| format!("--listen: {e}"))?,
            "--depth" => args.depth = Some(number(value()?)?),
            "--games" => args.games = Some(number(value()?)?),
            "--pdn" => args.pdn = Some(value()?.into()),
            "--transcript" => args.transcript = Some(value()?.into()),
            "--pace" => args.pace = Duration::from_millis(number(value()?)?.into()),
            "--name" => args.name = value()?,
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(args)
}

fn main() -> ExitCode {
    let args = match parse() {
        Ok(args) => args,
        Err(error) => {
            eprintln!("follower: {error}");
            return ExitCode::from(2);
        }
    };
    let mut config = SessionConfig::follower(FollowerConfig {
        max_games: args.games,
        ..FollowerConfig::default()
    });
    config.frame_gap = args.pace;
    config.records.transcript = args.transcript;
    config.records.pdn = args.pdn.map(|path| {
        if path.extension().is_some_and(|ext| ext == "pdn") {
            PdnTarget::File(path)
        } else {
            PdnTarget::Directory(path)
        }
    });
    let player = EnginePlayer::new(EnginePlayerOptions {
        name: args.name,
        engine: EngineOptions {
            hash_mb: 16,
            ..EngineOptions::default()
        },
        fixed: args.depth.map(Limits::depth),
        ..EnginePlayerOptions::default()
    });
    let (_control, commands) = Control::new();
    let (events, seen) = crossbeam_channel::unbounded();
    let printer = std::thread::spawn(move || {
        for event in seen {
            if let Some(line) = describe(&event) {
                eprintln!("follower: {line}");
            }
        }
    });
    eprintln!("follower: listening on {}", args.listen);
    let outcome = run(
        &Endpoint::Listen(args.listen.into()),
        &config,
        Box::new(player),
        commands,
        events,
    );
    let _ = printer.join();
    match outcome {
        Ok(report) if report.violations == 0 => ExitCode::SUCCESS,
        Ok(report) => {
            eprintln!("follower: {} protocol violations", report.violations);
            ExitCode::FAILURE
        }
        Err(error) => {
            eprintln!("follower: {error}");
            ExitCode::FAILURE
        }
    }
}

/// One line for the events worth showing.
fn describe(event: &Event) -> Option<String> {
    Some(match event {
        Event::Connected { peer } => format!("connected to {peer:?}"),
        Event::GameStarted(info) => format!(
            "game {} against {}: we play {}, {} min, move limit {:?}",
            info.number, info.peer_name, info.our_color, info.minutes, info.move_limit
        ),
        Event::GameRefused { code, why, .. } => format!("refused a game ({code:?}): {why:?}"),
        Event::MovePlayed(played) => format!("{}. {} ({:?})", played.ply, played.text, played.by),
        Event::ChatReceived(text) => format!("chat in: {text}"),
        Event::ChatSent(text) => format!("chat out: {text}"),
        Event::Violation(violation) => format!("violation: {violation}"),
        Event::PlayerError(error) => format!("player error: {error}"),
        Event::GameOver(record) => {
            format!(
                "game {} over: {} ({})",
                record.number, record.result, record.termination
            )
        }
        Event::RecordSaved { path, .. } => format!("record saved to {}", path.display()),
        Event::RecordFailed { error, .. } => format!("record not saved: {error}"),
        Event::Closed(reason) => format!("closed: {reason}"),
        _ => return None,
    })
}

//! `cargo xtask versus`: damx's built-in engine against a third-party engine over real DXP,
//! refereed by `damx match`.
//!
//! The opponent (`--opponent`) is one of:
//!
//! - `turbo` (the default): py-draughts' `TurboEngine` (PyPI `py-draughts`, GPL), the strongest
//!   international-draughts engine that installs from a package registry. It speaks no DXP, so
//!   `xtask/versus/py_draughts_follower.py` (our code, importing py-draughts) wraps it in a DXP
//!   Follower; the task makes a Python venv under the target directory (`versus-venv`) and
//!   installs the pinned py-draughts in it (once; a later run reuses it).
//! - `moby`: Moby Dam 2019, and `scan`: Scan 2.0, both DXP Followers of their own, built from
//!   their public sources outside this repository (nothing of theirs is in it). `--peers DIR`
//!   (default `$DAMX_PEERS`, else `/tmp/peers`) is where they were built, as
//!   `mobydam/main/mobydam` with `mobydam/book/book.opn` and `scan20/scan` with `scan20/data/`.
//!   The task starts each copy in a run directory of its own under the work directory: Moby Dam
//!   with its book and a standard input that never reaches end of file (it spins at end of
//!   file), Scan with a `scan.ini` for one thread, its book with a margin (so games differ),
//!   2–4-piece bitbases and a DXP server on the referee's port.
//!
//! The task
//!
//! 1. builds `damx` in release;
//! 2. runs `damx match` between the built-in engine (`damx`, with `--threads` and any
//!    `--damx KEY=VALUE` participant options) and the opponent (started by the referee for
//!    each game slot on a port of its own): `--games` games from the built-in ballots, each
//!    played twice with colours swapped, at `--minutes` per side (the DXP clock; both engines
//!    divide it themselves) or `--time` seconds a move for both (py-draughts only: the other
//!    programs think from the clock);
//! 3. prints the referee's event stream and table (W/D/L, score, Elo with its 95% margin), then
//!    each side's thinking time per game, read from the results file.
//!
//! Games are played out: no move cap and no adjudication (the referee's adjudication would use
//! damx's own engine as the judge), so the rules end every game (no moves, repetition, the 25-,
//! 16- and 5-move rules). Time is recorded, not enforced (no `--time-loss`): the summary shows
//! whether a side overstepped its clock. Both programs share the machine; with
//! `--concurrency 1` (the default) only one of them thinks at a time.
//!
//! The records, the results, each adapter's log and every DXP frame are kept under
//! `<target>/versus/<opponent>/` (cleared at the start of each run, so runs against different
//! opponents can go on side by side). `damx match` runs under a hard time
//! limit derived from the games and the time control.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use anyhow::{Context, bail};

use crate::args;
use crate::common::{Guard, build_damx, python_venv, target_dir, wait_exit, workspace_root};
use crate::players;

pub(crate) const ARGS: &str = "[--opponent turbo|moby|scan] [--peers DIR] [--games N] \
     [--minutes M | --time S] [--threads N] [--concurrency N] [--seed N] [--damx KEY=VALUE]...";

pub(crate) const ABOUT: &str = "\
damx's engine against a third-party engine over DXP, refereed by `damx match`: py-draughts'
TurboEngine (turbo, the default; installed in a venv under the target directory and wrapped
in a DXP Follower by xtask/versus/), Moby Dam 2019 (moby) or Scan 2.0 (scan), both built
under PEERS (default $DAMX_PEERS, else /tmp/peers) from their public sources (README,
\"Measuring strength\"). GAMES games (default 20) from the built-in ballots, colours swapped,
at M minutes a game per side (default 1) or S seconds a move for both (turbo only); THREADS
for damx (default 1), CONCURRENCY games at once (default 1), SEED shuffles the ballots, each
--damx KEY=VALUE is a participant option for damx (hash=64, egdb=DIR...). Prints the event
stream, the table (W/D/L, score, Elo) and each side's time.";

/// The third-party program damx plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Opponent {
    /// py-draughts' TurboEngine behind our DXP adapter.
    Turbo,
    /// Moby Dam 2019, a DXP Follower of its own.
    Moby,
    /// Scan 2.0, a DXP Follower of its own.
    Scan,
}

impl Opponent {
    fn parse(word: &str) -> anyhow::Result<Opponent> {
        match word {
            "turbo" => Ok(Opponent::Turbo),
            "moby" => Ok(Opponent::Moby),
            "scan" => Ok(Opponent::Scan),
            other => bail!("unknown opponent `{other}` (known: turbo, moby, scan)"),
        }
    }

    /// The participant's name in the event stream and the tables.
    fn name(self) -> &'static str {
        match self {
            Opponent::Turbo => "turbo",
            Opponent::Moby => "moby",
            Opponent::Scan => "scan",
        }
    }

    /// In words, for the banner.
    fn describe(self) -> String {
        match self {
            Opponent::Turbo => format!("py-draughts {PY_DRAUGHTS} TurboEngine"),
            Opponent::Moby => "Moby Dam 2019".into(),
            Opponent::Scan => "Scan 2.0".into(),
        }
    }
}

/// The py-draughts release the adapter is written against.
const PY_DRAUGHTS: &str = "1.10.1";

/// The time control both sides play.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Control {
    /// Minutes per side for the whole game, in the GAMEREQ.
    Clock(u32),
    /// Seconds a move for both, no clock in the GAMEREQ.
    PerMove(f64),
}

impl Control {
    /// A bound on one game's wall time: both clocks (or 400 plies at the fixed time), half as
    /// much again, and five minutes for slow starts and forced-move tails.
    fn game_limit(self) -> Duration {
        let thinking = match self {
            Control::Clock(minutes) => 2.0 * f64::from(minutes) * 60.0,
            Control::PerMove(seconds) => 400.0 * seconds,
        };
        Duration::from_secs_f64(1.5 * thinking + 300.0)
    }
}

pub(crate) fn run(args: &[String]) -> anyhow::Result<()> {
    let mut games = 20usize;
    let mut control = Control::Clock(1);
    let mut threads = 1usize;
    let mut concurrency = 1usize;
    let mut seed = None;
    let mut opponent = Opponent::Turbo;
    let mut peers = std::env::var_os("DAMX_PEERS")
        .map(PathBuf::from)
        .unwrap_or_else(|| "/tmp/peers".into());
    let mut damx_options = Vec::new();
    let positive = |value: &str| -> anyhow::Result<f64> {
        value
            .parse::<f64>()
            .ok()
            .filter(|number| *number > 0.0 && number.is_finite())
            .with_context(|| format!("expected a positive number, got `{value}`"))
    };
    let count = |value: &str| -> anyhow::Result<usize> {
        value
            .parse::<usize>()
            .ok()
            .filter(|number| *number > 0)
            .with_context(|| format!("expected a whole number above 0, got `{value}`"))
    };
    for (name, value) in args::named(
        args,
        &[
            "games",
            "minutes",
            "time",
            "threads",
            "concurrency",
            "seed",
            "opponent",
            "peers",
            "damx",
        ],
    )? {
        match name {
            "opponent" => opponent = Opponent::parse(value)?,
            "peers" => peers = value.into(),
            "damx" => damx_options.push(participant_option(value)?),
            "games" => games = count(value)?,
            "minutes" => control = Control::Clock(u32::try_from(count(value)?)?),
            "time" => control = Control::PerMove(positive(value)?),
            "threads" => threads = count(value)?,
            "concurrency" => concurrency = count(value)?,
            _ => seed = Some(count(value)?),
        }
    }

    if opponent != Opponent::Turbo && matches!(control, Control::PerMove(_)) {
        bail!("--time is for turbo only: the other programs think from the game clock");
    }

    let root = workspace_root();
    let target = target_dir(&root);
    let work = target.join("versus").join(opponent.name());
    if work.exists() {
        fs::remove_dir_all(&work).with_context(|| format!("clearing {}", work.display()))?;
    }
    fs::create_dir_all(&work)?;
    let opponent_json = match opponent {
        Opponent::Turbo => {
            let python = python_venv(&target, "versus-venv", "py-draughts", PY_DRAUGHTS)?;
            turbo_json(&python, &root, control)
        }
        Opponent::Moby | Opponent::Scan => {
            let launcher = write_launcher(opponent, &peers, &work)?;
            serde_json::json!({
                "name": opponent.name(),
                "cmd": [launcher.display().to_string(), "{port}"],
                "connect": "127.0.0.1:{port}",
            })
        }
    };
    let damx = build_damx(&root, &target, "versus")?;

    let engines = work.join("engines.json");
    let mut damx_json = damx_json(control, threads);
    for (key, value) in damx_options {
        damx_json[key] = value.into();
    }
    fs::write(
        &engines,
        serde_json::json!([damx_json, opponent_json]).to_string(),
    )?;
    let results = work.join("results.jsonl");
    let mut referee = Command::new(&damx);
    referee
        .arg("match")
        .arg("--engines")
        .arg(&engines)
        .args(["--games", &games.to_string()])
        .args(["--concurrency", &concurrency.to_string()])
        .args(["--max-moves", "0"])
        .arg("--results")
        .arg(&results)
        .arg("--pdn")
        .arg(work.join("games.pdn"))
        .arg("--logs")
        .arg(work.join("logs"))
        .arg("--transcripts")
        .arg(work.join("transcripts"));
    match control {
        Control::Clock(minutes) => referee.args(["--minutes", &minutes.to_string()]),
        Control::PerMove(_) => referee.args(["--minutes", "0"]),
    };
    if let Some(seed) = seed {
        referee.args(["--seed", &seed.to_string()]);
    }
    let limit = control.game_limit() * games.div_ceil(concurrency) as u32;
    println!(
        "versus: damx ({}) against {}, {games} games, {}, damx threads {threads}, \
         {concurrency} at once, load {}",
        revision(&root),
        opponent.describe(),
        match control {
            Control::Clock(minutes) => format!("{minutes} min a game each"),
            Control::PerMove(seconds) => format!("{seconds} s a move"),
        },
        players::load_average()
    );
    println!("versus: files in {}\n", work.display());

    let mut child = Guard(referee.spawn().context("starting damx match")?);
    let status = wait_exit(&mut child.0, limit);
    println!();
    if results.exists() {
        summarise(&fs::read_to_string(&results)?, control, opponent.name());
    }
    match status {
        Some(status) if status.success() => Ok(()),
        Some(status) => bail!("damx match failed ({status})"),
        None => bail!("damx match took longer than {limit:?} and was stopped"),
    }
}

/// damx's participant in `damx match --engines`: the built-in engine, on the clock or at the
/// fixed time of the control.
fn damx_json(control: Control, threads: usize) -> serde_json::Value {
    let mut damx = serde_json::json!({"name": "damx", "builtin": true, "threads": threads});
    if let Control::PerMove(seconds) = control {
        damx["movetime"] = seconds.to_string().into();
    }
    damx
}

/// py-draughts' participant: the adapter, which listens on a port the referee picks (`{port}`)
/// and is connected to.
fn turbo_json(python: &Path, root: &Path, control: Control) -> serde_json::Value {
    let script = root.join("xtask/versus/py_draughts_follower.py");
    let mut cmd = vec![
        python.display().to_string(),
        script.display().to_string(),
        "--listen".into(),
        "127.0.0.1:{port}".into(),
    ];
    if let Control::PerMove(seconds) = control {
        cmd.extend(["--time".into(), seconds.to_string()]);
    }
    serde_json::json!({"name": "turbo", "cmd": cmd, "connect": "127.0.0.1:{port}"})
}

/// A `--damx KEY=VALUE` option, for damx's participant object.
fn participant_option(text: &str) -> anyhow::Result<(&str, &str)> {
    text.split_once('=')
        .filter(|(key, _)| !key.is_empty())
        .with_context(|| format!("expected KEY=VALUE after --damx, got `{text}`"))
}

/// Writes the script that starts one copy of Moby Dam or Scan as a DXP Follower on the port it
/// is given, in a run directory of its own under `work`; returns its path. Fails when the
/// program is not built under `peers`.
fn write_launcher(opponent: Opponent, peers: &Path, work: &Path) -> anyhow::Result<PathBuf> {
    let (program, data, script) = match opponent {
        Opponent::Moby => (
            peers.join("mobydam/main/mobydam"),
            peers.join("mobydam/book/book.opn"),
            MOBY_LAUNCHER,
        ),
        Opponent::Scan => (
            peers.join("scan20/scan"),
            peers.join("scan20/data"),
            SCAN_LAUNCHER,
        ),
        Opponent::Turbo => bail!("py-draughts needs no launcher"),
    };
    for needed in [&program, &data] {
        if !needed.exists() {
            bail!(
                "{} is missing: build {} from its public sources (see the README's section \
                 \"Measuring strength\") or point --peers at where it was built",
                needed.display(),
                opponent.describe()
            );
        }
    }
    let launcher = work.join(format!("{}-dxp", opponent.name()));
    let text = script
        .replace("@PROGRAM@", &program.display().to_string())
        .replace("@DATA@", &data.display().to_string())
        .replace("@WORK@", &work.display().to_string());
    fs::write(&launcher, text)?;
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&launcher, fs::Permissions::from_mode(0o755))?;
    Ok(launcher)
}

/// Moby Dam in `@WORK@/run-moby-PORT` with its book; its standard input is a FIFO opened for
/// reading and writing, which never reaches end of file (at end of file Moby Dam spins).
const MOBY_LAUNCHER: &str = r#"#!/bin/sh
set -e
port=$1
run="@WORK@/run-moby-$port"
rm -rf "$run"; mkdir -p "$run"; cd "$run"
ln -s "@DATA@" book.opn
mkfifo stdin
exec "@PROGRAM@" -t 22 -p "$port" <> stdin
"#;

/// Scan 2.0 in `@WORK@/run-scan-PORT` with its data and a `scan.ini` for one thread, its book
/// with a margin of 2 (random among near-equal book moves), 2–4-piece bitbases, and a DXP
/// server on 127.0.0.1:PORT that thinks from the GAMEREQ's clock.
const SCAN_LAUNCHER: &str = r#"#!/bin/sh
set -e
port=$1
run="@WORK@/run-scan-$port"
rm -rf "$run"; mkdir -p "$run"; cd "$run"
ln -s "@DATA@" data
cat > scan.ini <<INI
book = true
book-margin = 2
threads = 1
tt-size = 22
bb-size = 4
dxp-server = true
dxp-host = 127.0.0.1
dxp-port = $port
dxp-initiator = false
INI
exec "@PROGRAM@" dxp
"#;

/// The commit damx is built from, and whether the tree has local changes.
fn revision(root: &Path) -> String {
    let git = |args: &[&str]| {
        Command::new("git")
            .current_dir(root)
            .args(args)
            .output()
            .ok()
            .filter(|output| output.status.success())
            .map(|output| String::from_utf8_lossy(&output.stdout).trim().to_owned())
    };
    match (
        git(&["rev-parse", "--short", "HEAD"]),
        git(&["status", "--porcelain"]),
    ) {
        (Some(commit), Some(changes)) if changes.is_empty() => commit,
        (Some(commit), Some(_)) => format!("{commit} with local changes"),
        _ => "commit unknown".into(),
    }
}

/// Prints each side's thinking time per game and the game lengths, from the results file.
fn summarise(results: &str, control: Control, opponent: &str) {
    let mut seconds = [Vec::new(), Vec::new()]; // damx, the opponent
    let mut plies = Vec::new();
    for line in results.lines() {
        let Ok(game) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        for (colour, key) in [("white", "white_seconds"), ("black", "black_seconds")] {
            let side = usize::from(game[colour] != "damx");
            if let Some(time) = game[key].as_f64() {
                seconds[side].push(time);
            }
        }
        if let Some(count) = game["plies"].as_u64() {
            plies.push(count as f64);
        }
    }
    if plies.is_empty() {
        return;
    }
    let clock = match control {
        Control::Clock(minutes) => format!(" (clock {} s)", minutes * 60),
        Control::PerMove(_) => String::new(),
    };
    println!("thinking time per game{clock}:");
    for (name, times) in ["damx", opponent].iter().zip(&seconds) {
        println!(
            "  {name:<6} mean {:6.1} s  max {:6.1} s",
            mean(times),
            times.iter().copied().fold(0.0, f64::max)
        );
    }
    println!(
        "game length: mean {:.0} plies, {} games",
        mean(&plies),
        plies.len()
    );
}

fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len().max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The adapter gets the fixed time and the built-in engine the same as its movetime; with a
    /// clock neither gets one, and the adapter's address leaves the port to the referee.
    #[test]
    fn participants_share_the_time_control() {
        let (python, root) = (Path::new("/venv/bin/python"), Path::new("/repo"));
        let damx = damx_json(Control::PerMove(0.5), 2);
        assert_eq!(damx["movetime"], "0.5");
        assert_eq!(damx["threads"], 2);
        let turbo = turbo_json(python, root, Control::PerMove(0.5));
        let cmd: Vec<&str> = turbo["cmd"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|word| word.as_str())
            .collect();
        assert_eq!(
            cmd,
            [
                "/venv/bin/python",
                "/repo/xtask/versus/py_draughts_follower.py",
                "--listen",
                "127.0.0.1:{port}",
                "--time",
                "0.5"
            ]
        );
        assert_eq!(turbo["connect"], "127.0.0.1:{port}");

        assert!(damx_json(Control::Clock(1), 1).get("movetime").is_none());
        let clocked = turbo_json(python, root, Control::Clock(1));
        assert!(!clocked["cmd"].to_string().contains("--time"));
    }

    /// The launchers name the program and its data where the peers were built, and refuse to
    /// be written when the program is missing.
    #[test]
    fn launchers_point_at_the_built_programs() {
        let dir = std::env::temp_dir().join(format!("damx-versus-{}", std::process::id()));
        let peers = dir.join("peers");
        fs::create_dir_all(peers.join("mobydam/main")).unwrap();
        fs::create_dir_all(peers.join("mobydam/book")).unwrap();
        let missing = write_launcher(Opponent::Moby, &peers, &dir).unwrap_err();
        assert!(
            missing
                .to_string()
                .contains("mobydam/main/mobydam is missing")
        );
        fs::write(peers.join("mobydam/main/mobydam"), "").unwrap();
        fs::write(peers.join("mobydam/book/book.opn"), "").unwrap();
        let launcher = write_launcher(Opponent::Moby, &peers, &dir).unwrap();
        let text = fs::read_to_string(&launcher).unwrap();
        assert!(text.contains(&format!(
            "exec \"{}\"",
            peers.join("mobydam/main/mobydam").display()
        )));
        assert!(text.contains("<> stdin"));
        assert!(write_launcher(Opponent::Scan, &peers, &dir).is_err());
        fs::remove_dir_all(&dir).unwrap();
    }

    /// Participant options are KEY=VALUE; the opponents are the three known names.
    #[test]
    fn options_are_checked() {
        assert_eq!(participant_option("hash=64").unwrap(), ("hash", "64"));
        assert!(participant_option("hash").is_err());
        assert!(participant_option("=1").is_err());
        assert_eq!(Opponent::parse("scan").unwrap(), Opponent::Scan);
        assert!(Opponent::parse("kingsrow").is_err());
    }

    /// A clocked game may take both clocks and half as much again, plus five minutes.
    #[test]
    fn a_game_is_bounded_by_its_clocks() {
        assert_eq!(Control::Clock(1).game_limit(), Duration::from_secs(480));
        assert_eq!(Control::PerMove(0.5).game_limit(), Duration::from_secs(600));
    }
}

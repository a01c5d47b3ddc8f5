//! `cargo xtask versus`: damx's built-in engine against a third-party engine, py-draughts'
//! `TurboEngine`, over real DXP, refereed by `damx match`.
//!
//! py-draughts (PyPI `py-draughts`, GPL) is the strongest international-draughts engine that
//! installs from a package registry; it speaks no DXP, so `xtask/versus/py_draughts_follower.py`
//! (our code, importing py-draughts) wraps it in a DXP Follower. The task
//!
//! 1. makes a Python venv under the target directory (`versus-venv`; py-draughts and the
//!    pydraughts of `cargo xtask interop` are both imported as `draughts`, so each has its own)
//!    and installs the pinned py-draughts in it (once; a later run reuses it);
//! 2. builds `damx` in release;
//! 3. runs `damx match` between the built-in engine (`damx`) and the adapter (`turbo`, started
//!    by the referee for each game slot on a port of its own): `--games` games from the
//!    built-in ballots, each played twice with colours swapped, at `--minutes` per side (the
//!    DXP clock; both engines divide it themselves) or `--time` seconds a move for both;
//! 4. prints the referee's event stream and table (W/D/L, score, Elo with its 95% margin), then
//!    each side's thinking time per game, read from the results file.
//!
//! Games are played out: no move cap and no adjudication (the referee's adjudication would use
//! damx's own engine as the judge), so the rules end every game (no moves, repetition, the 25-,
//! 16- and 5-move rules). Time is recorded, not enforced (no `--time-loss`): the summary shows
//! whether a side overstepped its clock. Both programs share the machine; with
//! `--concurrency 1` (the default) only one of them thinks at a time.
//!
//! The records, the results, each adapter's log and every DXP frame are kept under
//! `<target>/versus/` (cleared at the start of each run). `damx match` runs under a hard time
//! limit derived from the games and the time control.

use std::fs;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use anyhow::{Context, bail};

use crate::common::{Guard, python_venv, run_bounded, target_dir, wait_exit, workspace_root};
use crate::players;

pub(crate) const ARGS: &str =
    "[--games N] [--minutes M | --time S] [--threads N] [--concurrency N] [--seed N]";

pub(crate) const ABOUT: &str = "\
damx's engine against py-draughts' TurboEngine (a third-party engine, wrapped in a DXP
Follower by xtask/versus/) over DXP, refereed by `damx match`: GAMES games (default 20) from
the built-in ballots, colours swapped, at M minutes a game per side (default 1) or S seconds
a move for both; THREADS for damx (default 1), CONCURRENCY games at once (default 1), SEED
shuffles the ballots. Prints the event stream, the table (W/D/L, score, Elo) and each side's
time. Installs the pinned py-draughts in a venv under the target directory.";

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
    for (name, value) in players::options(
        args,
        &["games", "minutes", "time", "threads", "concurrency", "seed"],
    )? {
        match name {
            "games" => games = count(value)?,
            "minutes" => control = Control::Clock(u32::try_from(count(value)?)?),
            "time" => control = Control::PerMove(positive(value)?),
            "threads" => threads = count(value)?,
            "concurrency" => concurrency = count(value)?,
            _ => seed = Some(count(value)?),
        }
    }

    let root = workspace_root();
    let target = target_dir(&root);
    let work = target.join("versus");
    if work.exists() {
        fs::remove_dir_all(&work).with_context(|| format!("clearing {}", work.display()))?;
    }
    fs::create_dir_all(&work)?;
    let python = python_venv(&target, "versus-venv", "py-draughts", PY_DRAUGHTS)?;
    let damx = build_damx(&root, &target)?;

    let engines = work.join("engines.json");
    fs::write(
        &engines,
        engines_json(&python, &root, control, threads).to_string(),
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
        "versus: damx ({}) against py-draughts {PY_DRAUGHTS} TurboEngine, {games} games, {}, \
         damx threads {threads}, {concurrency} at once, load {}",
        revision(&root),
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
        summarise(&fs::read_to_string(&results)?, control);
    }
    match status {
        Some(status) if status.success() => Ok(()),
        Some(status) => bail!("damx match failed ({status})"),
        None => bail!("damx match took longer than {limit:?} and was stopped"),
    }
}

/// Builds the release `damx`; returns its path.
fn build_damx(root: &Path, target: &Path) -> anyhow::Result<std::path::PathBuf> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    println!("versus: building damx (release)");
    run_bounded(
        Command::new(cargo).current_dir(root).args([
            "build",
            "--quiet",
            "--release",
            "-p",
            "damx-cli",
            "--bin",
            "damx",
        ]),
        Duration::from_secs(1800),
        "building damx",
    )?;
    Ok(target.join("release/damx"))
}

/// The two participants of `damx match --engines`: the built-in engine and the adapter, which
/// listens on a port the referee picks (`{port}`) and is connected to.
fn engines_json(python: &Path, root: &Path, control: Control, threads: usize) -> serde_json::Value {
    let script = root.join("xtask/versus/py_draughts_follower.py");
    let mut cmd = vec![
        python.display().to_string(),
        script.display().to_string(),
        "--listen".into(),
        "127.0.0.1:{port}".into(),
    ];
    let mut damx = serde_json::json!({"name": "damx", "builtin": true, "threads": threads});
    if let Control::PerMove(seconds) = control {
        cmd.extend(["--time".into(), seconds.to_string()]);
        damx["movetime"] = seconds.to_string().into();
    }
    serde_json::json!([
        damx,
        {"name": "turbo", "cmd": cmd, "connect": "127.0.0.1:{port}"},
    ])
}

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
fn summarise(results: &str, control: Control) {
    let mut seconds = [Vec::new(), Vec::new()]; // damx, turbo
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
    for (name, times) in ["damx", "turbo"].iter().zip(&seconds) {
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
        let fixed = engines_json(python, root, Control::PerMove(0.5), 2);
        assert_eq!(fixed[0]["movetime"], "0.5");
        assert_eq!(fixed[0]["threads"], 2);
        let cmd: Vec<&str> = fixed[1]["cmd"]
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
        assert_eq!(fixed[1]["connect"], "127.0.0.1:{port}");

        let clocked = engines_json(python, root, Control::Clock(1), 1);
        assert!(clocked[0].get("movetime").is_none());
        assert!(!clocked[1]["cmd"].to_string().contains("--time"));
    }

    /// A clocked game may take both clocks and half as much again, plus five minutes.
    #[test]
    fn a_game_is_bounded_by_its_clocks() {
        assert_eq!(Control::Clock(1).game_limit(), Duration::from_secs(480));
        assert_eq!(Control::PerMove(0.5).game_limit(), Duration::from_secs(600));
    }
}

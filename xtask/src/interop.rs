//! `cargo xtask interop`: damx against a real third-party DXP client, pydraughts, over
//! 127.0.0.1.
//!
//! 1. Makes a Python virtual environment under the target directory (`interop-venv`) and
//!    installs the pinned pydraughts in it (once; a later run reuses it).
//! 2. Builds the damx Follower and starts it on a free port of 127.0.0.1, with a fixed search
//!    depth (so the game is the same every run), one game, PDN records and a transcript under
//!    `<target>/interop/`.
//! 3. Runs `xtask/interop/pydraughts_game.py`: pydraughts' `DXPEngine` client plays one
//!    complete game against it with damx moving first, then reads damx's PDN record with
//!    pydraughts' `PDNReader` and checks that it gives the moves played.
//! 4. Runs `xtask/interop/pydraughts_hub.py`: pydraughts' `HubEngine` drives `damx hub` as a
//!    GUI would: the handshake, positions with captures, each kind of limit, `stop` during an
//!    infinite analysis, and a whole game against pydraughts' own move list.
//!
//! Every step has a hard time limit; the Follower is killed if it outlives the check. Needs
//! `python3` (or `$PYTHON`) with `venv`, and PyPI for the first run.

use std::fs;
use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

use crate::common::{Guard, python_venv, run_bounded, target_dir, wait_exit, workspace_root};

pub(crate) const ARGS: &str = "";

pub(crate) const ABOUT: &str = "\
damx against pydraughts (the Python library): over DXP on 127.0.0.1, one complete game,
damx moving first, then damx's PDN record read back by pydraughts' PDNReader; over Hub,
pydraughts' HubEngine drives `damx hub` (handshake, captures, every limit, stop, a whole
game). Installs the pinned pydraughts in a venv under the target directory.";

/// The pydraughts release the check is written against (its quirks are documented in
/// damx-wire and damx-session).
const PYDRAUGHTS: &str = "0.6.7";

/// Which program plays the Follower: `damx follow` itself. The session crate's example takes
/// the same flags and can stand in for it when the command line is being reworked.
const FOLLOWER: Follower = Follower::Cli;

/// The search depth of the Follower's engine: fixed, so that the game is reproducible.
const DEPTH: &str = "4";

/// The seed of pydraughts' random moves.
const SEED: &str = "1";

#[derive(Clone, Copy)]
#[allow(dead_code)] // one variant is in use at a time
enum Follower {
    /// `damx-session/examples/follower.rs`.
    Example,
    /// `damx follow`.
    Cli,
}

impl Follower {
    /// The transcript file the Follower writes for `path`: `damx follow` listening writes one
    /// per connection, `transcript-1.jsonl` for the first.
    fn transcript(self, path: &Path) -> PathBuf {
        match self {
            Follower::Example => path.to_path_buf(),
            Follower::Cli => path.with_file_name("transcript-1.jsonl"),
        }
    }

    /// Builds the program; returns the command to start it, without the common flags.
    fn build(self, root: &Path, target: &Path) -> anyhow::Result<Command> {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut build = Command::new(cargo);
        build.current_dir(root).arg("build").arg("--quiet");
        match self {
            Follower::Example => build.args(["-p", "damx-session", "--example", "follower"]),
            Follower::Cli => build.args(["-p", "damx-cli", "--bin", "damx"]),
        };
        run_bounded(
            &mut build,
            Duration::from_secs(900),
            "building the Follower",
        )?;
        Ok(match self {
            Follower::Example => Command::new(target.join("debug/examples/follower")),
            Follower::Cli => {
                let mut command = Command::new(target.join("debug/damx"));
                command.arg("follow");
                command
            }
        })
    }
}

pub(crate) fn run(args: &[String]) -> anyhow::Result<()> {
    if let Some(extra) = args.first() {
        bail!("unexpected argument {extra}");
    }
    let root = workspace_root();
    let target = target_dir(&root);
    let work = target.join("interop");
    if work.exists() {
        fs::remove_dir_all(&work).with_context(|| format!("clearing {}", work.display()))?;
    }
    let records = work.join("pdn");
    fs::create_dir_all(&records)?;

    let python = python_venv(&target, "interop-venv", "pydraughts", PYDRAUGHTS)?;
    let mut follower = FOLLOWER.build(&root, &target)?;
    let address = free_port()?;
    let log = work.join("follower.log");
    let transcript = work.join("transcript.jsonl");
    follower
        .arg("--listen")
        .arg(address.to_string())
        .args(["--depth", DEPTH, "--games", "1", "--pace", "100"])
        .arg("--pdn")
        .arg(&records)
        .arg("--transcript")
        .arg(&transcript)
        .stdin(Stdio::null());
    let log_file = fs::File::create(&log)?;
    follower.stdout(log_file.try_clone()?).stderr(log_file);
    println!("interop: starting the Follower on {address}");
    let mut follower = Guard(follower.spawn().context("starting the Follower")?);
    wait_listening(address, &mut follower.0, Duration::from_secs(30))
        .with_context(|| format!("the Follower did not listen; its log:\n{}", read(&log)))?;

    let script = root.join("xtask/interop/pydraughts_game.py");
    let mut game = Command::new(&python);
    game.arg(&script)
        .arg("--port")
        .arg(address.port().to_string())
        .arg("--pdn-dir")
        .arg(&records)
        .args(["--seed", SEED]);
    let played = run_bounded(&mut game, Duration::from_secs(300), "the pydraughts game");

    // The Follower ends its session after the game (pydraughts asks to stop); wait for it.
    let exited = wait_exit(&mut follower.0, Duration::from_secs(15));
    println!("interop: Follower log ({}):\n{}", log.display(), read(&log));
    played
        .with_context(|| format!("transcript: {}", FOLLOWER.transcript(&transcript).display()))?;
    match exited {
        Some(status) if status.success() => {}
        Some(status) => bail!("the Follower exited with {status}"),
        None => println!("interop: the Follower was still running and is stopped"),
    }
    println!(
        "interop: DXP game passed (records in {}, transcript {})",
        records.display(),
        FOLLOWER.transcript(&transcript).display()
    );
    hub_check(&root, &target, &python)?;
    println!("interop: passed");
    Ok(())
}

/// pydraughts' `HubEngine` drives `damx hub` (step 4 of the module docs).
fn hub_check(root: &Path, target: &Path, python: &Path) -> anyhow::Result<()> {
    // Built by step 2 already when the Follower is `damx follow`; quick either way.
    Follower::Cli.build(root, target)?;
    let script = root.join("xtask/interop/pydraughts_hub.py");
    println!("interop: pydraughts' HubEngine drives damx hub");
    run_bounded(
        Command::new(python)
            .arg(&script)
            .arg("--damx")
            .arg(target.join("debug/damx"))
            .args(["--seed", SEED]),
        Duration::from_secs(300),
        "the pydraughts Hub check",
    )
}

/// A port of 127.0.0.1 that nothing listens on now.
fn free_port() -> anyhow::Result<SocketAddr> {
    let listener = TcpListener::bind("127.0.0.1:0").context("finding a free port")?;
    Ok(listener.local_addr()?)
}

/// Waits until something listens on `address`, without touching the port (a connection would
/// be a session, and a trial bind could take the port from the Follower): on Linux the kernel's
/// socket table says when it listens; elsewhere a short pause stands in for it.
fn wait_listening(address: SocketAddr, child: &mut Child, limit: Duration) -> anyhow::Result<()> {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if let Some(status) = child.try_wait()? {
            bail!("the Follower exited at once with {status}");
        }
        match fs::read_to_string("/proc/net/tcp") {
            Ok(table) if listening(&table, address) => return Ok(()),
            Ok(_) => thread::sleep(Duration::from_millis(50)),
            Err(_) => {
                thread::sleep(Duration::from_secs(2));
                return Ok(());
            }
        }
    }
    bail!("nothing listened on {address} within {limit:?}")
}

/// Whether `/proc/net/tcp` has a listening socket on `address` (IPv4): its lines read
/// `sl local_address rem_address st ...` with the address as little-endian hex `IP:PORT`, and
/// state `0A` for LISTEN.
fn listening(table: &str, address: SocketAddr) -> bool {
    let SocketAddr::V4(v4) = address else {
        return false;
    };
    let wanted = format!(
        "{:08X}:{:04X}",
        u32::from_le_bytes(v4.ip().octets()),
        v4.port()
    );
    table.lines().skip(1).any(|line| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        fields.get(1) == Some(&wanted.as_str()) && fields.get(3) == Some(&"0A")
    })
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A LISTEN line of the kernel's table is found by address and port, others are not.
    #[test]
    fn reads_the_socket_table() {
        let table = "  sl  local_address rem_address   st tx_queue rx_queue\n   \
            0: 0100007F:6B8B 00000000:0000 0A 00000000:00000000 00:00000000 00000000\n   \
            1: 0100007F:1F90 0100007F:C350 01 00000000:00000000 00:00000000 00000000\n";
        let at = |port| SocketAddr::from(([127, 0, 0, 1], port));
        assert!(listening(table, at(27531)));
        assert!(!listening(table, at(8080)), "connected, not listening");
        assert!(!listening(table, at(27532)));
    }
}

//! `cargo xtask chaos [--short] [--damx PATH] [--games-at-once N]`: a real `damx follow`
//! under attack while normal games are played.
//!
//! 1. starts the release `damx follow --listen 127.0.0.1:0 --max-connections 64 --depth 2`
//!    (built first unless `--damx PATH` names a binary) with its limit on open files lowered
//!    to 256 (`ulimit -n`, then `exec`), its standard output and error into one log file, at
//!    the default verbosity (every move, name and chat shown, so that the log shows what a
//!    terminal would);
//! 2. notes its descriptors and memory, then, while two clients play normal games against it
//!    one after the other (`damx initiate --depth 1`), throws every attack at it at once, each
//!    on its own thread: floods of empty frames, of undecodable frames, of BACKREQs and of
//!    CHATs; many silent connections; a silent client before GAMEREQ; a client silent on its
//!    turn with a clock and without one; a GAMEREQ of 999 minutes; control and escape
//!    characters in the name and the chats; a frame of many MiB without a NUL; clients killed
//!    (`kill -9`) in the middle of their games; more connections at once than the server has
//!    descriptors for;
//! 3. waits for the attacks and the server's connections to end, plays one more game as a new
//!    client, and stops the server with SIGTERM.
//!
//! It prints what each attack saw, the games completed, the server's peak memory (`VmHWM`),
//! the log's size, and its descriptors before and after, and fails if the server died, its
//! peak memory passed [`RSS_LIMIT_KIB`], the log passed [`LOG_LIMIT`] or holds a control
//! character, no normal game completed, or the new client was not served. `--short` (CI)
//! takes about half a minute and does not wait for the move deadlines; the default run
//! (about five minutes) waits for them and uses bigger floods. `--games-at-once N` instead
//! plays N normal games at once against `--max-connections N` and reports the peak memory.

use std::fs;
use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

use crate::common::{build_damx, target_dir, wait_exit, workspace_root};

pub(crate) const ARGS: &str = "[--short] [--damx PATH] [--games-at-once N]";

pub(crate) const ABOUT: &str = "\
start a release `damx follow` on 127.0.0.1 (ulimit -n 256) and throw every attack of a
hostile peer at it while normal games are played: prints games completed, peak memory, log
size and descriptors before and after; fails if the server died, its memory passed 512 MiB,
its log grew past 16 MiB or holds a control character, or a new client is not served after.
--short for CI (about 30 s), --damx PATH to attack another binary, --games-at-once N to play
N games at once against --max-connections N instead";

/// The most memory the server may reach, in KiB.
pub(crate) const RSS_LIMIT_KIB: u64 = 512 * 1024;
/// The largest log the server may write.
pub(crate) const LOG_LIMIT: u64 = 16 << 20;
/// The server's limit on open files.
const NOFILE: u32 = 256;

/// How hard the attacks hit.
#[derive(Clone, Copy, Debug)]
struct Scale {
    empty_bytes: usize,
    undecodable_frames: usize,
    flood_frames: usize,
    silent_connections: usize,
    giant_bytes: usize,
    killed_clients: usize,
    burst_connections: usize,
    /// Wait for the deadlines on the peer's turn (65 s with a 1-minute clock, 300 s without).
    wait_turn_deadlines: bool,
}

const SHORT: Scale = Scale {
    empty_bytes: 4 << 20,
    undecodable_frames: 100_000,
    flood_frames: 20_000,
    silent_connections: 20,
    giant_bytes: 16 << 20,
    killed_clients: 4,
    burst_connections: 300,
    wait_turn_deadlines: false,
};

const LONG: Scale = Scale {
    empty_bytes: 16 << 20,
    undecodable_frames: 500_000,
    flood_frames: 100_000,
    silent_connections: 24,
    giant_bytes: 64 << 20,
    killed_clients: 8,
    burst_connections: 600,
    wait_turn_deadlines: true,
};

pub(crate) fn run(args: &[String]) -> anyhow::Result<()> {
    let mut scale = LONG;
    let mut damx = None;
    let mut at_once = None;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--short" => scale = SHORT,
            "--damx" => damx = Some(PathBuf::from(args.next().context("--damx needs a path")?)),
            "--games-at-once" => {
                let value = args.next().context("--games-at-once needs a number")?;
                at_once = Some(
                    value
                        .parse::<usize>()
                        .context("--games-at-once needs a number")?,
                );
            }
            other => bail!("unknown argument `{other}` (takes {ARGS})"),
        }
    }
    let root = workspace_root();
    let damx = match damx {
        Some(path) => {
            fs::canonicalize(&path).with_context(|| format!("cannot find {}", path.display()))?
        }
        None => build_damx(&root, &target_dir(&root), "chaos")?,
    };
    let dir = target_dir(&root).join("chaos");
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    match at_once {
        Some(games) => games_at_once(&damx, &dir, games),
        None => chaos(&damx, &dir, scale),
    }
}

/// One attack: runs to its end and says what it saw.
type Attack = Box<dyn FnOnce() -> String + Send>;

/// The attacks, with normal games, then the checks.
fn chaos(damx: &Path, dir: &Path, scale: Scale) -> anyhow::Result<()> {
    let start = Instant::now();
    let mut server = Server::start(damx, dir, 64, NOFILE, &["--depth", "2"])?;
    let address = server.address;
    thread::sleep(Duration::from_millis(300));
    let fds_before = server.descriptors();
    let rss_before = server.status_kib("VmRSS");
    let stop_sampling = Arc::new(AtomicBool::new(false));
    println!(
        "chaos: damx follow (pid {}) on {address}, ulimit -n {NOFILE}: {} descriptors, {} KiB",
        server.pid(),
        show(fds_before),
        show(rss_before)
    );

    // The peak memory, sampled (a server that dies takes its VmHWM with it).
    let peak_seen = Arc::new(AtomicU64::new(0));
    let sampler = {
        let (peak_seen, stop) = (peak_seen.clone(), stop_sampling.clone());
        let status = format!("/proc/{}/status", server.pid());
        thread::spawn(move || {
            while !stop.load(Ordering::SeqCst) {
                if let Some(kib) = status_field(&status, "VmHWM") {
                    peak_seen.fetch_max(kib, Ordering::SeqCst);
                }
                thread::sleep(Duration::from_millis(100));
            }
        })
    };

    // Normal games all along.
    let stop = Arc::new(AtomicBool::new(false));
    let completed = Arc::new(AtomicU32::new(0));
    let refused = Arc::new(AtomicU32::new(0));
    let normal: Vec<_> = (0..2)
        .map(|_| {
            let (stop, completed, refused) = (stop.clone(), completed.clone(), refused.clone());
            let damx = damx.to_owned();
            thread::spawn(move || {
                while !stop.load(Ordering::SeqCst) {
                    if normal_game(&damx, address) {
                        completed.fetch_add(1, Ordering::SeqCst);
                    } else {
                        refused.fetch_add(1, Ordering::SeqCst);
                        thread::sleep(Duration::from_millis(300));
                    }
                }
            })
        })
        .collect();

    let report = Arc::new(Mutex::new(Vec::<String>::new()));
    let attacks: Vec<(&str, Attack)> = vec![
        (
            "empty-frame flood",
            Box::new(move || flood(address, &vec![0; scale.empty_bytes], None)),
        ),
        (
            "undecodable-frame flood",
            Box::new(move || flood(address, &b"x\0".repeat(scale.undecodable_frames), None)),
        ),
        (
            "BACKREQ flood",
            Box::new(move || {
                flood(
                    address,
                    &b"B001W\0".repeat(scale.flood_frames),
                    Some(game_request("flooder", 'Z', 5, 0)),
                )
            }),
        ),
        (
            "CHAT flood",
            Box::new(move || {
                flood(
                    address,
                    &b"Chello\0".repeat(scale.flood_frames),
                    Some(game_request("chatter", 'Z', 5, 0)),
                )
            }),
        ),
        (
            "silent connections",
            Box::new(move || {
                // A moment after the single connections, so that they find a place.
                thread::sleep(Duration::from_secs(1));
                silent_connections(address, scale.silent_connections)
            }),
        ),
        (
            "silent before GAMEREQ",
            Box::new(move || silent_until_closed(address, None, Duration::from_secs(30))),
        ),
        (
            "silent on its turn, 1-minute clock",
            Box::new(move || {
                let wait = if scale.wait_turn_deadlines { 120 } else { 0 };
                silent_until_closed(
                    address,
                    Some(game_request("sleeper", 'Z', 1, 0)),
                    Duration::from_secs(wait),
                )
            }),
        ),
        (
            "silent on its turn, no clock",
            Box::new(move || {
                let wait = if scale.wait_turn_deadlines { 360 } else { 0 };
                silent_until_closed(
                    address,
                    Some(game_request("sleeper", 'Z', 0, 0)),
                    Duration::from_secs(wait),
                )
            }),
        ),
        (
            "GAMEREQ of 999 minutes",
            Box::new(move || long_game_request(address)),
        ),
        (
            "control characters in the name and chats",
            Box::new(move || control_characters(address)),
        ),
        (
            "frame without a NUL",
            Box::new(move || flood(address, &vec![b'x'; scale.giant_bytes], None)),
        ),
        ("clients killed mid-game", {
            let damx = damx.to_owned();
            Box::new(move || {
                thread::sleep(Duration::from_secs(1));
                killed_clients(&damx, address, scale.killed_clients)
            })
        }),
        (
            "more connections than descriptors",
            Box::new(move || {
                // After the others have begun, so that it does not keep them out.
                thread::sleep(Duration::from_secs(4));
                connection_burst(address, scale.burst_connections)
            }),
        ),
    ];
    let threads: Vec<_> = attacks
        .into_iter()
        .map(|(name, attack)| {
            let report = report.clone();
            thread::spawn(move || {
                let began = Instant::now();
                let what = attack();
                let line = format!(
                    "  {name:<42} {what} ({:.1} s)",
                    began.elapsed().as_secs_f64()
                );
                println!("{line}");
                report.lock().expect("report").push(line);
            })
        })
        .collect();
    for attack in threads {
        let _ = attack.join();
    }
    stop.store(true, Ordering::SeqCst);
    for client in normal {
        let _ = client.join();
    }
    let alive = server.alive();

    // The connections of the attacks end; the server's descriptors come back.
    let settle = Instant::now();
    while alive
        && settle.elapsed() < Duration::from_secs(20)
        && server
            .descriptors()
            .zip(fds_before)
            .is_some_and(|(now, before)| now > before)
    {
        thread::sleep(Duration::from_millis(200));
    }
    let served_after = alive && normal_game(damx, address);
    let fds_after = server.descriptors();
    let alive = server.alive();
    stop_sampling.store(true, Ordering::SeqCst);
    let _ = sampler.join();
    let peak = match peak_seen.load(Ordering::SeqCst) {
        0 => None,
        kib => Some(kib),
    };
    let (exit, log) = server.stop();
    let log_size = log.len() as u64;
    let controls = log
        .iter()
        .filter(|&&byte| byte < 0x20 && byte != b'\n' && byte != b'\t' || byte == 0x7f)
        .count();

    println!("chaos: {:.0} s", start.elapsed().as_secs_f64());
    println!(
        "  normal games completed:  {} ({} not served or broken off during the attacks)",
        completed.load(Ordering::SeqCst),
        refused.load(Ordering::SeqCst)
    );
    println!(
        "  server alive after:      {}",
        if alive { "yes" } else { "NO" }
    );
    println!(
        "  new client served after: {}",
        if served_after { "yes" } else { "NO" }
    );
    println!(
        "  peak memory (VmHWM):     {} KiB (limit {RSS_LIMIT_KIB})",
        show(peak)
    );
    println!("  log:                     {log_size} bytes, {controls} control characters");
    println!(
        "  descriptors:             {} before, {} after",
        show(fds_before),
        show(fds_after)
    );
    println!("  server exit:             {exit}");
    let log_path = dir.join("server.log");
    let mut failures = Vec::new();
    if !alive {
        failures.push("the server died".to_owned());
    }
    if !served_after {
        failures.push("a new client was not served after the attacks".to_owned());
    }
    if completed.load(Ordering::SeqCst) == 0 {
        failures.push("no normal game completed during the attacks".to_owned());
    }
    if peak.is_none_or(|peak| peak > RSS_LIMIT_KIB) {
        failures.push(format!("peak memory {} KiB", show(peak)));
    }
    if log_size > LOG_LIMIT {
        failures.push(format!("a log of {log_size} bytes"));
    }
    if controls > 0 {
        failures.push(format!(
            "{controls} control characters in the log ({})",
            log_path.display()
        ));
    }
    if !failures.is_empty() {
        bail!("{}", failures.join("; "));
    }
    Ok(())
}

/// `games` normal games at once against `--max-connections games` (`ulimit -n 1024`, room
/// for 200); reports the peak memory.
fn games_at_once(damx: &Path, dir: &Path, games: usize) -> anyhow::Result<()> {
    let server = Server::start(damx, dir, games, 1024, &["--depth", "4"])?;
    let address = server.address;
    let start = Instant::now();
    let clients: Vec<_> = (0..games)
        .map(|_| {
            let damx = damx.to_owned();
            thread::spawn(move || {
                normal_game_with(&damx, address, &["--depth", "4", "--moves", "30"])
            })
        })
        .collect();
    // Sample how many play at once.
    let mut most = 0;
    while clients.iter().any(|client| !client.is_finished()) {
        most = most.max(server.descriptors().unwrap_or(0));
        thread::sleep(Duration::from_millis(100));
    }
    let completed = clients
        .into_iter()
        .map(|client| client.join().unwrap_or(false))
        .filter(|&ok| ok)
        .count();
    let peak = server.status_kib("VmHWM");
    let (_, log) = server.stop();
    let results = String::from_utf8_lossy(&log).matches(" over: ").count();
    println!(
        "games-at-once: {completed} of {games} games completed in {:.1} s, {results} results logged, at most {most} server descriptors, peak memory {} KiB",
        start.elapsed().as_secs_f64(),
        show(peak)
    );
    if completed < games {
        bail!("{} games did not complete", games - completed);
    }
    if peak.is_none_or(|peak| peak > RSS_LIMIT_KIB) {
        bail!("peak memory {} KiB", show(peak));
    }
    Ok(())
}

/// The server under test.
struct Server {
    child: Child,
    address: SocketAddr,
    log: PathBuf,
}

impl Server {
    fn start(
        damx: &Path,
        dir: &Path,
        connections: usize,
        nofile: u32,
        extra: &[&str],
    ) -> anyhow::Result<Server> {
        let log = dir.join("server.log");
        let file = fs::File::create(&log).context("cannot create the server log")?;
        let games = dir.join("games");
        let connections = connections.to_string();
        // What connections cost is measured without the endgame databases a user may have in
        // the cache directory (the 2-5-piece set alone is 400 MiB resident).
        let mut command = Command::new("sh");
        command
            .args(["-c", "ulimit -n \"$1\" && shift && exec \"$@\"", "sh"])
            .arg(nofile.to_string())
            .arg(damx)
            .args([
                "follow",
                "--egdb",
                "off",
                "--listen",
                "127.0.0.1:0",
                "--max-connections",
            ])
            .arg(&connections)
            .args(extra)
            .arg("--pdn")
            .arg(&games)
            .stdin(Stdio::null())
            .stdout(file.try_clone()?)
            .stderr(file);
        let child = command.spawn().context("cannot start damx follow")?;
        let mut server = Server {
            child,
            address: SocketAddr::from(([127, 0, 0, 1], 0)),
            log,
        };
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let text = fs::read_to_string(&server.log).unwrap_or_default();
            if let Some(address) = text
                .lines()
                .find_map(|line| line.strip_prefix("listening on "))
                .and_then(|address| address.trim().parse().ok())
            {
                server.address = address;
                return Ok(server);
            }
            if !server.alive() || Instant::now() > deadline {
                let _ = server.child.kill();
                bail!("damx follow did not start listening: {text}");
            }
            thread::sleep(Duration::from_millis(50));
        }
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Open descriptors.
    fn descriptors(&self) -> Option<usize> {
        fs::read_dir(format!("/proc/{}/fd", self.pid()))
            .ok()
            .map(|entries| entries.count())
    }

    /// A field of `/proc/PID/status` in KiB (`VmRSS`, `VmHWM`).
    fn status_kib(&self, field: &str) -> Option<u64> {
        status_field(&format!("/proc/{}/status", self.pid()), field)
    }

    /// Stops the server with SIGTERM; returns how it ended and its log.
    fn stop(mut self) -> (String, Vec<u8>) {
        if self.alive() {
            let _ = Command::new("kill")
                .args(["-TERM", &self.pid().to_string()])
                .status();
        }
        let exit = match wait_exit(&mut self.child, Duration::from_secs(20)) {
            Some(status) => status.to_string(),
            None => "did not end within 20 s of SIGTERM (killed)".to_owned(),
        };
        (exit, fs::read(&self.log).unwrap_or_default())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if self.alive() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// A field of a `/proc/PID/status` file in KiB.
fn status_field(path: &str, field: &str) -> Option<u64> {
    let status = fs::read_to_string(path).ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
}

fn show(value: Option<impl ToString>) -> String {
    value.map_or_else(|| "?".to_owned(), |value| value.to_string())
}

/// One normal game by a well-behaved client; whether it completed.
fn normal_game(damx: &Path, address: SocketAddr) -> bool {
    normal_game_with(damx, address, &["--depth", "1", "--moves", "20"])
}

fn normal_game_with(damx: &Path, address: SocketAddr, extra: &[&str]) -> bool {
    let child = Command::new(damx)
        .args([
            "initiate",
            "--connect",
            &address.to_string(),
            "--games",
            "1",
        ])
        .args(["--minutes", "0", "--pace", "0", "-q"])
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
    let Ok(mut child) = child else { return false };
    wait_exit(&mut child, Duration::from_secs(120)).is_some_and(|status| status.success())
}

/// A GAMEREQ frame: the follower plays `color` (`W` or `Z`), `minutes` each, `moves` limit.
fn game_request(name: &str, color: char, minutes: u16, moves: u16) -> Vec<u8> {
    let name: String = name
        .chars()
        .chain(std::iter::repeat(' '))
        .take(32)
        .collect();
    format!("R01{name}{color}{minutes:03}{moves:03}A\0").into_bytes()
}

fn connect(address: SocketAddr) -> io::Result<TcpStream> {
    let stream = TcpStream::connect_timeout(&address, Duration::from_secs(5))?;
    stream.set_read_timeout(Some(Duration::from_millis(200)))?;
    stream.set_write_timeout(Some(Duration::from_secs(5)))?;
    Ok(stream)
}

/// A connection the server took into a session: one it turned away as busy (a CHAT and a
/// close at once) is tried again, for up to 30 s.
fn connect_served(address: SocketAddr) -> io::Result<TcpStream> {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let mut stream = connect(address)?;
        stream.set_read_timeout(Some(Duration::from_millis(150)))?;
        let mut first = [0u8; 5];
        let busy = matches!(stream.read(&mut first), Ok(n) if n > 0 && first.starts_with(b"Cbusy"));
        stream.set_read_timeout(Some(Duration::from_millis(200)))?;
        if !busy || Instant::now() > deadline {
            return Ok(stream);
        }
        thread::sleep(Duration::from_millis(500));
    }
}

/// Reads until the server closes the connection or `limit` passes; returns the bytes read and
/// whether it closed.
fn read_until_closed(stream: &mut TcpStream, limit: Duration) -> (Vec<u8>, bool) {
    let deadline = Instant::now() + limit;
    let mut got = Vec::new();
    let mut buffer = [0u8; 4096];
    while Instant::now() < deadline {
        match stream.read(&mut buffer) {
            Ok(0) => return (got, true),
            Ok(n) => {
                if got.len() < 1 << 16 {
                    got.extend_from_slice(&buffer[..n]);
                }
            }
            Err(error)
                if matches!(
                    error.kind(),
                    io::ErrorKind::WouldBlock
                        | io::ErrorKind::TimedOut
                        | io::ErrorKind::Interrupted
                ) => {}
            Err(_) => return (got, true),
        }
    }
    (got, false)
}

/// Sends `first` (a GAMEREQ, waiting for its answer), then `bytes` as fast as the server takes
/// them; says how far it got and how the server answered.
fn flood(address: SocketAddr, bytes: &[u8], first: Option<Vec<u8>>) -> String {
    let mut stream = match connect_served(address) {
        Ok(stream) => stream,
        Err(error) => return format!("cannot connect: {error}"),
    };
    if let Some(request) = first {
        if stream.write_all(&request).is_err() {
            return "closed before the GAMEREQ".to_owned();
        }
        let (answer, _) = read_until_closed(&mut stream, Duration::from_millis(1500));
        if !answer.starts_with(b"A") {
            return format!("no GAMEACC: {:?}", String::from_utf8_lossy(&answer));
        }
    }
    let mut sent = 0;
    let mut ended = "all sent";
    for chunk in bytes.chunks(64 << 10) {
        match stream.write_all(chunk) {
            Ok(()) => sent += chunk.len(),
            Err(error) if error.kind() == io::ErrorKind::WouldBlock => {
                ended = "the server stopped reading (TCP pushed back)";
                break;
            }
            Err(_) => {
                ended = "the server closed the connection";
                break;
            }
        }
    }
    let (_, closed) = read_until_closed(&mut stream, Duration::from_secs(15));
    format!(
        "{} of {} KiB sent, {ended}; {}",
        sent >> 10,
        bytes.len() >> 10,
        if closed {
            "connection closed by the server"
        } else {
            "connection still open after 15 s"
        }
    )
}

/// `count` connections that say nothing; how many the server closed, and when.
fn silent_connections(address: SocketAddr, count: usize) -> String {
    let began = Instant::now();
    let streams: Vec<TcpStream> = (0..count).filter_map(|_| connect(address).ok()).collect();
    let opened = streams.len();
    let threads: Vec<_> = streams
        .into_iter()
        .map(|mut stream| {
            thread::spawn(move || {
                let (_, closed) = read_until_closed(&mut stream, Duration::from_secs(20));
                closed.then(|| began.elapsed())
            })
        })
        .collect();
    let closed: Vec<Duration> = threads
        .into_iter()
        .filter_map(|thread| thread.join().ok().flatten())
        .collect();
    let last = closed.iter().max().copied().unwrap_or_default();
    format!(
        "{opened} opened, {} closed by the server (the last after {:.1} s)",
        closed.len(),
        last.as_secs_f64()
    )
}

/// A client that sends `request` (if any) and then nothing; how long until the server closes.
fn silent_until_closed(address: SocketAddr, request: Option<Vec<u8>>, limit: Duration) -> String {
    let mut stream = match connect_served(address) {
        Ok(stream) => stream,
        Err(error) => return format!("cannot connect: {error}"),
    };
    let began = Instant::now();
    if let Some(request) = &request
        && stream.write_all(request).is_err()
    {
        return "closed before the GAMEREQ".to_owned();
    }
    if limit.is_zero() {
        let (answer, _) = read_until_closed(&mut stream, Duration::from_millis(1500));
        return format!(
            "answered {:?}; the deadline not waited for (--short)",
            String::from_utf8_lossy(&answer[..answer.len().min(40)])
        );
    }
    let (answer, closed) = read_until_closed(&mut stream, limit);
    let frames: Vec<String> = answer
        .split(|&byte| byte == 0)
        .filter(|frame| !frame.is_empty())
        .map(|frame| String::from_utf8_lossy(&frame[..frame.len().min(12)]).into_owned())
        .collect();
    if closed {
        format!(
            "closed by the server after {:.1} s (it sent {})",
            began.elapsed().as_secs_f64(),
            frames.join(" ")
        )
    } else {
        format!("STILL OPEN after {:.0} s", limit.as_secs_f64())
    }
}

/// A GAMEREQ of 999 minutes: its answer.
fn long_game_request(address: SocketAddr) -> String {
    let Ok(mut stream) = connect_served(address) else {
        return "cannot connect".to_owned();
    };
    if stream
        .write_all(&game_request("marathon", 'Z', 999, 0))
        .is_err()
    {
        return "closed before the GAMEREQ".to_owned();
    }
    let (answer, _) = read_until_closed(&mut stream, Duration::from_secs(2));
    let _ = stream.shutdown(Shutdown::Both);
    let answer = String::from_utf8_lossy(&answer).into_owned();
    match answer.split('\0').find(|frame| frame.starts_with('A')) {
        Some(frame) if frame.ends_with('2') => "refused with A...2 (too long)".to_owned(),
        Some(frame) => format!("answered {frame:?}"),
        None => format!("no GAMEACC: {answer:?}"),
    }
}

/// Escapes in the name and the chats; the log is checked at the end.
fn control_characters(address: SocketAddr) -> String {
    let Ok(mut stream) = connect_served(address) else {
        return "cannot connect".to_owned();
    };
    let mut request = b"R01".to_vec();
    let name = b"\x1b[2J\x1b[31mEVIL\x07\r\ngame 1 over";
    request.extend_from_slice(name);
    request.resize(3 + 32, b' ');
    request.extend_from_slice(b"Z005000A\0");
    let chats: &[&[u8]] = &[
        b"C\x1b]0;owned\x07\0",
        b"C\r\ngame 1 over: 2-0\0",
        b"C\x1b[2J\x1b[H\x08\x08\x7f\0",
        b"C\xc3\xa9\xff\xfe\0",
    ];
    let mut sent = 0;
    if stream.write_all(&request).is_ok() {
        sent += 1;
        let _ = read_until_closed(&mut stream, Duration::from_millis(500));
        for chat in chats {
            if stream.write_all(chat).is_ok() {
                sent += 1;
            }
            thread::sleep(Duration::from_millis(250));
        }
    }
    let _ = stream.shutdown(Shutdown::Both);
    format!("{sent} frames with control characters sent (the log is checked at the end)")
}

/// `count` real clients killed with SIGKILL in the middle of their games (a client the
/// server refused, busy with the other attacks, is started again, for up to 20 s).
fn killed_clients(damx: &Path, address: SocketAddr, count: usize) -> String {
    let start = || {
        Command::new(damx)
            .args([
                "initiate",
                "--connect",
                &address.to_string(),
                "--games",
                "1",
            ])
            .args(["--minutes", "0", "--depth", "3", "--pace", "100", "-q"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .ok()
    };
    let began = Instant::now();
    let mut killed = 0;
    let mut started = 0;
    while killed < count && began.elapsed() < Duration::from_secs(20) {
        let mut children: Vec<Child> = (killed..count).filter_map(|_| start()).collect();
        started += children.len();
        thread::sleep(Duration::from_millis(1500));
        for child in &mut children {
            if matches!(child.try_wait(), Ok(None)) && child.kill().is_ok() {
                killed += 1;
            }
            let _ = child.wait();
        }
    }
    format!("{killed} of {count} killed with SIGKILL while playing ({started} started)")
}

/// `count` connections at once, more than the server has descriptors for, held 3 s.
fn connection_burst(address: SocketAddr, count: usize) -> String {
    let streams: Vec<TcpStream> = (0..count).filter_map(|_| connect(address).ok()).collect();
    let opened = streams.len();
    thread::sleep(Duration::from_secs(3));
    let mut answered = 0;
    for mut stream in streams {
        let mut buffer = [0u8; 256];
        let _ = stream.set_read_timeout(Some(Duration::from_millis(5)));
        if matches!(stream.read(&mut buffer), Ok(n) if n > 0) {
            answered += 1;
        }
    }
    format!(
        "{opened} of {count} connected at once and held 3 s ({answered} told they were refused)"
    )
}

//! What the tests of the `damx` binary share: running it to the end and checking its exit code
//! and output ([`run`]), or driving a running one line by line ([`Damx`]) with a hard time
//! limit on every step; a temporary directory; the games of a PDN file. No run sees endgame
//! databases from the user's cache directory unless a test names them.

#![allow(dead_code, unreachable_pub)]

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Output, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::thread;
use std::time::{Duration, Instant};

use damx_rules::pdn::{PdnGame, parse_games};

/// How long any one step may take before the test fails.
pub const LIMIT: Duration = Duration::from_secs(60);

/// Starts `damx args...` with its three streams piped and no databases unless a test names
/// them (the default directory is under a cache directory that does not exist).
pub fn spawn(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_damx"))
        .args(args)
        .env_remove("DAMX_EGDB")
        .env("XDG_CACHE_HOME", "/nonexistent/damx-cache")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the damx binary starts")
}

/// Runs `damx` with `args` and `stdin` as its standard input, to the end.
pub fn damx_with_input(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = spawn(args);
    let mut input = child.stdin.take().expect("stdin is piped");
    let stdin = stdin.to_vec();
    // Written from a thread so that a large input cannot block against a full output pipe.
    let writer = thread::spawn(move || {
        let _ = input.write_all(&stdin);
    });
    let output = child.wait_with_output().expect("damx runs to the end");
    writer.join().expect("the input is written");
    output
}

/// The words of a command line (no quoting: no argument holds a blank).
pub fn words(line: &str) -> Vec<&str> {
    line.split_whitespace().collect()
}

/// What a stream of the binary must hold.
#[derive(Clone, Copy)]
pub enum Expect<'a> {
    /// Exactly this text.
    Is(&'a str),
    /// Each of these texts.
    Has(&'a [&'a str]),
    /// Our error lines only (`damx: ` and a lower-case message), holding each of these texts.
    Ours(&'a [&'a str]),
}
use Expect::{Has, Is, Ours};

impl Expect<'_> {
    fn check(self, stream: &str, text: &str, args: &[&str]) {
        match self {
            Is(expected) => assert_eq!(text, expected, "{stream} of {args:?}"),
            Has(parts) | Ours(parts) => {
                for part in parts {
                    assert!(
                        text.contains(part),
                        "{stream} of {args:?}: no {part:?} in\n{text}"
                    );
                }
            }
        }
        if let Ours(_) = self {
            assert!(!text.is_empty(), "{args:?}: expected an error on stderr");
            for line in text.lines() {
                let message = line
                    .strip_prefix("damx: ")
                    .unwrap_or_else(|| panic!("not a damx error line: {line:?}"));
                assert!(!message.starts_with(char::is_uppercase), "{line:?}");
            }
        }
    }
}

/// Runs `damx` with the words of `line` (see [`words`]) and no input to the end, and checks its
/// exit code and both streams.
pub fn run(line: &str, exit: i32, out: Expect<'_>, err: Expect<'_>) -> Output {
    run_with(&words(line), b"", exit, out, err)
}

/// Runs `damx args` with `stdin` to the end and checks its exit code and both streams.
pub fn run_with(
    args: &[&str],
    stdin: &[u8],
    exit: i32,
    out: Expect<'_>,
    err: Expect<'_>,
) -> Output {
    let output = damx_with_input(args, stdin);
    assert_eq!(code(&output), exit, "{args:?}: {}", stderr(&output));
    out.check("stdout", &stdout(&output), args);
    err.check("stderr", &stderr(&output), args);
    output
}

/// The JSON lines of a text, each parsed.
pub fn json_lines(text: &str) -> Vec<serde_json::Value> {
    let parse = |line: &str| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
    text.lines().map(parse).collect()
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

pub fn code(output: &Output) -> i32 {
    output.status.code().expect("damx exits with a code")
}

/// A running `damx`: its standard output a line at a time, killed if the test ends first.
pub struct Damx {
    pub child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    /// Every line read so far.
    seen: Vec<String>,
    stderr: Receiver<String>,
}

impl Damx {
    /// Starts `damx args...`.
    pub fn start(args: &[&str]) -> Damx {
        let mut child = spawn(args);
        let lines = read_lines(child.stdout.take().expect("stdout is piped"));
        let stderr = read_lines(child.stderr.take().expect("stderr is piped"));
        Damx {
            stdin: child.stdin.take(),
            child,
            lines,
            seen: Vec::new(),
            stderr,
        }
    }

    /// Starts `damx` with the words of `line` as its arguments, as a shell would split them
    /// (no quoting: no argument holds a blank).
    pub fn line(line: &str) -> Damx {
        Damx::start(&words(line))
    }

    /// Waits for a line of standard output that `wanted` accepts; returns it.
    pub fn expect(&mut self, what: &str, wanted: impl Fn(&str) -> bool) -> String {
        self.until(what, wanted).pop().unwrap_or_default()
    }

    /// The lines of standard output up to the first that `wanted` accepts, from the one after
    /// the last line waited for.
    pub fn until(&mut self, what: &str, wanted: impl Fn(&str) -> bool) -> Vec<String> {
        let from = self.seen.len();
        let deadline = Instant::now() + LIMIT;
        loop {
            match self
                .lines
                .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            {
                Ok(line) => {
                    self.seen.push(line.clone());
                    if wanted(&line) {
                        return self.seen[from..].to_vec();
                    }
                }
                Err(RecvTimeoutError::Timeout) => panic!(
                    "no line {what} within {LIMIT:?}; output so far:\n{}",
                    self.seen.join("\n")
                ),
                Err(RecvTimeoutError::Disconnected) => panic!(
                    "damx ended its output without a line {what}; output:\n{}\nerrors:\n{}",
                    self.seen.join("\n"),
                    self.stderr.try_iter().collect::<Vec<_>>().join("\n")
                ),
            }
        }
    }

    /// Starts `damx` with the words of `line` and `--listen 127.0.0.1:0`; the address it
    /// listens on.
    pub fn listening(line: &str) -> (Damx, String) {
        let mut damx = Damx::line(&format!("{line} --listen 127.0.0.1:0"));
        let address = damx.listening_address();
        (damx, address)
    }

    /// The address of the `listening on ADDRESS` line it prints first, or of its JSON.
    pub fn listening_address(&mut self) -> String {
        let line = self.expect("listening ...", |line| {
            line.starts_with("listening on ") || line.contains(r#""type":"listening""#)
        });
        match line.strip_prefix("listening on ") {
            Some(address) => address.to_owned(),
            None => json_lines(&line)[0]["address"].as_str().unwrap().to_owned(),
        }
    }

    /// Writes `bytes` to its standard input.
    pub fn send(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(bytes).expect("damx reads its input");
        stdin.flush().unwrap();
    }

    /// Types a line on its standard input.
    pub fn type_line(&mut self, line: &str) {
        self.send(format!("{line}\n").as_bytes());
    }

    /// Sends the signal `name` (`INT` as Ctrl-C does, `TERM`, `HUP`).
    pub fn signal(&self, name: &str) {
        let status = Command::new("kill")
            .args([&format!("-{name}"), &self.child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(status.success());
    }

    /// Waits at most `limit` for the process to end (closing its standard input first); its
    /// exit code must be `code`, and nothing may have panicked. Returns all its output and its
    /// standard error.
    pub fn exits_within(mut self, code: i32, limit: Duration) -> (String, String) {
        drop(self.stdin.take());
        let status = wait(&mut self.child, limit);
        let mut out = std::mem::take(&mut self.seen);
        out.extend(self.lines.iter());
        let out = out.join("\n");
        let errors = self.stderr.iter().collect::<Vec<_>>().join("\n");
        assert_eq!(status.code(), Some(code), "{out}\n{errors}");
        assert!(!errors.contains("panicked"), "{errors}");
        (out, errors)
    }

    /// [`Damx::exits_within`] the usual limit.
    pub fn exits_with(self, code: i32) -> (String, String) {
        self.exits_within(code, LIMIT)
    }
}

impl Drop for Damx {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// The lines of a stream, from a thread.
fn read_lines(stream: impl Read + Send + 'static) -> Receiver<String> {
    let (tx, rx) = channel();
    thread::spawn(move || {
        for line in BufReader::new(stream).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// Waits for `child` to exit; kills it and fails the test past `limit`.
fn wait(child: &mut Child, limit: Duration) -> std::process::ExitStatus {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().expect("waiting works") {
            return status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("damx did not exit within {limit:?}");
        }
        thread::sleep(Duration::from_millis(20));
    }
}

/// A temporary directory for one test, removed when dropped.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("damx-cli-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    /// The path of `name` in the directory.
    pub fn path(&self, name: &str) -> String {
        self.0.join(name).to_str().unwrap().to_owned()
    }

    /// Writes `text` to the file `name` in the directory and gives its path.
    pub fn file(&self, name: &str, text: &str) -> String {
        let path = self.path(name);
        std::fs::write(&path, text).unwrap();
        path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The games of a PDN file, or of every PDN file of a directory.
pub fn games_in(path: &Path) -> Vec<PdnGame> {
    let mut files = vec![path.to_path_buf()];
    if path.is_dir() {
        files = std::fs::read_dir(path)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .collect();
        files.sort();
    }
    let mut games = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        games.extend(
            parse_games(&text).unwrap_or_else(|e| panic!("{}: {e}\n{text}", file.display())),
        );
    }
    games
}

//! `damx hub` as a real process: bad input of every kind gets an `error` line or a clean exit,
//! never a panic or a hang.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::thread;
use std::time::{Duration, Instant};

const START: &str = "Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww";

/// `damx hub` with its output read line by line on a thread.
struct Hub {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl Hub {
    fn start() -> Hub {
        let mut child = Command::new(env!("CARGO_BIN_EXE_damx"))
            .args(["hub", "--hash", "4"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("damx starts");
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Hub {
            stdin: child.stdin.take(),
            child,
            lines,
        }
    }

    fn send(&mut self, text: &[u8]) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(text).unwrap();
        stdin.flush().unwrap();
    }

    /// The lines up to the first that starts with `prefix`.
    fn until(&self, prefix: &str) -> Vec<String> {
        let mut seen = Vec::new();
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(30))
                .unwrap_or_else(|_| panic!("no {prefix:?} line after {seen:?}"));
            let found = line.starts_with(prefix);
            seen.push(line);
            if found {
                return seen;
            }
        }
    }

    /// Closes the input and checks that the process exits at once and cleanly.
    fn close(mut self) {
        self.stdin = None;
        let started = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                let mut stderr = String::new();
                use std::io::Read;
                let _ = self
                    .child
                    .stderr
                    .take()
                    .unwrap()
                    .read_to_string(&mut stderr);
                assert!(status.success(), "{status}: {stderr}");
                assert!(!stderr.contains("panicked"), "{stderr}");
                return;
            }
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "damx hub did not exit"
            );
            thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Hub {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One `error` line each for garbage, unknown commands, an illegal move, a position of the
/// wrong length, bytes that are not UTF-8 and a line of a megabyte; the engine answers `ping`
/// after each and still plays.
#[test]
fn bad_input_gets_an_error_line() {
    let mut hub = Hub::start();
    hub.send(b"hub\n");
    hub.until("wait");
    hub.send(b"init\n");
    hub.until("ready");
    let megabyte = format!("pos pos={}\n", "e".repeat(1 << 20));
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (b"\x01\x02garbage ==== \"\n".to_vec(), "cannot read"),
        (b"fly to=the moon\n".to_vec(), "unknown command fly"),
        (
            format!("pos pos={START} moves=\"32-28 28-23\"\n").into_bytes(),
            "move 2",
        ),
        (
            format!("pos pos={}\n", &START[..40]).into_bytes(),
            "51 characters",
        ),
        (b"go \xff\xfe\n".to_vec(), "think, ponder or analyze"),
        (megabyte.into_bytes(), "longer than"),
        (b"set-param name=hash value=lots\n".to_vec(), "hash"),
        (b"level time=soon\n".to_vec(), "level"),
    ];
    for (text, expected) in cases {
        hub.send(&text);
        hub.send(b"ping\n");
        let lines = hub.until("pong");
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(
            lines[0].starts_with("error message=") && lines[0].contains(expected),
            "{expected}: {lines:?}"
        );
    }
    hub.send(format!("pos pos={START}\nlevel depth=2\ngo think\n").as_bytes());
    let lines = hub.until("done");
    assert!(lines.last().unwrap().starts_with("done move="), "{lines:?}");
    hub.send(b"quit\n");
    hub.close();
}

/// Input closed in the middle of an unlimited search: the process exits at once, cleanly.
#[test]
fn input_closed_during_a_search() {
    let mut hub = Hub::start();
    hub.send(format!("pos pos={START}\nlevel infinite\ngo analyze\n").as_bytes());
    hub.until("info");
    hub.close();
}

/// Input closed without a newline after a partial line, and with nothing at all.
#[test]
fn input_closed_early() {
    let mut hub = Hub::start();
    hub.send(b"hub\nin");
    hub.until("wait");
    hub.close();
    Hub::start().close();
}

/// Runs `damx` with `args` to the end, within `limit`.
#[cfg(unix)]
fn damx(args: &[&str], limit: Duration) -> (i32, String) {
    let started = Instant::now();
    let output = Command::new(env!("CARGO_BIN_EXE_damx"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("damx runs");
    assert!(
        started.elapsed() < limit,
        "{args:?} took {:?}",
        started.elapsed()
    );
    let text = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    assert!(!text.contains("panicked"), "{text}");
    (output.status.code().unwrap_or(-1), text)
}

/// `damx hub` itself as the Hub participant of a match against the built-in engine.
#[cfg(unix)]
#[test]
fn match_between_a_hub_engine_and_the_builtin_one() {
    let hub = format!(
        "hub:{} hub --hash 4,name=viahub,depth=2",
        env!("CARGO_BIN_EXE_damx")
    );
    let (code, text) = damx(
        &[
            "match",
            "--engine",
            &hub,
            "--engine",
            "builtin,depth=2,hash=4",
            "--games",
            "2",
            "--minutes",
            "0",
            "--max-moves",
            "60",
            "--adjudicate",
            "material",
            "--pace",
            "0",
        ],
        Duration::from_secs(120),
    );
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("\nEND complete\n"), "{text}");
    assert_eq!(text.matches("\nRESULT ").count(), 2, "{text}");
    assert!(!text.contains("gave up"), "{text}");
}

/// A Hub engine that crashes, hangs or sends a move that is not legal loses each game by
/// giving it up, in bounded time, and the match goes on to the end.
#[cfg(unix)]
#[test]
fn broken_hub_engines_lose_their_games() {
    let dir = std::env::temp_dir().join(format!("damx-hub-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (kind, answer) in [
        ("crash", "exit 3"),
        ("hang", "sleep 60"),
        ("illegal", "echo 'done move=1-2'"),
    ] {
        let script = dir.join(format!("{kind}.sh"));
        std::fs::write(
            &script,
            format!(
                "while read cmd rest; do case $cmd in hub) echo wait;; init) echo ready;; \
                 go) {answer};; quit) exit 0;; esac; done\n"
            ),
        )
        .unwrap();
        let pdn = dir.join(format!("{kind}.pdn"));
        let spec = format!("hub:sh {},name={kind}", script.display());
        let (code, text) = damx(
            &[
                "match",
                "--engine",
                &spec,
                "--engine",
                "builtin=random",
                "--games",
                "1",
                "--minutes",
                "0",
                "--pace",
                "0",
                "--move-timeout",
                "30",
                "--pdn",
                pdn.to_str().unwrap(),
            ],
            Duration::from_secs(30),
        );
        assert_eq!(code, 0, "{kind}: {text}");
        assert!(
            text.contains(&format!("SCORES {kind}=0 ")),
            "{kind}: {text}"
        );
        let record = std::fs::read_to_string(&pdn).unwrap();
        assert!(record.contains("gave up"), "{kind}: {record}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `damx follow --engine hub:"damx hub"` plays a whole DXP game against `damx initiate`.
#[cfg(unix)]
#[test]
fn follow_with_a_hub_engine() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let address = format!("127.0.0.1:{port}");
    let hub = format!("hub:{} hub --hash 4", env!("CARGO_BIN_EXE_damx"));
    let follower = {
        let args: Vec<String> = [
            "follow", "--engine", &hub, "--listen", &address, "--games", "1", "--depth", "2",
            "--pace", "0",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        thread::spawn(move || {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            damx(&args, Duration::from_secs(120))
        })
    };
    let mut initiated = None;
    for _ in 0..50 {
        let (code, text) = damx(
            &[
                "initiate",
                "--connect",
                &address,
                "--games",
                "1",
                "--depth",
                "2",
                "--hash",
                "4",
                "--pace",
                "0",
                "--minutes",
                "5",
            ],
            Duration::from_secs(120),
        );
        if code == 5 {
            // Not listening yet.
            thread::sleep(Duration::from_millis(100));
            continue;
        }
        initiated = Some((code, text));
        break;
    }
    let (code, text) = initiated.expect("the follower listens");
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("game 1 over"), "{text}");
    assert!(!text.contains("gave up"), "{text}");
    let (code, text) = follower.join().unwrap();
    assert_eq!(code, 0, "{text}");
}

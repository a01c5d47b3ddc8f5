//! [`HubPlayer`]: a Hub engine program as a session [`Player`], so that it plays over DXP.
//!
//! The program is started on first use (or by [`HubPlayer::start`]) and greeted as a GUI
//! would: `hub` until `wait`, the `set-param` lines of [`HubPlayerOptions::params`], `init`
//! until `ready`, each within [`HubPlayerOptions::start_timeout`]. Each move is `pos` (the
//! game's start position and every move since, for repetitions), a `level` from the DXP clock
//! (or the fixed limits) and `go think`; a reader thread turns the program's output into lines
//! and a writer thread feeds its input, so that every wait has a deadline, also on a program
//! that stops reading what it is sent.
//!
//! What goes wrong ends the game the DXP way, never the session: a program that exits or
//! closes its output, sends a `done` without a readable move, or does not start, gives up the
//! game (`None`, GAMEEND reason 1); a move that is not legal is returned as written and the
//! session ends the game over it; a program that thinks past its time is told `stop`, and one
//! that still does not answer within [`HubPlayerOptions::grace`] is killed and gives up. The
//! next game starts the program again.

use std::fmt;
use std::io::{self, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError, SendTimeoutError, Sender, bounded};
use damx_engine::Limits;
use damx_rules::{Game, Move};
use damx_wire::LineReader;

use super::protocol::{Line, format_move, format_position, parse_move, parse_move_squares};
use super::serve::MAX_LINE;
use crate::engine_player::{EnginePlayer, EnginePlayerOptions};
use crate::player::{ClockState, GameInfo, Player, StopSignal};
use crate::process;

/// The engine's lines that may wait to be read.
const LINE_QUEUE: usize = 4096;

/// Our lines that may wait for the engine to read them (beyond what its input pipe holds).
const INPUT_QUEUE: usize = 64;

/// How long a line may wait for room in [`INPUT_QUEUE`] before the engine counts as no longer
/// reading its input.
const INPUT_TIMEOUT: Duration = Duration::from_secs(2);

/// The longest a move at a fixed depth or node count may take in a game without a clock
/// before the program is told to stop.
const FIXED_LIMIT_BOUND: Duration = Duration::from_secs(600);

/// How a [`HubPlayer`] runs its program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HubPlayerOptions {
    /// The DXP name.
    pub name: String,
    /// The program and its arguments.
    pub command: Vec<String>,
    /// Its working directory (and the base of a relative program path).
    pub dir: Option<PathBuf>,
    /// `set-param` pairs sent before `init`.
    pub params: Vec<(String, String)>,
    /// How long the program may take to answer `hub` and `init`.
    pub start_timeout: Duration,
    /// The time a move in a game without a clock (`level move-time`).
    pub without_clock: Duration,
    /// Limits for every move instead of the clock (depth, nodes or a move time).
    pub fixed: Option<Limits>,
    /// Kept back from our remaining time when the clock is passed on.
    pub margin: Duration,
    /// How long a program told `stop` may take to answer `done` before it is killed.
    pub grace: Duration,
}

impl Default for HubPlayerOptions {
    /// `hub`, no command, 30 s to start, one second a move without a clock, a margin of
    /// 500 ms, a grace of 2 s.
    fn default() -> HubPlayerOptions {
        HubPlayerOptions {
            name: "hub".to_owned(),
            command: Vec::new(),
            dir: None,
            params: Vec::new(),
            start_timeout: Duration::from_secs(30),
            without_clock: Duration::from_secs(1),
            fixed: None,
            margin: Duration::from_millis(500),
            grace: Duration::from_secs(2),
        }
    }
}

/// Why the program could not be used.
#[derive(Debug)]
pub enum HubError {
    /// No command was given.
    NoCommand,
    /// The program could not be started.
    Spawn {
        /// The program.
        program: String,
        /// Why.
        source: io::Error,
    },
    /// Writing to the program failed (it has gone).
    Write(io::Error),
    /// The program stopped reading its input: what we send it no longer goes through.
    Stalled,
    /// The program closed its output (it has exited or crashed).
    Exited,
    /// An answer did not come in time.
    Timeout {
        /// What was awaited.
        what: &'static str,
    },
}

impl fmt::Display for HubError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HubError::NoCommand => f.write_str("no hub engine command"),
            HubError::Spawn { program, source } => write!(f, "cannot start {program}: {source}"),
            HubError::Write(source) => write!(f, "cannot write to the hub engine: {source}"),
            HubError::Exited => f.write_str("the hub engine closed its output"),
            HubError::Stalled => f.write_str("the hub engine stopped reading its input"),
            HubError::Timeout { what } => write!(f, "the hub engine did not answer {what} in time"),
        }
    }
}

impl std::error::Error for HubError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            HubError::Spawn { source, .. } | HubError::Write(source) => Some(source),
            _ => None,
        }
    }
}

/// A running program.
struct Process {
    child: Child,
    /// Lines for the writer thread ([`write_lines`]), which ends with the program's input.
    input: Sender<String>,
    lines: Receiver<String>,
}

impl Process {
    /// Queues `line` for the program, waiting at most [`INPUT_TIMEOUT`] for room.
    fn send(&mut self, line: &str) -> Result<(), HubError> {
        match self.input.send_timeout(format!("{line}\n"), INPUT_TIMEOUT) {
            Ok(()) => Ok(()),
            Err(SendTimeoutError::Timeout(_)) => Err(HubError::Stalled),
            Err(SendTimeoutError::Disconnected(_)) => Err(HubError::Write(io::Error::new(
                io::ErrorKind::BrokenPipe,
                "its input is closed",
            ))),
        }
    }

    /// Waits until `deadline` for the next line whose command is `command`, showing every
    /// line before it to `seen` (and keeping none: an engine may print much before it).
    fn wait_for(
        &mut self,
        command: &'static str,
        deadline: Instant,
        mut seen: impl FnMut(&Line),
    ) -> Result<(), HubError> {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let Ok(line) = Line::parse(&line) else {
                        continue;
                    };
                    if line.command == command {
                        return Ok(());
                    }
                    seen(&line);
                }
                Err(RecvTimeoutError::Timeout) => return Err(HubError::Timeout { what: command }),
                Err(RecvTimeoutError::Disconnected) => return Err(HubError::Exited),
            }
        }
    }

    /// Asks the program to quit, waits up to `grace`, then kills it. Never waits for room in
    /// its input: a program that does not read `quit` is killed after `grace` all the same.
    fn end(mut self, grace: Duration) {
        let _ = self.input.try_send("quit\n".to_owned());
        let deadline = Instant::now() + grace;
        loop {
            match process::try_wait(&mut self.child) {
                Ok(Some(_)) => return,
                Ok(None) if Instant::now() < deadline => thread::sleep(Duration::from_millis(10)),
                _ => break,
            }
        }
        process::kill(&mut self.child);
    }
}

/// A Hub engine program behind the [`Player`] trait.
pub struct HubPlayer {
    options: HubPlayerOptions,
    process: Option<Process>,
    /// The `name` of the program's `id` line, once started.
    engine_name: Option<String>,
    /// Why the last move was not made (for logs and tests).
    last_error: Option<String>,
}

impl fmt::Debug for HubPlayer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HubPlayer")
            .field("options", &self.options)
            .field("running", &self.process.is_some())
            .finish_non_exhaustive()
    }
}

/// Our side's player: the Hub engine program of `hub` when there is one, else the built-in
/// engine of `engine` (`damx follow` and `damx initiate`, `--engine`).
pub fn local_player(
    engine: &EnginePlayerOptions,
    hub: Option<&HubPlayerOptions>,
) -> Box<dyn Player> {
    match hub {
        Some(options) => Box::new(HubPlayer::new(options.clone())),
        None => Box::new(EnginePlayer::new(engine.clone())),
    }
}

impl HubPlayer {
    /// A player for `options`; the program starts on first use.
    pub fn new(options: HubPlayerOptions) -> HubPlayer {
        HubPlayer {
            options,
            process: None,
            engine_name: None,
            last_error: None,
        }
    }

    /// Starts the program of `options` once and lets it go, so that a wrong command or a
    /// program that does not answer is found before any connection is made; gives the name
    /// it reports, if any.
    ///
    /// # Errors
    /// As [`HubPlayer::start`].
    pub fn check(options: &HubPlayerOptions) -> Result<Option<String>, HubError> {
        let mut player = HubPlayer::new(options.clone());
        player.start()?;
        Ok(player.engine_name.take())
    }

    /// The name the program gave in its `id` line, once it has started.
    pub fn engine_name(&self) -> Option<&str> {
        self.engine_name.as_deref()
    }

    /// Why the last move was given up, if it was.
    pub fn last_error(&self) -> Option<&str> {
        self.last_error.as_deref()
    }

    /// Starts the program and greets it, unless it runs already.
    ///
    /// # Errors
    /// A [`HubError`] if it cannot be started or does not answer in time (it is then killed).
    pub fn start(&mut self) -> Result<(), HubError> {
        if let Some(process) = &mut self.process {
            if matches!(process::try_wait(&mut process.child), Ok(None)) {
                return Ok(());
            }
            if let Some(process) = self.process.take() {
                process.end(Duration::ZERO);
            }
        }
        let (program, args) = self
            .options
            .command
            .split_first()
            .ok_or(HubError::NoCommand)?;
        let mut command = Command::new(match &self.options.dir {
            Some(dir) if program.contains('/') && !program.starts_with('/') => {
                dir.join(program).into_os_string()
            }
            _ => program.into(),
        });
        command
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        if let Some(dir) = &self.options.dir {
            command.current_dir(dir);
        }
        // Its own process group: Ctrl-C at the terminal reaches damx, which ends the game
        // properly and then the engine, instead of killing the engine mid-game.
        let mut child = process::spawn(&mut command).map_err(|source| HubError::Spawn {
            program: program.clone(),
            source,
        })?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            process::kill(&mut child);
            return Err(HubError::Exited);
        };
        // Bounded: an engine that floods its output between moves waits on its pipe instead of
        // filling our memory.
        let (lines_tx, lines) = bounded(LINE_QUEUE);
        let (input, input_rx) = bounded(INPUT_QUEUE);
        let spawned = thread::Builder::new()
            .name("damx-hub-engine-reader".into())
            .spawn(move || read_lines(stdout, &lines_tx))
            .and_then(|_| {
                thread::Builder::new()
                    .name("damx-hub-engine-writer".into())
                    .spawn(move || write_lines(stdin, &input_rx))
            });
        if let Err(e) = spawned {
            process::kill(&mut child);
            return Err(HubError::Write(e));
        }
        let mut process = Process {
            child,
            input,
            lines,
        };
        match self.greet(&mut process) {
            Ok(()) => {
                self.process = Some(process);
                Ok(())
            }
            Err(e) => {
                process.end(Duration::ZERO);
                Err(e)
            }
        }
    }

    fn greet(&mut self, process: &mut Process) -> Result<(), HubError> {
        let deadline = Instant::now() + self.options.start_timeout;
        process.send("hub")?;
        let mut engine_name = None;
        process.wait_for("wait", deadline, |line| {
            if line.command == "id" {
                // Shown to the person and in logs: no control character of the engine's.
                engine_name = line
                    .get("name")
                    .map(|name| crate::render::escaped(name).into_owned());
            }
        })?;
        self.engine_name = engine_name;
        for (name, value) in &self.options.params {
            let line = Line::new("set-param").arg("name", name).arg("value", value);
            process.send(&line.to_string())?;
        }
        process.send("init")?;
        process.wait_for("ready", deadline, |_| {})?;
        Ok(())
    }

    /// The `level` line and the time after which the program is told to stop.
    fn level(&self, clock: &ClockState) -> (Line, Option<Duration>) {
        let seconds = |d: Duration| format!("{:.3}", d.as_secs_f64());
        if let Some(fixed) = &self.options.fixed {
            let mut line = Line::new("level");
            if let Some(depth) = fixed.depth {
                line = line.arg("depth", depth);
            }
            if let Some(nodes) = fixed.nodes {
                line = line.arg("nodes", nodes);
            }
            if let Some(time) = fixed.move_time {
                line = line.arg("move-time", seconds(time));
            }
            if line.args.is_empty() {
                line = line.arg("infinite", "");
            }
            // A depth or a node count takes no time of its own: our clock bounds it, if the
            // game has one, else FIXED_LIMIT_BOUND, so that a stuck program cannot hold the
            // game for ever.
            let bound = clock.our_remaining.map_or(FIXED_LIMIT_BOUND, |remaining| {
                remaining.saturating_sub(self.options.margin)
            });
            let stop_at = fixed
                .move_time
                .map_or(bound, |time| (time + Duration::from_secs(1)).min(bound));
            return (line, Some(stop_at));
        }
        match clock.our_remaining {
            Some(remaining) => {
                let time = remaining.saturating_sub(self.options.margin);
                let mut line = Line::new("level");
                if let Some(moves) = clock.our_moves_to_go {
                    line = line.arg("moves", moves);
                }
                (line.arg("time", seconds(time)), Some(time))
            }
            None => (
                Line::new("level").arg("move-time", seconds(self.options.without_clock)),
                Some(self.options.without_clock + Duration::from_secs(1)),
            ),
        }
    }

    /// One move from the program; `Err` when it has to give up.
    fn ask(
        &mut self,
        game: &Game,
        clock: &ClockState,
        stop: &StopSignal,
    ) -> Result<Option<Move>, HubError> {
        self.start()?;
        let (level, think_for) = self.level(clock);
        let grace = self.options.grace;
        let process = self.process.as_mut().ok_or(HubError::Exited)?;
        // Whatever a stopped search said late is of no use now.
        for _ in 0..LINE_QUEUE {
            if process.lines.try_recv().is_err() {
                break;
            }
        }
        let moves: Vec<String> = game.moves().iter().map(format_move).collect();
        let mut pos = Line::new("pos").arg("pos", format_position(game.start()));
        if !moves.is_empty() {
            pos = pos.arg("moves", moves.join(" "));
        }
        process.send(&pos.to_string())?;
        process.send(&level.to_string())?;
        process.send("go think")?;
        let started = Instant::now();
        let mut stop_deadline = think_for.map(|t| started + t);
        let mut kill_deadline: Option<Instant> = None;
        loop {
            let now = Instant::now();
            if kill_deadline.is_none()
                && (stop.is_stopped() || stop_deadline.is_some_and(|d| now >= d))
            {
                process.send("stop")?;
                kill_deadline = Some(now + grace);
                stop_deadline = None;
            }
            if kill_deadline.is_some_and(|d| now >= d) {
                return Err(HubError::Timeout { what: "stop" });
            }
            match process.lines.recv_timeout(Duration::from_millis(10)) {
                Ok(text) => {
                    let Ok(line) = Line::parse(&text) else {
                        continue;
                    };
                    if line.command != "done" {
                        continue;
                    }
                    let text = line.get("move").unwrap_or("");
                    return Ok(match parse_move(game.position(), text) {
                        Ok(mv) => Some(mv),
                        // Not legal: returned as written, the session ends the game over it.
                        Err(_) => parse_move_squares(text)
                            .ok()
                            .map(|(from, to, captured, _)| Move::new(from, to, captured)),
                    });
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return Err(HubError::Exited),
            }
        }
    }
}

impl Player for HubPlayer {
    fn name(&self) -> &str {
        &self.options.name
    }

    fn new_game(&mut self, _: &GameInfo) {
        match self.start() {
            Ok(()) => {
                if let Some(process) = &mut self.process
                    && process.send("new-game").is_err()
                {
                    self.last_error = Some(HubError::Exited.to_string());
                }
            }
            Err(e) => self.last_error = Some(e.to_string()),
        }
    }

    /// A stopped program may take its grace to answer `stop` (or `quit`) before it is killed,
    /// and the kill must come before the session lets go.
    fn shutdown_grace(&self) -> Duration {
        self.options.grace + Duration::from_secs(1)
    }

    fn choose_move(&mut self, game: &Game, clock: &ClockState, stop: &StopSignal) -> Option<Move> {
        match self.ask(game, clock, stop) {
            Ok(mv) => {
                if mv.is_none() {
                    self.last_error = Some("the hub engine sent no readable move".into());
                }
                mv
            }
            Err(e) => {
                self.last_error = Some(e.to_string());
                if let Some(process) = self.process.take() {
                    process.end(Duration::ZERO);
                }
                None
            }
        }
    }
}

impl Drop for HubPlayer {
    fn drop(&mut self) {
        if let Some(process) = self.process.take() {
            process.end(self.options.grace);
        }
    }
}

/// Writes the queued lines to the program's input until the queue closes (the [`Process`] is
/// gone) or a write fails (the program has gone: a blocked write ends when it is killed).
fn write_lines(mut input: ChildStdin, lines: &Receiver<String>) {
    for line in lines {
        if input
            .write_all(line.as_bytes())
            .and_then(|()| input.flush())
            .is_err()
        {
            return;
        }
    }
}

/// Cuts the program's output into lines of at most [`MAX_LINE`] bytes; longer ones are
/// dropped.
fn read_lines<R: Read>(output: R, lines: &Sender<String>) {
    let mut reader = LineReader::new(BufReader::new(output), MAX_LINE);
    while let Ok(Some(line)) = reader.next_line() {
        if let Ok(bytes) = line.item
            && lines
                .send(String::from_utf8_lossy(bytes).trim_end().to_owned())
                .is_err()
        {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use damx_rules::Position;

    fn shell(script: &str) -> HubPlayerOptions {
        HubPlayerOptions {
            command: vec!["sh".into(), "-c".into(), script.into()],
            start_timeout: Duration::from_secs(5),
            grace: Duration::from_millis(300),
            without_clock: Duration::from_millis(200),
            ..HubPlayerOptions::default()
        }
    }

    /// A scripted engine: answers the handshake, then each `go` with `done move=<answer>`.
    fn scripted(answer: &str) -> HubPlayerOptions {
        shell(&format!(
            "while read cmd rest; do case $cmd in \
             hub) echo 'id name=fake'; echo wait;; \
             init) echo ready;; \
             go) echo 'info depth=1'; echo 'done move={answer} ponder=1-2';; \
             quit) exit 0;; esac; done"
        ))
    }

    fn ask(player: &mut HubPlayer) -> Option<Move> {
        player.choose_move(&Game::default(), &ClockState::default(), &StopSignal::new())
    }

    /// A legal answer is the move; the id name is kept. A check starts the program and
    /// names it; one that cannot start is found by the check.
    #[test]
    fn plays_the_engines_move() {
        assert_eq!(
            HubPlayer::check(&scripted("32-28")).unwrap().as_deref(),
            Some("fake")
        );
        let missing = HubPlayerOptions {
            command: vec!["/nonexistent/hub-engine".into()],
            ..scripted("32-28")
        };
        assert!(HubPlayer::check(&missing).is_err());
        let mut player = HubPlayer::new(scripted("32-28"));
        let mv = ask(&mut player).unwrap();
        assert_eq!(mv, Position::initial().parse_move("32-28").unwrap());
        assert_eq!(player.engine_name(), Some("fake"));
        // A second move reuses the program.
        assert_eq!(ask(&mut player), Some(mv));
    }

    /// The parameters are set before `init`: this engine plays the move it was given.
    #[test]
    fn parameters_are_set() {
        let options = HubPlayerOptions {
            params: vec![("move".into(), "34-29".into())],
            ..shell(
                "while read cmd rest; do case $cmd in hub) echo wait;; \
                 set-param) mv=${rest##*value=};; init) echo ready;; \
                 go) echo \"done move=$mv\";; esac; done",
            )
        };
        let mut player = HubPlayer::new(options);
        let mv = ask(&mut player).unwrap();
        assert_eq!(mv, Position::initial().parse_move("34-29").unwrap());
    }

    /// A move that is not legal comes back as written, for the session to judge; garbage
    /// gives up.
    #[test]
    fn illegal_and_unreadable_moves() {
        let mut player = HubPlayer::new(scripted("31-22"));
        let mv = ask(&mut player).unwrap();
        assert!(!Position::initial().is_legal(&mv));
        let mut player = HubPlayer::new(scripted("hello"));
        assert_eq!(ask(&mut player), None);
    }

    /// An engine that exits, hangs, never starts or cannot be found gives up, in bounded time.
    #[test]
    fn failures_give_up() {
        let crash = shell(
            "while read cmd rest; do case $cmd in hub) echo wait;; init) echo ready;; \
             go) exit 3;; esac; done",
        );
        let mut player = HubPlayer::new(crash);
        assert_eq!(ask(&mut player), None);
        assert!(
            player.last_error().unwrap().contains("closed"),
            "{:?}",
            player.last_error()
        );

        let hang = shell(
            "while read cmd rest; do case $cmd in hub) echo wait;; init) echo ready;; \
             go) sleep 30;; esac; done",
        );
        let started = Instant::now();
        let mut player = HubPlayer::new(hang);
        assert_eq!(ask(&mut player), None);
        assert!(started.elapsed() < Duration::from_secs(5));

        let mute = HubPlayerOptions {
            start_timeout: Duration::from_millis(300),
            ..shell("sleep 30")
        };
        let mut player = HubPlayer::new(mute);
        assert_eq!(ask(&mut player), None);
        assert!(player.last_error().unwrap().contains("in time"));

        let mut player = HubPlayer::new(HubPlayerOptions {
            command: vec!["/nonexistent/engine".into()],
            ..HubPlayerOptions::default()
        });
        assert!(matches!(player.start(), Err(HubError::Spawn { .. })));
    }

    /// A program that stops reading its input fills its pipe: sending then fails within
    /// [`INPUT_TIMEOUT`] instead of blocking, a move gives up, and the program is ended.
    #[test]
    fn a_program_that_stops_reading_gives_up() {
        let deaf = shell("read cmd; echo wait; read cmd; echo ready; exec sleep 60");
        let (tx, rx) = crossbeam_channel::bounded(1);
        thread::spawn(move || {
            let mut player = HubPlayer::new(deaf);
            player.start().unwrap();
            let process = player.process.as_mut().unwrap();
            let line = "x".repeat(1024);
            let error = (0..10_000).find_map(|_| process.send(&line).err());
            let mv = ask(&mut player);
            let _ = tx.send((error, mv, player.last_error().map(str::to_owned)));
        });
        let (error, mv, last_error) = rx
            .recv_timeout(Duration::from_secs(60))
            .expect("a write waited on a program that does not read its input");
        assert!(matches!(error, Some(HubError::Stalled)), "{error:?}");
        assert_eq!(mv, None);
        assert!(
            last_error
                .as_deref()
                .is_some_and(|e| e.contains("stopped reading")),
            "{last_error:?}"
        );
    }

    /// The clock becomes `level time` less the margin, with the moves to go.
    #[test]
    fn levels() {
        let player = HubPlayer::new(HubPlayerOptions::default());
        let clock = ClockState {
            our_remaining: Some(Duration::from_secs(60)),
            their_remaining: None,
            our_moves_to_go: Some(20),
        };
        let (line, _) = player.level(&clock);
        assert_eq!(line.to_string(), "level moves=20 time=59.500");
        let (line, _) = player.level(&ClockState::default());
        assert_eq!(line.to_string(), "level move-time=1.000");
        let fixed = HubPlayer::new(HubPlayerOptions {
            fixed: Some(Limits::depth(4)),
            ..HubPlayerOptions::default()
        });
        assert_eq!(fixed.level(&clock).0.to_string(), "level depth=4");
        // A fixed depth is bounded by the clock, or without one by FIXED_LIMIT_BOUND.
        assert_eq!(fixed.level(&clock).1, Some(Duration::from_millis(59_500)));
        assert_eq!(
            fixed.level(&ClockState::default()).1,
            Some(FIXED_LIMIT_BOUND)
        );
    }

    /// A program stuck at a fixed depth is told to stop when our clock runs out, and gives up
    /// the game after its grace.
    #[test]
    fn a_fixed_depth_is_bounded_by_the_clock() {
        let hang = HubPlayerOptions {
            fixed: Some(Limits::depth(30)),
            ..shell(
                "while read cmd rest; do case $cmd in hub) echo wait;; init) echo ready;; \
                 go) sleep 30;; esac; done",
            )
        };
        let mut player = HubPlayer::new(hang);
        let clock = ClockState {
            our_remaining: Some(Duration::from_millis(800)),
            ..ClockState::default()
        };
        let started = Instant::now();
        let mv = player.choose_move(&Game::default(), &clock, &StopSignal::new());
        assert_eq!(mv, None);
        assert!(started.elapsed() < Duration::from_secs(5));
    }
}

//! The engine side of Hub as a state machine without I/O: [`HubState`] takes each line the
//! client sends and returns [`Action`]s (lines to write, a search to start or stop); the
//! driver in [`serve`](super::serve) does the reading, the writing and the searching.
//!
//! Decisions where the protocol text is open:
//! - `level` lines add up (`level depth=10` then `level move-time=2` sets both); `level
//!   infinite` clears them, and so does every `pos`.
//! - `time` with `inc`: the increment is added before the move (as the protocol says), and the
//!   increments still to come count as time to spend, spread over the assumed moves; the move
//!   never takes more than half of the time on the clock.
//! - Lines other than `ping`, `stop`, `ponder-hit` and `quit` that arrive during a search (a
//!   client that sends `stop` and the next `pos`/`go` at once) are kept and handled, in order,
//!   after the search has answered `done`.
//! - A `pos` that cannot be read (wrong length, unknown symbol, a move the position does not
//!   allow) leaves no position: the next `go` gets an error until a good `pos` arrives.
//! - A `go` on a position without a legal move gets an error and no `done` (the protocol says
//!   a client never asks for one).
//! - Unknown commands, unknown parameters and bad values get `error message="..."`; unknown
//!   arguments are ignored, as the protocol asks.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::time::Duration;

use damx_engine::{Clock, EngineOptions, Limits, Progress, Score};
use damx_rules::{Game, Move, Position};

use super::protocol::{Line, format_move, parse_move, parse_position};

/// The most lines kept while a search runs; more are refused with an error.
const MAX_PENDING: usize = 256;

/// The highest skill level: full strength.
pub const MAX_SKILL: u32 = 20;

/// The engine's settings, as the Hub parameters set them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HubOptions {
    /// Threads and table size (the weights come from [`HubOptions::weights`]).
    pub engine: EngineOptions,
    /// The endgame database directory (kept and passed on; `None` for none).
    pub egdb: Option<PathBuf>,
    /// A pattern weights file (`cargo xtask train fit`), which selects the pattern evaluation;
    /// `None` for the evaluation of [`HubOptions::engine`].
    pub weights: Option<PathBuf>,
    /// 1 (weakest) to [`MAX_SKILL`] (full strength).
    pub skill: u32,
}

impl Default for HubOptions {
    fn default() -> HubOptions {
        HubOptions {
            engine: EngineOptions::default(),
            egdb: None,
            weights: None,
            skill: MAX_SKILL,
        }
    }
}

/// How a search was asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GoMode {
    /// `go think`: a move to play.
    Think,
    /// `go ponder`: the clock is not running until `ponder-hit`.
    Ponder,
    /// `go analyze`: for the score and the PV; the skill level does not apply.
    Analyze,
}

/// A search for the driver to run.
#[derive(Clone, Debug)]
pub struct SearchJob {
    /// The game: start position and moves (for repetitions).
    pub game: Game,
    /// The limits to search with from the start.
    pub limits: Limits,
    /// For `go ponder`: the time to allow once `ponder-hit` comes (`None`: no time limit).
    pub after_ponder_hit: Option<Duration>,
    /// The mode.
    pub mode: GoMode,
    /// The settings to search with.
    pub options: HubOptions,
}

/// What the driver is to do.
#[derive(Clone, Debug)]
pub enum Action {
    /// Write this line.
    Send(Line),
    /// Start this search (none is running).
    Search(Box<SearchJob>),
    /// Stop the running search (it still answers `done`).
    Stop,
    /// The running ponder search now runs on the clock: stop it after this long.
    PonderHit(Duration),
    /// Forget the tables of the previous game.
    NewGame,
    /// Answer `init`: say which of the paths in the options cannot be used (as `error`
    /// lines; they are kept all the same), then `ready`.
    Ready,
    /// Stop the search if any, and exit.
    Quit,
}

/// The limits of the next search, as `level` lines set them.
#[derive(Clone, Debug, Default, PartialEq)]
struct Level {
    depth: Option<u32>,
    nodes: Option<u64>,
    move_time: Option<Duration>,
    time: Option<Duration>,
    moves: Option<u32>,
    inc: Option<Duration>,
}

/// Moves assumed still to come when a clock has no move count (as the engine assumes).
const ASSUMED_MOVES: u32 = 30;

impl Level {
    /// The engine limits and the budget a ponder search gets on `ponder-hit`.
    fn limits(&self) -> (Limits, Option<Duration>) {
        let mut limits = Limits::fixed(self.depth, self.nodes, self.move_time).unwrap_or_default();
        if let Some(time) = self.time {
            let inc = self.inc.unwrap_or_default();
            let moves = self.moves.unwrap_or(ASSUMED_MOVES).max(1);
            // The increment of this move is already ours; those of the moves to come are time
            // to spend too.
            let remaining = time + inc * moves;
            limits.clock = Some(Clock {
                remaining,
                moves_to_go: self.moves,
            });
            if !inc.is_zero() {
                let cap = (time + inc) / 2;
                limits.move_time = Some(limits.move_time.map_or(cap, |t| t.min(cap)));
            }
        }
        let budget = match (limits.move_time, limits.clock) {
            (move_time, Some(clock)) => {
                let spread = clock
                    .moves_to_go
                    .map_or(ASSUMED_MOVES, |m| m.saturating_add(1))
                    .max(1);
                let share = (clock.remaining / spread).min(clock.remaining / 3);
                Some(move_time.map_or(share, |t| t.min(share)))
            }
            (move_time, None) => move_time,
        };
        (limits, budget)
    }
}

/// The engine side of one Hub conversation.
#[derive(Debug)]
pub struct HubState {
    options: HubOptions,
    name: String,
    version: String,
    game: Option<Game>,
    level: Level,
    searching: Option<GoMode>,
    pending: VecDeque<String>,
}

/// A number that reads as seconds.
fn seconds(text: &str) -> Option<Duration> {
    let value: f64 = text.trim().parse().ok()?;
    (0.0..1e9)
        .contains(&value)
        .then(|| Duration::from_secs_f64(value))
}

fn error(message: impl Into<String>) -> Action {
    Action::Send(Line::new("error").arg("message", message.into()))
}

impl HubState {
    /// A conversation with `options` as the parameters' first values; `name` and `version`
    /// go into the `id` line.
    pub fn new(options: HubOptions, name: &str, version: &str) -> HubState {
        HubState {
            options,
            name: name.to_owned(),
            version: version.to_owned(),
            game: Some(Game::new(Position::initial())),
            level: Level::default(),
            searching: None,
            pending: VecDeque::new(),
        }
    }

    /// The current settings.
    pub fn options(&self) -> &HubOptions {
        &self.options
    }

    /// Whether a search is running.
    pub fn is_searching(&self) -> bool {
        self.searching.is_some()
    }

    /// A line that was longer than the driver accepts and was dropped.
    pub fn line_too_long(&mut self, limit: usize) -> Vec<Action> {
        vec![error(format!(
            "a line longer than {limit} bytes was ignored"
        ))]
    }

    /// A line from the client.
    pub fn handle_line(&mut self, text: &str) -> Vec<Action> {
        let line = match Line::parse(text) {
            Ok(line) => line,
            Err(super::protocol::LineError::Empty) => return Vec::new(),
            Err(e) => return vec![error(format!("cannot read the line: {e}"))],
        };
        if self.searching.is_some() {
            return match line.command.as_str() {
                "ping" => vec![Action::Send(Line::new("pong"))],
                "stop" => vec![Action::Stop],
                "ponder-hit" => self.ponder_hit(),
                "quit" => vec![Action::Quit],
                _ if self.pending.len() >= MAX_PENDING => {
                    vec![error(
                        "too many lines during the search; this one was ignored",
                    )]
                }
                _ => {
                    self.pending.push_back(text.to_owned());
                    Vec::new()
                }
            };
        }
        self.command(&line)
    }

    /// The search ended with `best` (and the PV that follows it): the `done` line, and what
    /// the lines kept during the search ask for.
    pub fn search_done(&mut self, best: Move, pv: &[Move]) -> Vec<Action> {
        self.searching = None;
        let mut done = Line::new("done").arg("move", format_move(&best));
        if let Some(ponder) = pv.get(1).filter(|_| pv.first() == Some(&best)) {
            done = done.arg("ponder", format_move(ponder));
        }
        let mut actions = vec![Action::Send(done)];
        while self.searching.is_none() {
            let Some(text) = self.pending.pop_front() else {
                break;
            };
            actions.extend(self.handle_line(&text));
        }
        actions
    }

    fn ponder_hit(&mut self) -> Vec<Action> {
        if self.searching != Some(GoMode::Ponder) {
            return Vec::new();
        }
        self.searching = Some(GoMode::Think);
        match self.level.limits().1 {
            Some(budget) => vec![Action::PonderHit(budget)],
            None => Vec::new(),
        }
    }

    fn command(&mut self, line: &Line) -> Vec<Action> {
        match line.command.as_str() {
            "hub" => self.identify(),
            "set-param" => self.set_param(line),
            "init" => self.init(),
            "pos" => self.position(line),
            "level" => self.set_level(line),
            "go" => self.go(line),
            "ping" => vec![Action::Send(Line::new("pong"))],
            "new-game" => vec![Action::NewGame],
            "quit" => vec![Action::Quit],
            // Outside a search there is nothing to stop or hit.
            "stop" | "ponder-hit" => Vec::new(),
            other => vec![error(format!(
                "unknown command {}",
                other.chars().take(40).collect::<String>()
            ))],
        }
    }

    fn identify(&self) -> Vec<Action> {
        let path = |path: &Option<PathBuf>| {
            path.as_ref()
                .map(|p| p.display().to_string())
                .unwrap_or_default()
        };
        let params = [
            Line::new("param")
                .arg("name", "threads")
                .arg("value", self.options.engine.threads)
                .arg("type", "int")
                .arg("min", 1)
                .arg("max", 256),
            Line::new("param")
                .arg("name", "hash")
                .arg("value", self.options.engine.hash_mb)
                .arg("type", "int")
                .arg("min", 1)
                .arg("max", 65_536),
            Line::new("param")
                .arg("name", "contempt")
                .arg("value", self.options.engine.contempt)
                .arg("type", "int")
                .arg("min", -damx_engine::MAX_CONTEMPT)
                .arg("max", damx_engine::MAX_CONTEMPT),
            Line::new("param")
                .arg("name", "egdb")
                .arg("value", path(&self.options.egdb))
                .arg("type", "string"),
            Line::new("param")
                .arg("name", "weights")
                .arg("value", path(&self.options.weights))
                .arg("type", "string"),
            Line::new("param")
                .arg("name", "skill")
                .arg("value", self.options.skill)
                .arg("type", "int")
                .arg("min", 1)
                .arg("max", MAX_SKILL),
        ];
        let mut actions = vec![Action::Send(
            Line::new("id")
                .arg("name", &self.name)
                .arg("version", &self.version),
        )];
        actions.extend(params.into_iter().map(Action::Send));
        actions.push(Action::Send(Line::new("wait")));
        actions
    }

    fn set_param(&mut self, line: &Line) -> Vec<Action> {
        let (Some(name), Some(value)) = (line.get("name"), line.get("value")) else {
            return vec![error("set-param needs name=... and value=...")];
        };
        let int = |min: i64, max: i64| -> Result<i64, String> {
            value
                .trim()
                .parse::<i64>()
                .ok()
                .filter(|v| (min..=max).contains(v))
                .ok_or_else(|| format!("{name}: expected a whole number from {min} to {max}"))
        };
        let path = || {
            let value = value.trim();
            (!value.is_empty() && value != "none").then(|| PathBuf::from(value))
        };
        let set = match name {
            "threads" => int(1, 256).map(|v| self.options.engine.threads = v as usize),
            "hash" => int(1, 65_536).map(|v| self.options.engine.hash_mb = v as usize),
            "contempt" => {
                let limit = i64::from(damx_engine::MAX_CONTEMPT);
                int(-limit, limit).map(|v| self.options.engine.contempt = v as i32)
            }
            "skill" => int(1, i64::from(MAX_SKILL)).map(|v| self.options.skill = v as u32),
            "egdb" => {
                self.options.egdb = path();
                Ok(())
            }
            "weights" => {
                self.options.weights = path();
                Ok(())
            }
            other => Err(format!(
                "unknown parameter {}",
                other.chars().take(40).collect::<String>()
            )),
        };
        match set {
            Ok(()) => Vec::new(),
            Err(message) => vec![error(message)],
        }
    }

    fn init(&self) -> Vec<Action> {
        // Everything heavy (the table, the weights) is made at the first search.
        vec![Action::Ready]
    }

    fn position(&mut self, line: &Line) -> Vec<Action> {
        self.level = Level::default();
        self.game = None;
        let start = match line.get("pos") {
            None | Some("start") => Position::initial(),
            Some(text) => match parse_position(text) {
                Ok(position) => position,
                Err(e) => return vec![error(format!("pos: {e}"))],
            },
        };
        let mut game = Game::new(start);
        for text in line.get("moves").unwrap_or("").split_whitespace() {
            match parse_move(game.position(), text) {
                Ok(mv) => game.play(mv),
                Err(e) => {
                    return vec![error(format!("pos: move {} of moves: {e}", game.ply() + 1))];
                }
            }
        }
        self.game = Some(game);
        Vec::new()
    }

    fn set_level(&mut self, line: &Line) -> Vec<Action> {
        let mut level = self.level.clone();
        for (key, value) in &line.args {
            let bad = || error(format!("level: {key}={value} is not a valid value"));
            match key.as_str() {
                "infinite" => level = Level::default(),
                "depth" => match value.trim().parse::<u32>() {
                    Ok(depth) if depth >= 1 => {
                        level.depth = Some(depth.min(damx_engine::MAX_DEPTH))
                    }
                    _ => return vec![bad()],
                },
                "nodes" => match value.trim().parse::<u64>() {
                    Ok(nodes) if nodes >= 1 => level.nodes = Some(nodes),
                    _ => return vec![bad()],
                },
                "moves" => match value.trim().parse::<u32>() {
                    Ok(moves) if moves >= 1 => level.moves = Some(moves),
                    _ => return vec![bad()],
                },
                "move-time" | "time" | "inc" => {
                    let Some(duration) = seconds(value) else {
                        return vec![bad()];
                    };
                    match key.as_str() {
                        "move-time" => level.move_time = Some(duration),
                        "time" => level.time = Some(duration),
                        _ => level.inc = Some(duration),
                    }
                }
                _ => {}
            }
        }
        if level.time.is_none() && (level.moves.is_some() || level.inc.is_some()) {
            return vec![error("level: moves= and inc= go with time=")];
        }
        self.level = level;
        Vec::new()
    }

    fn go(&mut self, line: &Line) -> Vec<Action> {
        let mode = if line.has("think") {
            GoMode::Think
        } else if line.has("ponder") {
            GoMode::Ponder
        } else if line.has("analyze") || line.has("analyse") {
            GoMode::Analyze
        } else {
            return vec![error("go: expected think, ponder or analyze")];
        };
        let Some(game) = &self.game else {
            return vec![error("go: no position (the last pos was refused)")];
        };
        if !game.position().has_legal_move() {
            return vec![error("go: the side to move has no legal move")];
        }
        let (mut limits, budget) = self.level.limits();
        let after_ponder_hit = if mode == GoMode::Ponder {
            limits.move_time = None;
            limits.clock = None;
            budget
        } else {
            None
        };
        self.searching = Some(mode);
        vec![Action::Search(Box::new(SearchJob {
            game: game.clone(),
            limits,
            after_ponder_hit,
            mode,
            options: self.options.clone(),
        }))]
    }
}

/// A score in men for `info`: a win in `n` plies is `100 - n/100` (and a loss its negation),
/// which clients that read scores above 90 as wins (as pydraughts does) understand.
pub fn score_in_men(score: Score) -> String {
    match score.plies_to_end() {
        Some(plies) if score.is_win() => format!("{:.2}", 100.0 - f64::from(plies) / 100.0),
        Some(plies) => format!("{:.2}", -100.0 - f64::from(plies) / 100.0),
        None => format!("{:.2}", f64::from(score.value()) / 100.0),
    }
}

/// The `info` line of one completed iteration.
pub fn info_line(progress: &Progress) -> Line {
    let pv: Vec<String> = progress.pv.iter().map(format_move).collect();
    Line::new("info")
        .arg("depth", progress.depth)
        .arg("score", score_in_men(progress.score))
        .arg("nodes", progress.nodes)
        .arg("time", format!("{:.3}", progress.elapsed.as_secs_f64()))
        .arg(
            "nps",
            format!("{:.2}", progress.nodes_per_second as f64 / 1e6),
        )
        .arg("pv", pv.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state() -> HubState {
        HubState::new(HubOptions::default(), "damx", "0.1.0")
    }

    fn lines(actions: &[Action]) -> Vec<String> {
        actions
            .iter()
            .filter_map(|a| match a {
                Action::Send(line) => Some(line.to_string()),
                _ => None,
            })
            .collect()
    }

    fn job(actions: Vec<Action>) -> SearchJob {
        match actions.into_iter().next() {
            Some(Action::Search(job)) => *job,
            other => panic!("expected a search, got {other:?}"),
        }
    }

    /// `hub` lists the parameters between `id` and `wait`; `init` answers `ready`.
    #[test]
    fn handshake() {
        let mut hub = state();
        let out = lines(&hub.handle_line("hub"));
        assert!(out[0].starts_with("id name=damx version=0.1.0"), "{out:?}");
        assert_eq!(out.last().unwrap(), "wait");
        for name in ["threads", "hash", "contempt", "egdb", "weights", "skill"] {
            assert!(
                out.iter()
                    .any(|l| l.starts_with(&format!("param name={name} "))),
                "{name}"
            );
        }
        assert!(hub.handle_line("set-param name=hash value=16").is_empty());
        assert!(hub.handle_line("set-param value=3 name=threads").is_empty());
        assert!(
            hub.handle_line("set-param name=egdb value=\"/no such/dir\"")
                .is_empty()
        );
        assert_eq!(hub.options().engine.hash_mb, 16);
        assert_eq!(hub.options().engine.threads, 3);
        assert!(
            hub.handle_line("set-param name=contempt value=-20")
                .is_empty()
        );
        assert_eq!(hub.options().engine.contempt, -20);
        let out = lines(&hub.handle_line("set-param name=contempt value=500"));
        assert!(out[0].starts_with("error message="), "{out:?}");
        let out = lines(&hub.handle_line("set-param name=hash value=0"));
        assert!(out[0].starts_with("error message="), "{out:?}");
        let out = lines(&hub.handle_line("set-param name=colour value=red"));
        assert!(out[0].contains("unknown parameter colour"), "{out:?}");
        assert!(matches!(hub.handle_line("init")[..], [Action::Ready]));
        assert_eq!(hub.options().egdb, Some(PathBuf::from("/no such/dir")));
    }

    /// A position with moves, each kind of limit, and a position reset by the next `pos`.
    #[test]
    fn positions_and_limits() {
        let mut hub = state();
        let start = "Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww";
        assert!(
            hub.handle_line(&format!("pos moves=\"32-28 19-23 28x19\" pos={start}"))
                .is_empty()
        );
        hub.handle_line("level depth=5");
        hub.handle_line("level nodes=1000");
        let search = job(hub.handle_line("go think"));
        assert_eq!(search.game.ply(), 3);
        assert_eq!(search.limits.depth, Some(5));
        assert_eq!(search.limits.nodes, Some(1000));
        assert!(hub.is_searching());
        let best = search.game.position().legal_moves()[0];
        let out = lines(&hub.search_done(best, &[best]));
        assert_eq!(out, [format!("done move={}", format_move(&best))]);

        hub.handle_line("pos start");
        hub.handle_line("level move-time=1.5");
        let search = job(hub.handle_line("go analyze"));
        assert_eq!(
            search.limits,
            Limits::move_time(Duration::from_millis(1500))
        );
        assert_eq!(search.mode, GoMode::Analyze);
        hub.search_done(best, &[]);

        hub.handle_line(&format!("pos pos={start}"));
        hub.handle_line("level moves=9 time=90");
        let search = job(hub.handle_line("go think"));
        assert_eq!(
            search.limits.clock,
            Some(Clock {
                remaining: Duration::from_secs(90),
                moves_to_go: Some(9)
            })
        );
        hub.search_done(best, &[]);

        hub.handle_line(&format!("pos pos={start}"));
        hub.handle_line("level time=10 inc=1");
        let search = job(hub.handle_line("go think"));
        let clock = search.limits.clock.unwrap();
        assert_eq!(clock.remaining, Duration::from_secs(40));
        assert_eq!(search.limits.move_time, Some(Duration::from_millis(5500)));
        hub.search_done(best, &[]);

        hub.handle_line("level infinite");
        let search = job(hub.handle_line("go analyze"));
        assert_eq!(search.limits, Limits::default());
        hub.search_done(best, &[]);
    }

    /// Pondering runs without time; ponder-hit gives it the budget of the level.
    #[test]
    fn ponder() {
        let mut hub = state();
        hub.handle_line("pos start");
        hub.handle_line("level move-time=2");
        let search = job(hub.handle_line("go ponder"));
        assert_eq!(search.limits, Limits::default());
        assert_eq!(search.after_ponder_hit, Some(Duration::from_secs(2)));
        assert!(matches!(
            hub.handle_line("ponder-hit")[..],
            [Action::PonderHit(d)] if d == Duration::from_secs(2)
        ));
        // A second ponder-hit changes nothing.
        assert!(hub.handle_line("ponder-hit").is_empty());
    }

    /// During a search: ping answers at once, stop stops, other lines wait for `done`.
    #[test]
    fn lines_during_a_search() {
        let mut hub = state();
        let search = job(hub.handle_line("go think"));
        assert_eq!(lines(&hub.handle_line("ping")), ["pong"]);
        assert!(matches!(hub.handle_line("stop")[..], [Action::Stop]));
        assert!(hub.handle_line("pos start moves=32-28").is_empty());
        assert!(hub.handle_line("go think").is_empty());
        let best = search.game.position().legal_moves()[0];
        let actions = hub.search_done(best, &[]);
        assert!(matches!(&actions[0], Action::Send(l) if l.command == "done"));
        assert!(
            matches!(&actions[1], Action::Search(job) if job.game.ply() == 1),
            "{actions:?}"
        );
        assert!(hub.is_searching());
    }

    /// Bad lines get an error and change nothing else.
    #[test]
    fn bad_input() {
        let mut hub = state();
        for (text, expected) in [
            ("fly away", "unknown command fly"),
            ("pos pos=Wbbb", "51 characters"),
            ("pos start moves=\"32-28 32-28\"", "move 2"),
            ("pos start moves=\"99-98\"", "not a move"),
            ("level depth=deep", "level"),
            ("level time=-1", "level"),
            ("level moves=3", "go with time"),
            ("go", "think, ponder or analyze"),
            ("go \"unterminated", "cannot read"),
        ] {
            let out = lines(&hub.handle_line(text));
            assert_eq!(out.len(), 1, "{text}: {out:?}");
            assert!(
                out[0].starts_with("error message=") && out[0].contains(expected),
                "{text}: {out:?}"
            );
        }
        // The refused pos left no position.
        hub.handle_line("pos start moves=\"32-28 32-28\"");
        let out = lines(&hub.handle_line("go think"));
        assert!(out[0].contains("no position"), "{out:?}");
        // A position without a legal move.
        let lost = format!("W{}B", "e".repeat(49));
        hub.handle_line(&format!("pos pos={lost}"));
        let out = lines(&hub.handle_line("go think"));
        assert!(out[0].contains("no legal move"), "{out:?}");
        assert!(!hub.is_searching());
        assert!(hub.handle_line("").is_empty());
        assert_eq!(lines(&hub.line_too_long(10)).len(), 1);
    }

    /// Scores in men; wins and losses near ±100.
    #[test]
    fn scores() {
        assert_eq!(score_in_men(Score(125)), "1.25");
        assert_eq!(score_in_men(Score(-40)), "-0.40");
        assert_eq!(score_in_men(Score::win_in(7)), "99.93");
        assert_eq!(score_in_men(Score::loss_in(4)), "-99.96");
    }
}

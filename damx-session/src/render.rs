//! A session's events as the lines a person reads, or as JSON lines: what `damx follow`,
//! `initiate`, `demo` and `play` print, for any front end that shows a session the same way.
//!
//! [`Renderer`] takes the [`Event`]s of one session or the [`ServerEvent`]s of a server and
//! returns [`Line`]s: output lines (text or one JSON object each) and notes or problems meant
//! for the log. It keeps what the lines need of each game (a [`GameView`]: position, clocks,
//! move numbers) and limits violations to [`VIOLATIONS_A_SECOND`] a second, saying how many
//! were left out.
//!
//! ```text
//! connected to 127.0.0.1:50712
//! game 1: damx (white) - DXP Client (black), 5 min each, no move limit, normal start
//!   1.   32-28        damx            0.52 s
//!   1... 19-23        DXP Client      0.31 s
//! game 1 over: 2-0 (black has no legal move)
//! saved games/20260112-101500-001-damx-DXP_Client.pdn
//! session over: the peer stopped
//! ```
//!
//! The peer's text is data: every text line comes out with its control characters escaped
//! ([`escaped`]), so that nothing a peer sends can move a terminal's cursor or start a line of
//! its own. JSON escapes them by itself.
//!
//! ```
//! use damx_session::render::{Detail, Line, RenderOptions, Renderer};
//! use damx_session::{CloseReason, Event};
//!
//! let mut renderer = Renderer::new(RenderOptions::default());
//! let lines = renderer.event(None, &Event::Closed(CloseReason::PeerClosed));
//! assert_eq!(lines, [Line::Out("session over: the peer closed the connection".into())]);
//! ```

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use damx_rules::{Color, Position};
use serde_json::Value;

use crate::event::{Direction, Event, MovePlayed, Side, ViolationAction};
use crate::player::GameInfo;
use crate::record::GameRecord;
use crate::server::ServerEvent;
use crate::view::GameView;

/// How many violation lines are rendered a second, across all sessions.
pub const VIOLATIONS_A_SECOND: u32 = 5;

/// How much is shown, from the results alone to every frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum Detail {
    /// The results, the violations, the refusals and the records saved.
    Quiet,
    /// A line an event and a move, boards when asked for.
    #[default]
    Normal,
    /// Also the games asked for, and a board after every move unless told otherwise.
    Verbose,
    /// Also every frame in and out.
    Debug,
}

/// How events are rendered.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RenderOptions {
    /// JSON lines instead of text.
    pub json: bool,
    /// How much is shown.
    pub detail: Detail,
    /// Draw the board after every this many moves (plies), and at a game's start, take-backs
    /// and end; `None`: after every move at [`Detail::Verbose`], else never.
    pub board_every: Option<usize>,
    /// Draw the board with the square numbers beside it.
    pub numbered: bool,
    /// After a game, its whole move list ([`movetext`]), unless quiet.
    pub movetext: bool,
}

/// One rendered line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Line {
    /// A line of the output: text, or one JSON object.
    Out(String),
    /// A warning or a hint for the log, shown unless quiet.
    Note(String),
    /// A problem for the log, always shown.
    Problem(String),
}

/// Renders the events of one session or of a server's sessions; see the module docs.
#[derive(Debug)]
pub struct Renderer {
    options: RenderOptions,
    /// Put `[N]` before each text line of session `N` (a server with several sessions).
    tagged: bool,
    games: HashMap<u64, GameView>,
    violations: PerSecond,
}

/// A rate: at most `limit` items a second, counting those left out in between.
#[derive(Debug)]
pub(crate) struct PerSecond {
    limit: u32,
    /// The second in which items are counted, and how many were let through in it.
    window: Option<(Instant, u32)>,
    /// Items left out since the last one let through.
    left_out: u64,
}

impl PerSecond {
    /// At most `limit` a second.
    pub(crate) fn new(limit: u32) -> PerSecond {
        PerSecond {
            limit,
            window: None,
            left_out: 0,
        }
    }

    /// Whether an item may pass now; if so, how many were left out before it.
    pub(crate) fn allow(&mut self) -> Option<u64> {
        let now = Instant::now();
        let (since, given) = match self.window {
            Some((since, given)) if now.duration_since(since) < Duration::from_secs(1) => {
                (since, given)
            }
            _ => (now, 0),
        };
        if given >= self.limit {
            self.left_out += 1;
            self.window = Some((since, given));
            return None;
        }
        self.window = Some((since, given + 1));
        Some(std::mem::take(&mut self.left_out))
    }

    /// Lets an item through whatever the rate: how many were left out before it.
    pub(crate) fn force(&mut self) -> u64 {
        std::mem::take(&mut self.left_out)
    }
}

impl Renderer {
    /// A renderer with these options, for one session.
    pub fn new(options: RenderOptions) -> Renderer {
        Renderer {
            options,
            tagged: false,
            games: HashMap::new(),
            violations: PerSecond::new(VIOLATIONS_A_SECOND),
        }
    }

    /// Text lines of session `N` start with `[N] ` (a server with several sessions).
    #[must_use]
    pub fn tagged(mut self, tagged: bool) -> Renderer {
        self.tagged = tagged;
        self
    }

    /// The address a server or a session listens on.
    pub fn listening(&self, address: SocketAddr) -> Line {
        Line::Out(if self.options.json {
            serde_json::json!({"type": "listening", "address": address.to_string()}).to_string()
        } else {
            format!("listening on {address}")
        })
    }

    /// The lines of one event of a server.
    pub fn server_event(&mut self, event: &ServerEvent) -> Vec<Line> {
        let mut lines = Vec::new();
        match event {
            ServerEvent::Session { id, event } => return self.event(Some(*id), event),
            ServerEvent::Ended { id, .. } => {
                self.games.remove(id);
            }
            ServerEvent::Capped {
                asked,
                allowed,
                descriptors,
            } => lines.push(Line::Note(format!(
                "serving at most {allowed} connections, not {asked}: the limit of \
                 {descriptors} open files allows no more (raise it with ulimit -n)"
            ))),
            _ => {}
        }
        if self.options.json {
            if !matches!(
                event,
                ServerEvent::Accepted { .. } | ServerEvent::Capped { .. }
            ) {
                lines.push(Line::Out(json_line(None, serde_json::to_value(event))));
            }
            return lines;
        }
        match event {
            ServerEvent::Listening(address) => lines.push(self.listening(*address)),
            ServerEvent::Refused { peer, running } => {
                let peer = peer.map(|p| p.to_string()).unwrap_or_default();
                let sessions = if *running == 1 { "session" } else { "sessions" };
                lines.push(Line::Note(format!(
                    "refused a connection from {peer}: {running} {sessions} running"
                )));
            }
            ServerEvent::AcceptFailed { error, retry_in } => lines.push(Line::Problem(format!(
                "cannot accept a connection: {error}; trying again in {} ms",
                retry_in.as_millis()
            ))),
            _ => {}
        }
        lines
    }

    /// The lines of one event of session `id` (`None` for the only session).
    pub fn event(&mut self, id: Option<u64>, event: &Event) -> Vec<Line> {
        if let Event::Listening(address) = event {
            return vec![self.listening(*address)];
        }
        let key = id.unwrap_or(0);
        if let Event::GameStarted(info) = event {
            self.games.insert(key, GameView::new(info.clone()));
        }
        let mut suppressed = 0;
        if let Event::Violation(violation) = event {
            if violation.action == ViolationAction::Closed {
                // The violation that ends a connection is always shown.
                suppressed = self.violations.force();
            } else {
                match self.violations.allow() {
                    Some(left_out) => suppressed = left_out,
                    None => return Vec::new(),
                }
            }
        }
        if self.options.json {
            if matches!(event, Event::Frame { .. }) && self.options.detail < Detail::Debug {
                return Vec::new();
            }
            let mut value = serde_json::to_value(event);
            if suppressed > 0
                && let Ok(Value::Object(object)) = &mut value
            {
                object.insert("suppressed_before".into(), suppressed.into());
            }
            return vec![Line::Out(json_line(id, value))];
        }
        let mut text = match self.event_text(key, event) {
            Ok(text) => text,
            Err(line) => return vec![line],
        };
        if suppressed > 0 && !text.is_empty() {
            text = format!("({suppressed} more violations not shown)\n{text}");
        }
        let tag = match (self.tagged, id) {
            (true, Some(id)) => format!("[{id}] "),
            _ => String::new(),
        };
        text.lines()
            .map(|line| Line::Out(format!("{tag}{}", escaped(line))))
            .collect()
    }

    /// The event as text lines (empty: nothing to show), or the one line it gives the log.
    fn event_text(&mut self, key: u64, event: &Event) -> Result<String, Line> {
        // Quiet: only what ends games, what goes wrong, and where records go.
        if self.options.detail == Detail::Quiet
            && !matches!(
                event,
                Event::GameOver(_)
                    | Event::RecordSaved { .. }
                    | Event::RecordFailed { .. }
                    | Event::Violation(_)
                    | Event::GameRefused { .. }
            )
        {
            return Ok(String::new());
        }
        let mut text = match event {
            Event::GameStarted(info) => started_text(info),
            Event::MovePlayed(played) => return Ok(self.move_text(key, event, played)),
            Event::TakeBackDone { .. } => {
                if let Some(view) = self.games.get_mut(&key) {
                    view.apply(event);
                }
                self.line_text(event)?
            }
            Event::GameOver(_) => self.line_text(event)?,
            _ => return self.line_text(event),
        };
        // The board after the start, a take-back and the end.
        if let Some(view) = self.games.get(&key)
            && self.board_every().is_some()
        {
            text.push('\n');
            text.push_str(&board_text(view, self.options.numbered));
        }
        if let Event::GameOver(record) = event
            && self.options.movetext
            && self.options.detail != Detail::Quiet
        {
            text.push('\n');
            text.push_str(&movetext(record));
        }
        Ok(text)
    }

    /// Every how many plies the board is drawn, if at all: as asked, else after every move at
    /// [`Detail::Verbose`]; never when quiet.
    fn board_every(&self) -> Option<usize> {
        let detail = self.options.detail;
        let every = (self.options.board_every).or((detail >= Detail::Verbose).then_some(1));
        every.filter(|_| detail >= Detail::Normal)
    }

    /// A move's line, with the board every so many plies; the clocks count its time.
    fn move_text(&mut self, key: u64, event: &Event, played: &MovePlayed) -> String {
        let board_every = self.board_every();
        let Some(view) = self.games.get_mut(&key) else {
            return String::new();
        };
        view.apply(event);
        let number = view.move_number(played.ply);
        let dots = if played.color == Color::White {
            ".  "
        } else {
            "..."
        };
        let name = escaped(view.info.name_of(played.color));
        let mut text = format!(
            "{number:>4}{dots} {:<12} {name:<20} {:>6.2} s",
            played.text,
            played.time.as_secs_f64()
        );
        if board_every.is_some_and(|every| played.ply.is_multiple_of(every)) {
            text.push('\n');
            text.push_str(&board_text(view, self.options.numbered));
        }
        text
    }

    /// The one line of an event that needs nothing of the game shown (empty: nothing to
    /// show); a failed record and a rejected command go to the log instead.
    fn line_text(&self, event: &Event) -> Result<String, Line> {
        let detail = self.options.detail;
        Ok(match event {
            Event::Connected { peer: Some(peer) } => format!("connected to {peer}"),
            Event::Connected { peer: None } => "connected".to_owned(),
            Event::Frame { dir, text } if detail >= Detail::Debug => {
                let arrow = match dir {
                    Direction::In => "<",
                    Direction::Out => ">",
                };
                format!("{arrow} {text}")
            }
            Event::GameRequested { number, settings } if detail >= Detail::Verbose => format!(
                "asking for game {number}: we play {}, {}, {}",
                settings.our_color,
                clock_words(settings.minutes),
                limit_words(Some(settings.move_limit).filter(|&n| n > 0))
            ),
            Event::GameRefused {
                number,
                by,
                code,
                why,
            } => format!(
                "game {number} refused by {}: {code}{}",
                who(*by),
                why.as_ref()
                    .map(|why| format!(" ({why})"))
                    .unwrap_or_default()
            ),
            Event::ChatReceived(chat) => format!("chat from the peer: {}", escaped(chat)),
            Event::ChatSent(chat) => format!("chat to the peer: {}", escaped(chat)),
            Event::TakeBackRequested {
                move_number, color, ..
            } => format!("the peer asks to take back to move {move_number} with {color} to move"),
            Event::TakeBackDone {
                requested_by,
                ply,
                position,
                ..
            } => format!(
                "taken back to ply {ply} (asked by {}), {} to move",
                who(*requested_by),
                position.side_to_move()
            ),
            Event::TakeBackRefused {
                requested_by, code, ..
            } => format!("take-back asked by {} refused: {code}", who(*requested_by)),
            Event::EndPending { reason, stop } => format!(
                "the game ends on our turn ({reason}{})",
                if *stop { ", then we stop" } else { "" }
            ),
            Event::Violation(violation) => {
                format!("violation: {violation} ({})", violation.action)
            }
            Event::PlayerError(error) => format!("our player failed: {error}"),
            Event::GameOver(record) => format!(
                "game {} over: {} ({})",
                record.number, record.result, record.termination
            ),
            Event::RecordSaved { path, .. } => format!("saved {}", path.display()),
            Event::RecordFailed { number, error } => {
                return Err(Line::Problem(format!(
                    "game {number} could not be saved: {error}"
                )));
            }
            Event::CommandRejected { command, why } => {
                return Err(Line::Note(format!("cannot {command}: {why}")));
            }
            Event::Closed(reason) => format!("session over: {reason}"),
            _ => String::new(),
        })
    }
}

/// A JSON object as one line, with the session's number beside its fields.
fn json_line(id: Option<u64>, value: serde_json::Result<Value>) -> String {
    let mut value = value.unwrap_or(Value::Null);
    if let (Some(id), Some(object)) = (id, value.as_object_mut()) {
        object.insert("session".into(), id.into());
    }
    value.to_string()
}

/// `text` with every control character escaped (`\n`, `\r`, `\t`, `\x1b`): what a peer sent,
/// fit for a terminal or a log line.
pub fn escaped(text: &str) -> Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() && (c as u32) < 0x100 => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if c.is_control() => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// An I/O error as a lower-case phrase, as every message of damx reads: `no such file or
/// directory` rather than the operating system's `No such file or directory (os error 2)`.
pub fn describe_io(error: &std::io::Error) -> String {
    let text = error.to_string();
    let text = match text.rfind(" (os error ") {
        Some(at) if text.ends_with(')') => &text[..at],
        _ => &text,
    };
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The line that announces a game.
fn started_text(info: &GameInfo) -> String {
    let white = escaped(info.name_of(Color::White));
    let black = escaped(info.name_of(Color::Black));
    let start = if info.start == Position::initial() {
        "normal start".to_owned()
    } else {
        format!("start {}", info.start.to_fen())
    };
    format!(
        "game {}: {white} (white) - {black} (black), {}, {}, {start}",
        info.number,
        clock_words(info.minutes),
        limit_words(info.move_limit)
    )
}

/// `us` or `the peer`.
fn who(side: Side) -> &'static str {
    match side {
        Side::Us => "us",
        Side::Peer => "the peer",
    }
}

fn clock_words(minutes: u16) -> String {
    match minutes {
        0 => "no clock".to_owned(),
        m => format!("{m} min each"),
    }
}

fn limit_words(limit: Option<u16>) -> String {
    match limit {
        None => "no move limit".to_owned(),
        Some(n) => format!("{n} moves"),
    }
}

/// `m:ss.s`.
fn clock_text(duration: Duration) -> String {
    let tenths = duration.as_millis() / 100;
    format!("{}:{:02}.{}", tenths / 600, tenths / 10 % 60, tenths % 10)
}

/// The board of a game with the players and their clocks: the time left with a clock, the
/// time used without.
pub fn board_text(view: &GameView, numbered: bool) -> String {
    let mut text = view
        .position
        .diagram()
        .numbered(numbered)
        .indent(2)
        .side_to_move(false)
        .to_string();
    for color in [Color::White, Color::Black] {
        let clock = match view.time_left(color) {
            Some(left) => format!("{} left", clock_text(left)),
            None => format!("{} used", clock_text(view.used[color.index()])),
        };
        let _ = writeln!(
            text,
            "  {color:<5}  {:<20} {clock}",
            escaped(view.info.name_of(color))
        );
    }
    let _ = write!(text, "  {} to move", view.position.side_to_move());
    text
}

/// The moves of a game, numbered, with the result, in lines of at most 80 characters after
/// `moves:`.
pub fn movetext(record: &GameRecord) -> String {
    let mut words = record.start.numbered_line(&record.moves);
    words.push(record.result.as_str().to_owned());
    let mut text = String::from("moves:");
    let mut line_len = text.len();
    for word in words {
        if line_len + 1 + word.len() > 80 {
            text.push_str("\n      ");
            line_len = 6;
        }
        text.push(' ');
        text.push_str(&word);
        line_len += 1 + word.len();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Role;
    use crate::event::Violation;

    fn out(lines: &[Line]) -> String {
        lines
            .iter()
            .filter_map(|line| match line {
                Line::Out(text) => Some(format!("{text}\n")),
                _ => None,
            })
            .collect()
    }

    /// A peer's name and chat reach the terminal as data: no control character, no line of
    /// their own.
    #[test]
    fn peer_text_is_escaped() {
        assert_eq!(escaped("plain"), "plain");
        assert_eq!(
            escaped("a\x1b[2Jb\x07\r\n\u{85}"),
            "a\\x1b[2Jb\\x07\\r\\n\\x85"
        );
        let hostile = "\x1b[31mred\x07\r\ngame 1 over: 2-0";
        let info = GameInfo {
            number: 1,
            role: Role::Follower,
            our_name: "damx".into(),
            peer_name: hostile.into(),
            our_color: Color::Black,
            minutes: 5,
            move_limit: None,
            start: Position::initial(),
        };
        let mut renderer = Renderer::new(RenderOptions::default()).tagged(true);
        let mut lines = renderer.event(Some(1), &Event::GameStarted(info));
        lines.extend(renderer.event(Some(1), &Event::ChatReceived(hostile.into())));
        let text = out(&lines);
        assert!(
            !text.chars().any(|c| c.is_control() && c != '\n'),
            "{text:?}"
        );
        assert_eq!(text.lines().count(), 2, "{text}");
        assert!(text.lines().all(|line| line.starts_with("[1] ")));
        assert!(!text.lines().any(|line| line.starts_with("game 1 over")));
    }

    /// The board comes every so many moves when asked, after every move at verbose detail
    /// when not, and never when quiet.
    #[test]
    fn verbose_detail_draws_the_board_unless_told() {
        let info = GameInfo {
            number: 1,
            role: Role::Follower,
            our_name: "damx".into(),
            peer_name: "peer".into(),
            our_color: Color::Black,
            minutes: 5,
            move_limit: None,
            start: Position::initial(),
        };
        let lines = |detail, board_every| {
            let options = RenderOptions {
                detail,
                board_every,
                ..RenderOptions::default()
            };
            let mut renderer = Renderer::new(options);
            let lines = renderer.event(None, &Event::GameStarted(info.clone()));
            out(&lines).lines().count()
        };
        assert_eq!(lines(Detail::Normal, None), 1);
        assert!(lines(Detail::Verbose, None) > 10);
        assert!(lines(Detail::Normal, Some(10)) > 10);
        assert_eq!(lines(Detail::Quiet, Some(1)), 0);
    }

    /// Violations are shown at most a few a second; the next one shown says how many were
    /// left out, and the one that closes a connection always shows.
    #[test]
    fn violations_are_rate_limited() {
        let violation = |action| {
            Event::Violation(Violation {
                what: "unreadable frame".into(),
                raw: None,
                told: false,
                action,
            })
        };
        let mut renderer = Renderer::new(RenderOptions::default());
        let mut lines = Vec::new();
        for _ in 0..1000 {
            lines.extend(renderer.event(None, &violation(ViolationAction::Ignored)));
        }
        lines.extend(renderer.event(None, &violation(ViolationAction::Closed)));
        let text = out(&lines);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), VIOLATIONS_A_SECOND as usize + 2, "{text}");
        assert_eq!(
            lines[VIOLATIONS_A_SECOND as usize],
            format!("({} more violations not shown)", 1000 - VIOLATIONS_A_SECOND)
        );
        assert!(lines.last().unwrap().ends_with("(connection closed)"));
    }

    /// Quiet shows the results and hides the rest; JSON carries the session's number and
    /// leaves frames out below debug; a failed record is a problem for the log.
    #[test]
    fn detail_and_json_choose_the_lines() {
        let closed = Event::Closed(crate::event::CloseReason::PeerClosed);
        let frame = Event::Frame {
            dir: Direction::In,
            text: "R01".into(),
        };
        let quiet = RenderOptions {
            detail: Detail::Quiet,
            ..RenderOptions::default()
        };
        assert!(Renderer::new(quiet).event(None, &closed).is_empty());
        let failed = Event::RecordFailed {
            number: 2,
            error: "disk full".into(),
        };
        assert_eq!(
            Renderer::new(RenderOptions::default()).event(None, &failed),
            [Line::Problem("game 2 could not be saved: disk full".into())]
        );
        let json = RenderOptions {
            json: true,
            ..RenderOptions::default()
        };
        let mut renderer = Renderer::new(json.clone());
        assert!(renderer.event(Some(3), &frame).is_empty());
        let lines = renderer.event(Some(3), &closed);
        let [Line::Out(line)] = lines.as_slice() else {
            panic!("one output line: {lines:?}");
        };
        let value: Value = serde_json::from_str(line).unwrap();
        assert_eq!(
            (value["type"].as_str(), value["session"].as_u64()),
            (Some("closed"), Some(3))
        );
        let debug = RenderOptions {
            detail: Detail::Debug,
            ..json
        };
        assert_eq!(Renderer::new(debug).event(None, &frame).len(), 1);
    }

    /// With `movetext`, a game's end is followed by its moves, numbered, and the result;
    /// not when quiet.
    #[test]
    fn a_games_moves_follow_its_end() {
        let start = damx_rules::Position::initial();
        let first = start.parse_move("32-28").unwrap();
        let over = Event::GameOver(Box::new(GameRecord {
            number: 1,
            role: crate::Role::Initiator,
            white: "a".into(),
            black: "b".into(),
            our_color: damx_rules::Color::White,
            minutes: 0,
            move_limit: None,
            start,
            moves: vec![first],
            seconds: vec![0],
            result: damx_rules::GameResult::Unfinished,
            termination: crate::Termination::Aborted,
            site: None,
            date: None,
        }));
        let text = |options: RenderOptions| {
            let lines = Renderer::new(options).event(None, &over);
            let out = lines.iter().filter_map(|line| match line {
                Line::Out(text) => Some(text.as_str()),
                _ => None,
            });
            out.collect::<Vec<_>>().join("\n")
        };
        let movetext = RenderOptions {
            movetext: true,
            ..RenderOptions::default()
        };
        assert!(
            text(movetext.clone()).ends_with("\nmoves: 1. 32-28 *"),
            "{}",
            text(movetext.clone())
        );
        assert!(!text(RenderOptions::default()).contains("moves:"));
        let quiet = RenderOptions {
            detail: Detail::Quiet,
            ..movetext
        };
        assert!(!text(quiet).contains("moves:"));
    }

    /// Clocks read as minutes, seconds and tenths.
    #[test]
    fn clocks_read_as_minutes_and_seconds() {
        assert_eq!(clock_text(Duration::from_millis(61_250)), "1:01.2");
        assert_eq!(clock_text(Duration::ZERO), "0:00.0");
    }

    /// I/O errors read as one lower-case phrase without the operating system's number.
    #[test]
    fn io_errors_read_as_lower_case_phrases() {
        let error = std::io::Error::from_raw_os_error(2);
        assert_eq!(describe_io(&error), "no such file or directory");
        let custom = std::io::Error::other("Stream closed");
        assert_eq!(describe_io(&custom), "stream closed");
        assert_eq!(describe_io(&std::io::Error::other("")), "");
    }
}

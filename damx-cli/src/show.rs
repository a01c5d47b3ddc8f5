//! How the session commands show a session: one line a move, a board now and then, results,
//! violations; or every event as a JSON line.
//!
//! Text (standard output):
//!
//! ```text
//! connected to 127.0.0.1:50712
//! game 1: damx (white) - DXP Client (black), 5 min each, no move limit, normal start
//!   1.   32-28        damx            0.52 s
//!   1... 19-23        DXP Client      0.31 s
//! ...
//! game 1 over: 2-0 (black has no legal move)
//! saved games/20260112-101500-001-damx-DXP_Client.pdn
//! session over: the peer stopped
//! ```
//!
//! With `-q` only the results, the violations, refusals and the files saved are shown. A
//! server's sessions are told apart by a `[N]` before each line. The board (`--board N`, or
//! every move at `-v`) shows the position with both players' clocks: the time left with a
//! clock, the time used without. `-vv` adds every frame in and out.
//!
//! JSON (`--json`): one object a line, as `Event` and `ServerEvent` serialize, its `type` one of `listening`, `connected`,
//! `game_requested`, `game_refused`, `game_started`, `move`, `chat`, `take_back_requested`,
//! `take_back`, `take_back_refused`, `end_pending`, `violation`, `player_error`, `game_over`,
//! `record_saved`, `record_failed`, `command_rejected`, `closed`, `refused_connection`,
//! `session_ended` and (at `-vv`) `frame`; with a `session` number from a server.
//!
//! The peer's text is data: its name and chats are shown with control characters escaped
//! (`\x1b`, `\n`, ...), so that nothing a peer sends can move the cursor, recolour the
//! terminal or start a line of its own; every line of text is checked the same way before it
//! is written. JSON escapes them by itself. Violations are shown at most
//! [`VIOLATIONS_A_SECOND`] a second; the next line shown says how many were left out.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::{self, Write};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use damx_rules::{Color, Position};
use damx_session::{
    Direction, Event, GameInfo, GameView, MovePlayed, ServerEvent, Side, ViolationAction,
};
use serde_json::Value;

use crate::log::{self, Level, note, problem};

/// How many violation lines are shown a second, across all sessions.
pub(crate) const VIOLATIONS_A_SECOND: u32 = 5;

/// `text` with every control character escaped (`\n`, `\r`, `\t`, `\x1b`): what a
/// peer sent, fit for a terminal or a log line.
pub(crate) fn escaped(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return std::borrow::Cow::Borrowed(text);
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
    std::borrow::Cow::Owned(out)
}

/// How to show sessions.
#[derive(Clone, Debug, Default)]
pub(crate) struct Options {
    /// JSON lines instead of text.
    pub(crate) json: bool,
    /// Draw the board after every this many moves (plies).
    pub(crate) board_every: Option<usize>,
    /// Draw the board with the square numbers beside it.
    pub(crate) numbered: bool,
}

/// Writes the events of one or more sessions.
pub(crate) struct Show {
    options: Options,
    /// Put `[N]` before each line (a server with several sessions).
    tagged: bool,
    games: HashMap<u64, GameView>,
    /// The second in which violation lines are counted, and how many were shown in it.
    violations_shown: Option<(Instant, u32)>,
    /// Violation lines left out since the last one shown.
    violations_suppressed: u64,
}

impl Show {
    /// A display with these options; `tagged` for a server's sessions.
    pub(crate) fn new(options: Options, tagged: bool) -> Show {
        Show {
            options,
            tagged,
            games: HashMap::new(),
            violations_shown: None,
            violations_suppressed: 0,
        }
    }

    /// Whether a violation may be shown now; if so, how many were left out before it.
    fn violation_allowed(&mut self) -> Option<u64> {
        let now = Instant::now();
        let (since, shown) = match self.violations_shown {
            Some((since, shown)) if now.duration_since(since) < Duration::from_secs(1) => {
                (since, shown)
            }
            _ => (now, 0),
        };
        if shown >= VIOLATIONS_A_SECOND {
            self.violations_suppressed += 1;
            self.violations_shown = Some((since, shown));
            return None;
        }
        self.violations_shown = Some((since, shown + 1));
        Some(std::mem::take(&mut self.violations_suppressed))
    }

    /// The address we listen on.
    pub(crate) fn listening(&mut self, address: SocketAddr, out: &mut dyn Write) -> io::Result<()> {
        if self.options.json {
            let value = serde_json::to_value(ServerEvent::Listening(address))?;
            return self.json(None, value, out);
        }
        writeln!(out, "listening on {address}")?;
        out.flush()
    }

    /// One event of a server.
    pub(crate) fn server_event(
        &mut self,
        event: &ServerEvent,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        match event {
            ServerEvent::Session { id, event } => return self.event(Some(*id), event, out),
            ServerEvent::Ended { id, .. } => {
                self.games.remove(id);
            }
            ServerEvent::Capped {
                asked,
                allowed,
                descriptors,
            } => note!(
                "serving at most {allowed} connections, not {asked}: the limit of \
                 {descriptors} open files allows no more (raise it with ulimit -n)"
            ),
            _ => {}
        }
        if self.options.json {
            return match event {
                ServerEvent::Accepted { .. } | ServerEvent::Capped { .. } => Ok(()),
                _ => self.json(None, serde_json::to_value(event)?, out),
            };
        }
        match event {
            ServerEvent::Listening(address) => self.listening(*address, out),
            ServerEvent::Refused { peer, running } => {
                let peer = peer.map(|p| p.to_string()).unwrap_or_default();
                let sessions = if *running == 1 { "session" } else { "sessions" };
                note!("refused a connection from {peer}: {running} {sessions} running");
                Ok(())
            }
            ServerEvent::AcceptFailed { error, retry_in } => {
                problem!(
                    "cannot accept a connection: {error}; trying again in {} ms",
                    retry_in.as_millis()
                );
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// One event of session `id` (`None` for the only session).
    pub(crate) fn event(
        &mut self,
        id: Option<u64>,
        event: &Event,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        let key = id.unwrap_or(0);
        if let Event::RecordFailed { .. } = event {
            crate::session::record_failed();
        }
        if let Event::GameStarted(info) = event {
            self.games.insert(key, GameView::new(info.clone()));
        }
        let mut suppressed = 0;
        if let Event::Violation(violation) = event {
            if violation.action == ViolationAction::Closed {
                // The violation that ends a connection is always shown.
                suppressed = std::mem::take(&mut self.violations_suppressed);
            } else {
                match self.violation_allowed() {
                    Some(left_out) => suppressed = left_out,
                    None => return Ok(()),
                }
            }
        }
        if self.options.json {
            if matches!(event, Event::Frame { .. }) && !log::enabled(Level::Debug) {
                return Ok(());
            }
            let mut value = serde_json::to_value(event)?;
            if suppressed > 0
                && let Some(object) = value.as_object_mut()
            {
                object.insert("suppressed_before".into(), suppressed.into());
            }
            return self.json(id, value, out);
        }
        let mut text = self.event_text(key, event);
        if suppressed > 0 && !text.is_empty() {
            text = format!("({suppressed} more violations not shown)\n{text}");
        }
        if !text.is_empty() {
            let tag = match (self.tagged, id) {
                (true, Some(id)) => format!("[{id}] "),
                _ => String::new(),
            };
            for line in text.lines() {
                writeln!(out, "{tag}{}", escaped(line))?;
            }
            out.flush()?;
        }
        Ok(())
    }

    fn json(&self, id: Option<u64>, mut value: Value, out: &mut dyn Write) -> io::Result<()> {
        if let (Some(id), Some(object)) = (id, value.as_object_mut()) {
            object.insert("session".into(), id.into());
        }
        serde_json::to_writer(&mut *out, &value)?;
        writeln!(out)?;
        out.flush()
    }

    /// The event as text lines (empty: nothing to show).
    fn event_text(&mut self, key: u64, event: &Event) -> String {
        // `-q`: only what ends games, what goes wrong, and where records go.
        if !log::enabled(Level::Normal)
            && !matches!(
                event,
                Event::GameOver(_)
                    | Event::RecordSaved { .. }
                    | Event::RecordFailed { .. }
                    | Event::Violation(_)
                    | Event::GameRefused { .. }
            )
        {
            return String::new();
        }
        let mut text = match event {
            Event::GameStarted(info) => started_text(info),
            Event::MovePlayed(played) => return self.move_text(key, event, played),
            Event::TakeBackDone { .. } => {
                if let Some(view) = self.games.get_mut(&key) {
                    view.apply(event);
                }
                line_text(event)
            }
            Event::GameOver(_) => line_text(event),
            _ => return line_text(event),
        };
        // The board after the start, a take-back and the end.
        if let Some(view) = self.games.get(&key)
            && self.board_every().is_some()
        {
            text.push('\n');
            text.push_str(&board_text(view, self.options.numbered));
        }
        text
    }

    /// Every how many plies the board is drawn, if at all.
    fn board_every(&self) -> Option<usize> {
        self.options
            .board_every
            .filter(|_| log::enabled(Level::Normal))
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

/// The one line of an event that needs nothing of the game shown (empty: nothing to show);
/// a failed record and a rejected command go to the log instead.
fn line_text(event: &Event) -> String {
    match event {
        Event::Connected { peer: Some(peer) } => format!("connected to {peer}"),
        Event::Connected { peer: None } => "connected".to_owned(),
        Event::Frame { dir, text } if log::enabled(Level::Debug) => {
            let arrow = match dir {
                Direction::In => "<",
                Direction::Out => ">",
            };
            format!("{arrow} {text}")
        }
        Event::GameRequested { number, settings } if log::enabled(Level::Verbose) => format!(
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
        Event::Violation(violation) => format!("violation: {violation} ({})", violation.action),
        Event::PlayerError(error) => format!("our player failed: {error}"),
        Event::GameOver(record) => format!(
            "game {} over: {} ({})",
            record.number, record.result, record.termination
        ),
        Event::RecordSaved { path, .. } => format!("saved {}", path.display()),
        Event::RecordFailed { number, error } => {
            problem!("game {number} could not be saved: {error}");
            String::new()
        }
        Event::CommandRejected { command, why } => {
            note!("cannot {command}: {why}");
            String::new()
        }
        Event::Closed(reason) => format!("session over: {reason}"),
        _ => String::new(),
    }
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

/// The board of a game with the players and their clocks.
fn board_text(view: &GameView, numbered: bool) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

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
            role: damx_session::Role::Follower,
            our_name: "damx".into(),
            peer_name: hostile.into(),
            our_color: Color::Black,
            minutes: 5,
            move_limit: None,
            start: Position::initial(),
        };
        let mut show = Show::new(Options::default(), true);
        let mut out = Vec::new();
        show.event(Some(1), &Event::GameStarted(info), &mut out)
            .unwrap();
        show.event(Some(1), &Event::ChatReceived(hostile.into()), &mut out)
            .unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            !text.chars().any(|c| c.is_control() && c != '\n'),
            "{text:?}"
        );
        assert_eq!(text.lines().count(), 2, "{text}");
        assert!(text.lines().all(|line| line.starts_with("[1] ")));
        assert!(!text.lines().any(|line| line.starts_with("game 1 over")));
    }

    /// Violations are shown at most a few a second; the next one shown says how many were
    /// left out, and the one that closes a connection always shows.
    #[test]
    fn violations_are_rate_limited() {
        let violation = |action| {
            Event::Violation(damx_session::Violation {
                what: "unreadable frame".into(),
                raw: None,
                told: false,
                action,
            })
        };
        let mut show = Show::new(Options::default(), false);
        let mut out = Vec::new();
        for _ in 0..1000 {
            show.event(None, &violation(ViolationAction::Ignored), &mut out)
                .unwrap();
        }
        show.event(None, &violation(ViolationAction::Closed), &mut out)
            .unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), VIOLATIONS_A_SECOND as usize + 2, "{text}");
        assert_eq!(
            lines[VIOLATIONS_A_SECOND as usize],
            format!("({} more violations not shown)", 1000 - VIOLATIONS_A_SECOND)
        );
        assert!(lines.last().unwrap().ends_with("(connection closed)"));
    }

    /// Clocks read as minutes, seconds and tenths.
    #[test]
    fn clocks_read_as_minutes_and_seconds() {
        assert_eq!(clock_text(Duration::from_millis(61_250)), "1:01.2");
        assert_eq!(clock_text(Duration::ZERO), "0:00.0");
    }
}

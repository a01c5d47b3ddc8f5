//! Finished games: [`GameRecord`], its result and why it ended, and its PDN form.
//!
//! A record becomes a PDN game ([`GameRecord::to_pdn`], written by `damx_rules::pdn`) with the
//! tags `Event`, `Date`, `White`, `Black` (the DXP names), `Result`, `GameType "20"`, `FEN`
//! for a set-up start, then `Site` (the peer's address), `Round` (the game's number in the
//! session), `TimeControl` (`moves/seconds` for the DXP move limit and thinking time,
//! `seconds` without a move limit, `-` without a clock) and `Termination` (why it ended,
//! in words: "black has no legal move", "draw: threefold repetition", "white sent an illegal
//! move: M0000332700 (...)", "connection lost").
//!
//! The driver saves each record as soon as the game ends (before the GAMEEND handshake is
//! over, so that nothing is lost if the peer disappears): one file per game in a directory,
//! or appended to one file ([`PdnTarget`]).

use std::fmt;
use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use damx_rules::pdn::PdnGame;
use damx_rules::{Color, DrawReason, GameResult, Move, Outcome, Position, WinReason};

use crate::config::{PdnTarget, Role};

/// The win of `color`.
pub(crate) const fn win(color: Color) -> GameResult {
    match color {
        Color::White => GameResult::WhiteWins,
        Color::Black => GameResult::BlackWins,
    }
}

/// Why a game ended; its `Display` is the PDN `Termination` tag.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Termination {
    /// The side to move had no piece or no legal move.
    NoLegalMove {
        /// That side.
        loser: Color,
    },
    /// A draw rule applied.
    DrawRule(DrawReason),
    /// A side ended the game giving up (GAMEEND reason `1`).
    GaveUp {
        /// That side.
        by: Color,
    },
    /// A side ended the game declaring a draw (GAMEEND reason `2`).
    DrawDeclared {
        /// That side.
        by: Color,
    },
    /// A side ended the game claiming a win (GAMEEND reason `3`).
    WinClaimed {
        /// That side.
        by: Color,
    },
    /// A side's clock ran out (as we measured it).
    TimeForfeit {
        /// That side.
        loser: Color,
    },
    /// Each side made the game's number of moves.
    MoveLimit {
        /// The limit.
        moves: u16,
    },
    /// A side ended the game without giving a reason (GAMEEND reason `0`).
    Ended {
        /// That side.
        by: Color,
    },
    /// A side sent a move that is not legal.
    IllegalMove {
        /// That side.
        by: Color,
        /// The frame, escaped.
        raw: String,
        /// Why it is not legal.
        why: String,
    },
    /// A side sent a move when it was not its turn.
    OutOfTurn {
        /// That side.
        by: Color,
        /// The frame, escaped.
        raw: String,
    },
    /// A side sent a frame that is not a DXP message.
    Undecodable {
        /// That side.
        by: Color,
        /// The frame, escaped.
        raw: String,
        /// Why it does not decode.
        why: String,
    },
    /// A side sent nothing when it had to move.
    Silent {
        /// That side.
        by: Color,
        /// How long we waited, in seconds.
        seconds: u64,
    },
    /// A side made more noise (bad frames, chats, take-back requests) than the
    /// [`NoiseBudget`](crate::NoiseBudget) allows.
    Noise {
        /// That side.
        by: Color,
    },
    /// A side's player failed (for example, chose an illegal move).
    PlayerFailed {
        /// That side.
        by: Color,
        /// What happened.
        why: String,
    },
    /// The connection was lost during the game.
    ConnectionLost,
    /// The user aborted the session during the game.
    Aborted,
}

impl Termination {
    /// The termination of a rules outcome.
    pub fn of_outcome(outcome: Outcome, side_to_move: Color) -> Termination {
        match outcome {
            Outcome::Win {
                reason: WinReason::NoMoves,
                ..
            } => Termination::NoLegalMove {
                loser: side_to_move,
            },
            Outcome::Draw(reason) => Termination::DrawRule(reason),
        }
    }

    /// Its kind, as a stable word.
    pub const fn reason(&self) -> Reason {
        match self {
            Termination::NoLegalMove { .. } => Reason::NoMoves,
            Termination::DrawRule(DrawReason::Repetition) => Reason::Repetition,
            Termination::DrawRule(DrawReason::KingMoves25) => Reason::KingMoves25,
            Termination::DrawRule(DrawReason::Endgame16) => Reason::Endgame16,
            Termination::DrawRule(DrawReason::Endgame5) => Reason::Endgame5,
            Termination::GaveUp { .. } => Reason::Resigned,
            Termination::DrawDeclared { .. } => Reason::DrawClaim,
            Termination::WinClaimed { .. } => Reason::WinClaim,
            Termination::TimeForfeit { .. } => Reason::Time,
            Termination::MoveLimit { .. } => Reason::MoveLimit,
            Termination::Ended { .. } => Reason::Ended,
            Termination::IllegalMove { .. } => Reason::IllegalMove,
            Termination::OutOfTurn { .. } => Reason::OutOfTurn,
            Termination::Undecodable { .. } => Reason::ProtocolError,
            Termination::Silent { .. } => Reason::Silent,
            Termination::Noise { .. } => Reason::Noise,
            Termination::PlayerFailed { .. } => Reason::PlayerFailed,
            Termination::ConnectionLost => Reason::ConnectionLost,
            Termination::Aborted => Reason::Aborted,
        }
    }
}

impl fmt::Display for Termination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Termination::NoLegalMove { loser } => write!(f, "{loser} has no legal move"),
            Termination::DrawRule(reason) => write!(f, "draw: {reason}"),
            Termination::GaveUp { by } => write!(f, "{by} gave up"),
            Termination::DrawDeclared { by } => write!(f, "{by} declared a draw"),
            Termination::WinClaimed { by } => write!(f, "{by} claimed a win"),
            Termination::TimeForfeit { loser } => write!(f, "{loser} ran out of time"),
            Termination::MoveLimit { moves } => write!(f, "move limit of {moves} moves reached"),
            Termination::Ended { by } => write!(f, "{by} ended the game without a reason"),
            Termination::IllegalMove { by, raw, why } => {
                write!(f, "{by} sent an illegal move: {raw} ({why})")
            }
            Termination::OutOfTurn { by, raw } => write!(f, "{by} sent a move out of turn: {raw}"),
            Termination::Undecodable { by, raw, why } => {
                write!(f, "{by} sent an undecodable message: {raw} ({why})")
            }
            Termination::Silent { by, seconds } => write!(f, "{by} sent nothing for {seconds} s"),
            Termination::Noise { by } => write!(f, "{by} sent too many bad frames or requests"),
            Termination::PlayerFailed { by, why } => write!(f, "{by}'s player failed: {why}"),
            Termination::ConnectionLost => f.write_str("connection lost"),
            Termination::Aborted => f.write_str("aborted"),
        }
    }
}

/// How a game ended, as one stable word (`Display`, [`Reason::word`]): the kind of a
/// [`Termination`] ([`Termination::reason`]) and of a refereed game's verdict. The referee's
/// event stream and the results file use these words, and `--resume` reads them back.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Reason {
    /// `no-moves`: the side to move has no piece or no legal move.
    NoMoves,
    /// `repetition`: the same position for the third time.
    Repetition,
    /// `king-moves-25`: 25 moves each with only kings moved and no capture.
    KingMoves25,
    /// `endgame-16`: 16 moves each against a lone king (three pieces against one).
    Endgame16,
    /// `endgame-5`: 5 moves each against a lone king (two pieces against one).
    Endgame5,
    /// `resigned`: a program ended the game with GAMEEND reason `1`.
    Resigned,
    /// `draw-claim`: a program ended the game with GAMEEND reason `2`.
    DrawClaim,
    /// `win-claim`: a program ended the game with GAMEEND reason `3`.
    WinClaim,
    /// `ended`: a program ended the game with GAMEEND reason `0`.
    Ended,
    /// `move-cap`: the move cap was reached and the game adjudicated.
    MoveCap,
    /// `egdb`: the game reached a quiet position within the endgame databases, which decided
    /// it ([`AdjudicationMethod::Egdb`](crate::referee::AdjudicationMethod::Egdb)).
    Egdb,
    /// `illegal-move`: a program sent a move that is not legal (forfeit).
    IllegalMove,
    /// `out-of-turn`: a program sent a move when it was not its turn (forfeit).
    OutOfTurn,
    /// `protocol-error`: a program sent what DXP does not allow there (forfeit).
    ProtocolError,
    /// `silent`: a program did not answer in time (forfeit).
    Silent,
    /// `time`: a program ran out of time, with loss on time configured (forfeit).
    Time,
    /// `crash`: a program's process exited during the game (forfeit).
    Crash,
    /// `connection-lost`: a program's connection ended during the game (forfeit).
    ConnectionLost,
    /// `refused`: a program refused the GAMEREQ (forfeit).
    Refused,
    /// `no-start`: a program could not be started or reached (forfeit).
    NoStart,
    /// `false-claim`: a program claimed a draw or a win that the rules do not give, under
    /// [`ClaimPolicy::Strict`](crate::referee::ClaimPolicy::Strict) (forfeit).
    FalseClaim,
    /// `double-forfeit`: neither program could play; the game counts for nobody.
    DoubleForfeit,
    /// `aborted`: the referee was told to stop; the game counts for nobody.
    Aborted,
    /// `move-limit`: each side made the game's DXP number of moves; unfinished.
    MoveLimit,
    /// `noise`: a program sent more bad frames, chats or take-back requests than the
    /// [`NoiseBudget`](crate::NoiseBudget) allows (forfeit).
    Noise,
    /// `player-failed`: our own player failed (for example, chose an illegal move).
    PlayerFailed,
}

impl Reason {
    /// Every reason, in the order of the final table.
    pub const ALL: [Reason; 26] = [
        Reason::NoMoves,
        Reason::Repetition,
        Reason::KingMoves25,
        Reason::Endgame16,
        Reason::Endgame5,
        Reason::Resigned,
        Reason::DrawClaim,
        Reason::WinClaim,
        Reason::Ended,
        Reason::MoveCap,
        Reason::Egdb,
        Reason::IllegalMove,
        Reason::OutOfTurn,
        Reason::ProtocolError,
        Reason::Silent,
        Reason::Time,
        Reason::Crash,
        Reason::ConnectionLost,
        Reason::Refused,
        Reason::NoStart,
        Reason::FalseClaim,
        Reason::DoubleForfeit,
        Reason::Aborted,
        Reason::MoveLimit,
        Reason::Noise,
        Reason::PlayerFailed,
    ];

    /// The stable word.
    pub const fn word(self) -> &'static str {
        match self {
            Reason::NoMoves => "no-moves",
            Reason::Repetition => "repetition",
            Reason::KingMoves25 => "king-moves-25",
            Reason::Endgame16 => "endgame-16",
            Reason::Endgame5 => "endgame-5",
            Reason::Resigned => "resigned",
            Reason::DrawClaim => "draw-claim",
            Reason::WinClaim => "win-claim",
            Reason::Ended => "ended",
            Reason::MoveCap => "move-cap",
            Reason::Egdb => "egdb",
            Reason::IllegalMove => "illegal-move",
            Reason::OutOfTurn => "out-of-turn",
            Reason::ProtocolError => "protocol-error",
            Reason::Silent => "silent",
            Reason::Time => "time",
            Reason::Crash => "crash",
            Reason::ConnectionLost => "connection-lost",
            Reason::Refused => "refused",
            Reason::NoStart => "no-start",
            Reason::FalseClaim => "false-claim",
            Reason::DoubleForfeit => "double-forfeit",
            Reason::Aborted => "aborted",
            Reason::MoveLimit => "move-limit",
            Reason::Noise => "noise",
            Reason::PlayerFailed => "player-failed",
        }
    }

    /// The reason a word stands for.
    pub fn from_word(word: &str) -> Option<Reason> {
        Reason::ALL.into_iter().find(|reason| reason.word() == word)
    }

    /// Whether a program lost (or both did) by breaking the rules of the match rather than on
    /// the board.
    pub const fn is_forfeit(self) -> bool {
        matches!(
            self,
            Reason::IllegalMove
                | Reason::OutOfTurn
                | Reason::ProtocolError
                | Reason::Silent
                | Reason::Time
                | Reason::Crash
                | Reason::ConnectionLost
                | Reason::Refused
                | Reason::NoStart
                | Reason::FalseClaim
                | Reason::DoubleForfeit
                | Reason::Noise
        )
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.word())
    }
}

/// A finished (or broken-off) game, with everything its PDN record needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    /// The game's number in the session, from 1 (the PDN `Round`).
    pub number: u32,
    /// Our role in the session.
    pub role: Role,
    /// White's DXP name.
    pub white: String,
    /// Black's DXP name.
    pub black: String,
    /// The colour we played.
    pub our_color: Color,
    /// Thinking time per player in minutes (0: no clock).
    pub minutes: u16,
    /// Number of moves for the game (each side), if limited.
    pub move_limit: Option<u16>,
    /// The start position.
    pub start: Position,
    /// The moves, each legal in its position.
    pub moves: Vec<Move>,
    /// Seconds each move took, as we measured it.
    pub seconds: Vec<u16>,
    /// The result.
    pub result: GameResult,
    /// Why the game ended.
    pub termination: Termination,
    /// Where it was played (the peer's address), filled in by the driver.
    pub site: Option<String>,
    /// When it was played (`YYYY.MM.DD`, UTC), filled in by the driver.
    pub date: Option<String>,
}

impl GameRecord {
    /// The game as PDN, with the tags listed in the module documentation.
    pub fn to_pdn(&self, event: &str) -> PdnGame {
        let mut pdn = PdnGame::new(self.start, self.moves.clone(), self.result);
        pdn.set_tag("Event", event);
        if let Some(date) = &self.date {
            pdn.set_tag("Date", date);
        }
        pdn.set_tag("White", &self.white);
        pdn.set_tag("Black", &self.black);
        if let Some(site) = &self.site {
            pdn.set_tag("Site", site);
        }
        pdn.set_tag("Round", &self.number.to_string());
        pdn.set_tag("TimeControl", &self.time_control());
        pdn.set_tag("Termination", &self.termination.to_string());
        pdn
    }

    /// The PDN `TimeControl` value: `65/3600`, `300`, or `-` without a clock.
    pub fn time_control(&self) -> String {
        let seconds = u32::from(self.minutes) * 60;
        match (self.minutes, self.move_limit) {
            (0, _) => "-".to_owned(),
            (_, Some(moves)) => format!("{moves}/{seconds}"),
            (_, None) => seconds.to_string(),
        }
    }
}

/// Serialises appends to one PDN file from several sessions of a process.
static APPEND: Mutex<()> = Mutex::new(());

/// Writes `record` as PDN to `target`; returns the file written.
pub(crate) fn save(
    record: &GameRecord,
    target: &PdnTarget,
    event: &str,
    now: SystemTime,
) -> io::Result<PathBuf> {
    let text = record.to_pdn(event).to_string();
    match target {
        PdnTarget::File(path) => {
            let _guard = APPEND
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
                create_dir(parent)?;
            }
            let mut file = OpenOptions::new().create(true).append(true).open(path)?;
            file.write_all(text.as_bytes())?;
            Ok(path.clone())
        }
        PdnTarget::Directory(dir) => {
            create_dir(dir)?;
            let (y, mo, d, h, mi, s) = civil_time(now);
            let stem = format!(
                "{y:04}{mo:02}{d:02}-{h:02}{mi:02}{s:02}-{:03}-{}-{}",
                record.number,
                file_part(&record.white),
                file_part(&record.black)
            );
            write_new(dir, &stem, text.as_bytes())
        }
    }
}

/// Creates `dir/stem.pdn`, or `stem-2.pdn`, ... if it exists.
fn write_new(dir: &Path, stem: &str, bytes: &[u8]) -> io::Result<PathBuf> {
    for attempt in 1..=100 {
        let name = if attempt == 1 {
            format!("{stem}.pdn")
        } else {
            format!("{stem}-{attempt}.pdn")
        };
        let path = dir.join(name);
        match OpenOptions::new().write(true).create_new(true).open(&path) {
            Ok(mut file) => {
                file.write_all(bytes)?;
                return Ok(path);
            }
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(error) => return Err(error),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        format!("{stem}.pdn and 99 variants exist"),
    ))
}

/// A name as part of a file name: letters, digits, `-` and `_` kept, the rest `_`, at most 24.
fn file_part(name: &str) -> String {
    let part: String = name
        .trim()
        .chars()
        .take(24)
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if part.is_empty() {
        "_".to_owned()
    } else {
        part
    }
}

/// The PDN date (`YYYY.MM.DD`, UTC) of `now`.
pub(crate) fn pdn_date(now: SystemTime) -> String {
    let (y, m, d, ..) = civil_time(now);
    format!("{y:04}.{m:02}.{d:02}")
}

/// UTC year, month, day, hour, minute, second of `now`.
fn civil_time(now: SystemTime) -> (i64, u32, u32, u32, u32, u32) {
    let secs = now
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    let (days, rest) = (secs.div_euclid(86_400), secs.rem_euclid(86_400) as u32);
    // Days to a civil date (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day, rest / 3600, rest / 60 % 60, rest % 60)
}

/// Makes a records directory and its parents (as `fs::create_dir_all`), saying plainly when
/// the path, or one of its parents, exists and is not a directory (`create_dir_all` would
/// report "file exists").
pub fn create_dir(dir: &Path) -> io::Result<()> {
    fs::create_dir_all(dir).map_err(|error| {
        let blocker = dir.ancestors().find(|path| path.exists() && !path.is_dir());
        match (error.kind(), blocker) {
            (io::ErrorKind::AlreadyExists | io::ErrorKind::NotADirectory, Some(blocker)) => {
                io::Error::new(
                    io::ErrorKind::NotADirectory,
                    format!("{} is not a directory", blocker.display()),
                )
            }
            _ => error,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn record() -> GameRecord {
        let start = Position::initial();
        let first = start.legal_moves()[0];
        GameRecord {
            number: 3,
            role: Role::Follower,
            white: "damx".into(),
            black: "DXP Client".into(),
            our_color: Color::White,
            minutes: 60,
            move_limit: Some(65),
            start,
            moves: vec![first],
            seconds: vec![1],
            result: GameResult::Unfinished,
            termination: Termination::ConnectionLost,
            site: Some("127.0.0.1:5000".into()),
            date: Some("2026.11.21".into()),
        }
    }

    /// The PDN carries every tag, and the rules' reader gives the same game back.
    #[test]
    fn pdn_tags_and_round_trip() {
        let record = record();
        let text = record.to_pdn("DXP game").to_string();
        for tag in [
            "[Event \"DXP game\"]",
            "[Date \"2026.11.21\"]",
            "[White \"damx\"]",
            "[Black \"DXP Client\"]",
            "[Result \"*\"]",
            "[GameType \"20\"]",
            "[Site \"127.0.0.1:5000\"]",
            "[Round \"3\"]",
            "[TimeControl \"65/3600\"]",
            "[Termination \"connection lost\"]",
        ] {
            assert!(text.contains(tag), "{tag} in\n{text}");
        }
        let games = damx_rules::pdn::parse_games(&text).unwrap();
        assert_eq!(games[0].moves, record.moves);
        assert_eq!(games[0].result, GameResult::Unfinished);
    }

    /// Time controls for every combination.
    #[test]
    fn time_controls() {
        let mut record = record();
        assert_eq!(record.time_control(), "65/3600");
        record.move_limit = None;
        assert_eq!(record.time_control(), "3600");
        record.minutes = 0;
        assert_eq!(record.time_control(), "-");
    }

    /// Dates of known days, including a leap day.
    #[test]
    fn civil_dates() {
        let at = |secs| UNIX_EPOCH + Duration::from_secs(secs);
        assert_eq!(pdn_date(at(0)), "1970.01.01");
        assert_eq!(pdn_date(at(951_782_400)), "2000.02.29");
        assert_eq!(civil_time(at(1_700_000_000)), (2023, 11, 14, 22, 13, 20));
    }

    /// Saving to a directory makes one file per game, never overwriting; saving to a file
    /// appends.
    #[test]
    fn saving() {
        let dir = std::env::temp_dir().join(format!("damx-record-test-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let record = record();
        let now = UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        let target = PdnTarget::Directory(dir.clone());
        let first = save(&record, &target, "e", now).unwrap();
        let second = save(&record, &target, "e", now).unwrap();
        assert_ne!(first, second);
        assert_eq!(
            first.file_name().unwrap().to_str().unwrap(),
            "20231114-221320-003-damx-DXP_Client.pdn"
        );
        let file = dir.join("all.pdn");
        save(&record, &PdnTarget::File(file.clone()), "e", now).unwrap();
        save(&record, &PdnTarget::File(file.clone()), "e", now).unwrap();
        let text = fs::read_to_string(&file).unwrap();
        assert_eq!(damx_rules::pdn::parse_games(&text).unwrap().len(), 2);
        fs::remove_dir_all(&dir).unwrap();
    }

    /// A records path under a plain file is refused as "not a directory", naming the file,
    /// rather than with `create_dir_all`'s "file exists".
    #[test]
    fn a_directory_under_a_file_is_not_a_directory() {
        let file = std::env::temp_dir().join(format!("damx-record-file-{}", std::process::id()));
        std::fs::write(&file, b"x").unwrap();
        let error = create_dir(&file.join("games")).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::NotADirectory);
        assert_eq!(
            error.to_string(),
            format!("{} is not a directory", file.display())
        );
        std::fs::remove_file(&file).unwrap();
    }
}

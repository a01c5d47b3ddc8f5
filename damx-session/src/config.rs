//! What a session is asked to do: its role, its games, its time-outs, where records go.
//!
//! Every struct has a `Default` with sensible values, so a caller sets only what it needs:
//!
//! ```
//! use damx_session::{InitiatorConfig, SessionConfig};
//! use damx_rules::Color;
//!
//! // Four games of 5 minutes each, alternating colours, damx white in the first.
//! let config = SessionConfig::initiator(InitiatorConfig::series(4, Color::White, 5, 0, &[]));
//! assert_eq!(config.role.games().len(), 4);
//! ```

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use damx_rules::{Color, Position};
use damx_wire::GameReq;

use crate::words::Words;

/// The settings of one game the Initiator asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameSettings {
    /// The colour the Initiator (we) plays; the Follower gets the other one.
    pub our_color: Color,
    /// Thinking time per player for the whole game, in minutes (0..=999; 0 sends no clock).
    pub minutes: u16,
    /// Number of moves for the game, each side (0..=999; 0 means no limit).
    pub move_limit: u16,
    /// The start position: `None` sends the normal start (`A`), `Some` sends the board (`B`).
    pub start: Option<Position>,
}

impl Default for GameSettings {
    /// White, 5 minutes, no move limit, the normal start.
    fn default() -> GameSettings {
        GameSettings {
            our_color: Color::White,
            minutes: 5,
            move_limit: 0,
            start: None,
        }
    }
}

/// Our colour through a series of games.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeriesColors {
    /// Alternating, from this colour in the first game.
    Alternate(Color),
    /// This colour in every game.
    Fixed(Color),
}

/// A word that is not one of those a setting reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChoiceError {
    /// The words it reads.
    pub expected: &'static str,
    /// What it found.
    pub found: String,
}

impl fmt::Display for ChoiceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "expected {}, found {:?}", self.expected, self.found)
    }
}

impl std::error::Error for ChoiceError {}

impl FromStr for SeriesColors {
    type Err = ChoiceError;

    /// `white` or `black` (that colour in every game), `alternate` (white first).
    fn from_str(text: &str) -> Result<SeriesColors, ChoiceError> {
        SeriesColors::from_word(text).ok_or_else(|| ChoiceError {
            expected: "white, black or alternate",
            found: text.to_owned(),
        })
    }
}

/// The games an Initiator asks for before its openings are known: how many, the clock, the
/// move limit and our colours; [`SeriesPlan::role`] makes them an [`InitiatorConfig`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeriesPlan {
    /// How many games.
    pub games: u32,
    /// Minutes per player (0: no clock).
    pub minutes: u16,
    /// Moves per side (0: no limit).
    pub move_limit: u16,
    /// Our colour in each game.
    pub colors: SeriesColors,
}

impl SeriesPlan {
    /// The Initiator's role, starting from `openings` (none: the normal start), as
    /// [`InitiatorConfig::series_with`] pairs them with the colours.
    pub fn role(&self, openings: &[Position]) -> RoleConfig {
        RoleConfig::Initiator(InitiatorConfig::series_with(
            self.games,
            self.colors,
            self.minutes,
            self.move_limit,
            openings,
        ))
    }
}

/// The Initiator's plan: the games to ask for, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InitiatorConfig {
    /// One entry per GAMEREQ. A game the Follower refuses with `A…2` is skipped; `A…1` or
    /// `A…3` ends the series.
    pub games: Vec<GameSettings>,
}

impl InitiatorConfig {
    /// `count` games of `minutes` minutes and `move_limit` moves, our colour alternating from
    /// `first_color`. With `openings`, each opening is played twice in a row (once with each
    /// colour) and the list is cycled; without, every game starts normally.
    pub fn series(
        count: u32,
        first_color: Color,
        minutes: u16,
        move_limit: u16,
        openings: &[Position],
    ) -> InitiatorConfig {
        let colors = SeriesColors::Alternate(first_color);
        InitiatorConfig::series_with(count, colors, minutes, move_limit, openings)
    }

    /// `count` games as [`InitiatorConfig::series`], our colour by `colors`: alternating, each
    /// opening played twice in a row (once with each colour); or fixed, each opening once. The
    /// openings are cycled.
    pub fn series_with(
        count: u32,
        colors: SeriesColors,
        minutes: u16,
        move_limit: u16,
        openings: &[Position],
    ) -> InitiatorConfig {
        let (per_opening, first) = match colors {
            SeriesColors::Alternate(first) => (2, first),
            SeriesColors::Fixed(color) => (1, color),
        };
        let games = (0..count as usize)
            .map(|index| GameSettings {
                our_color: if per_opening == 2 && index % 2 == 1 {
                    !first
                } else {
                    first
                },
                minutes,
                move_limit,
                start: (!openings.is_empty())
                    .then(|| openings[(index / per_opening) % openings.len()]),
            })
            .collect();
        InitiatorConfig { games }
    }
}

impl Default for InitiatorConfig {
    /// One game with the default [`GameSettings`].
    fn default() -> InitiatorConfig {
        InitiatorConfig {
            games: vec![GameSettings::default()],
        }
    }
}

/// The longest game a Follower accepts by default, in minutes each.
pub const DEFAULT_MAX_MINUTES: u16 = 120;

/// A check the Follower applies to each GAMEREQ: `Err(why)` refuses it with `A…2`.
pub type GameFilter = Arc<dyn Fn(&GameReq) -> Result<(), String> + Send + Sync>;

/// A [`GameFilter`] that refuses games with less thinking time than `least` minutes each (a
/// request without a clock, `000`, too).
pub fn min_minutes(least: u16) -> GameFilter {
    Arc::new(move |request: &GameReq| {
        let minutes = request.minutes.get();
        if minutes < least {
            Err(format!(
                "{minutes} min is less than the {least} min asked for"
            ))
        } else {
            Ok(())
        }
    })
}

/// How the Follower answers GAMEREQs.
#[derive(Clone)]
pub struct FollowerConfig {
    /// `false` refuses every game with `A…3` ("no games at all").
    pub accept_games: bool,
    /// Stop after this many games: the last one ends with stop code `1`.
    pub max_games: Option<u32>,
    /// An extra check for each request (for example a minimum thinking time).
    pub filter: Option<GameFilter>,
    /// The longest game accepted, in minutes each (a longer one is refused with `A…2`): a
    /// silent peer may hold a clocked game this long.
    pub max_minutes: u16,
}

impl Default for FollowerConfig {
    /// Accept every playable game of at most 120 minutes each, without a limit on games.
    fn default() -> FollowerConfig {
        FollowerConfig {
            accept_games: true,
            max_games: None,
            filter: None,
            max_minutes: DEFAULT_MAX_MINUTES,
        }
    }
}

impl fmt::Debug for FollowerConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FollowerConfig")
            .field("accept_games", &self.accept_games)
            .field("max_games", &self.max_games)
            .field("filter", &self.filter.as_ref().map(|_| "..."))
            .field("max_minutes", &self.max_minutes)
            .finish()
    }
}

/// The role with its settings.
#[derive(Clone, Debug)]
pub enum RoleConfig {
    /// We start games.
    Initiator(InitiatorConfig),
    /// We accept games.
    Follower(FollowerConfig),
}

impl RoleConfig {
    /// The role without its settings.
    pub fn role(&self) -> Role {
        match self {
            RoleConfig::Initiator(_) => Role::Initiator,
            RoleConfig::Follower(_) => Role::Follower,
        }
    }

    /// The Initiator's games (empty for a Follower).
    pub fn games(&self) -> &[GameSettings] {
        match self {
            RoleConfig::Initiator(config) => &config.games,
            RoleConfig::Follower(_) => &[],
        }
    }
}

/// Who starts games (dxp.md §1): independent of which side listens.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// Sends GAMEREQ.
    Initiator,
    /// Answers with GAMEACC.
    Follower,
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.word())
    }
}

impl FromStr for Role {
    type Err = ChoiceError;

    /// `initiator` or `follower`, as [`Role`]'s `Display` writes them.
    fn from_str(text: &str) -> Result<Role, ChoiceError> {
        Role::from_word(text).ok_or_else(|| ChoiceError {
            expected: "initiator or follower",
            found: text.to_owned(),
        })
    }
}

/// How long the session waits for the peer and the user.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timeouts {
    /// For an answer the peer owes at once: GAMEACC after our GAMEREQ, the GAMEEND
    /// acknowledgement, BACKACC after our BACKREQ.
    pub reply: Duration,
    /// For the Follower, waiting for the first GAMEREQ after the connection is made (real
    /// programs send it at once; a silent client must not hold a server's place).
    pub first_request: Duration,
    /// For the Follower, waiting for the next GAMEREQ after a game.
    pub idle: Duration,
    /// For the peer's move in a game without a clock (`None`: wait as long as it takes; the
    /// user can still stop). With a clock, the peer may take its remaining time plus
    /// [`Timeouts::clock_grace`].
    pub peer_move: Option<Duration>,
    /// How far past its time the opponent may go before we end the game on time.
    pub clock_grace: Duration,
    /// For the user's answer to the peer's take-back request ([`TakeBackPolicy::Ask`](crate::TakeBackPolicy)); declined after it.
    pub take_back_answer: Duration,
}

impl Default for Timeouts {
    /// Replies 30 s, the first GAMEREQ 10 s, idle 10 min, 5 min a move without a clock,
    /// grace 5 s, take-back answer 60 s.
    fn default() -> Timeouts {
        Timeouts {
            reply: Duration::from_secs(30),
            first_request: Duration::from_secs(10),
            idle: Duration::from_secs(600),
            peer_move: Some(Duration::from_secs(300)),
            clock_grace: Duration::from_secs(5),
            take_back_answer: Duration::from_secs(60),
        }
    }
}

/// How much noise a peer may make before its connection is ended: violations (undecodable,
/// empty or out-of-state frames), chats, take-back requests, and games that bring no play
/// (requests the Follower refuses, games ended before their first move).
///
/// Noise is counted in a bucket that holds [`NoiseBudget::burst`] and refills at
/// [`NoiseBudget::per_second`]; a peer that empties it, or that commits
/// [`NoiseBudget::per_connection`] violations in all, has its game ended (GAMEEND, stop code
/// `1`) and its connection closed. Only the first [`NoiseBudget::replies_per_second`] errors a
/// second are told to the peer by CHAT, so that noise never makes a queue of replies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NoiseBudget {
    /// How much noise at once.
    pub burst: u32,
    /// How much noise a second, on average, after the burst.
    pub per_second: u32,
    /// How many violations in all, for the whole connection (chats and take-back requests
    /// that are not violations are not counted).
    pub per_connection: u32,
    /// How many errors a second are told to the peer by CHAT.
    pub replies_per_second: u32,
}

impl Default for NoiseBudget {
    /// A burst of 20, 5 a second, 200 violations a connection, 5 CHAT replies a second.
    fn default() -> NoiseBudget {
        NoiseBudget {
            burst: 20,
            per_second: 5,
            per_connection: 200,
            replies_per_second: 5,
        }
    }
}

/// Where finished games are written as PDN.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PdnTarget {
    /// One file per game in this directory (created if needed), named
    /// `YYYYMMDD-HHMMSS-<game>-<white>-<black>.pdn`.
    Directory(PathBuf),
    /// Every game appended to this file.
    File(PathBuf),
}

/// A path as a person gives it: a file ending in `.pdn` gets every game appended, anything
/// else is a directory with one file a game.
impl From<PathBuf> for PdnTarget {
    fn from(path: PathBuf) -> PdnTarget {
        if path.extension().is_some_and(|ext| ext == "pdn") {
            PdnTarget::File(path)
        } else {
            PdnTarget::Directory(path)
        }
    }
}

/// What the session writes to disk.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RecordOptions {
    /// PDN records of the games (`None`: not written; the records still arrive as events).
    pub pdn: Option<PdnTarget>,
    /// The whole conversation as JSON lines, one message per line.
    pub transcript: Option<PathBuf>,
    /// The PDN `Event` tag (default `DXP game`).
    pub event: Option<String>,
}

/// A records path that cannot be written: what could not be done, where, and why.
#[derive(Debug)]
pub struct RecordsError {
    /// `create`, `write` or `write in`.
    pub action: &'static str,
    /// The directory or file.
    pub path: PathBuf,
    /// Why.
    pub source: std::io::Error,
}

impl fmt::Display for RecordsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cannot {} {}: {}",
            self.action,
            self.path.display(),
            self.source
        )
    }
}

impl std::error::Error for RecordsError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

impl RecordOptions {
    /// Checks, before any game, that the records can be written: the PDN directory (made if
    /// needed) takes a new file, or the PDN file can be opened for appending; the transcript's
    /// directory takes a new file (a server opens one transcript a connection beside it).
    ///
    /// # Errors
    /// A [`RecordsError`] naming the path that cannot be made or written.
    pub fn check(&self) -> Result<(), RecordsError> {
        let failed = |action, path: &std::path::Path| {
            let path = path.to_path_buf();
            move |source| RecordsError {
                action,
                path,
                source,
            }
        };
        let parent = |path: &std::path::Path| {
            path.parent()
                .filter(|parent| !parent.as_os_str().is_empty())
                .map_or_else(|| PathBuf::from("."), std::path::Path::to_path_buf)
        };
        let takes_a_file = |dir: &std::path::Path| {
            let probe = dir.join(format!(".damx-write-test-{}", std::process::id()));
            std::fs::File::create(&probe).map_err(failed("write in", dir))?;
            let _ = std::fs::remove_file(&probe);
            Ok(())
        };
        if let Some(transcript) = &self.transcript {
            takes_a_file(&parent(transcript))?;
        }
        let Some(target) = &self.pdn else {
            return Ok(());
        };
        let (dir, file) = match target {
            PdnTarget::Directory(dir) => (dir.clone(), None),
            PdnTarget::File(path) => (parent(path), Some(path)),
        };
        crate::record::create_dir(&dir).map_err(failed("create", &dir))?;
        if let Some(file) = file {
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(file)
                .map_err(failed("write", file))?;
            return Ok(());
        }
        takes_a_file(&dir)
    }
}

/// Everything a session needs besides its connection, player and channels.
#[derive(Clone, Debug)]
pub struct SessionConfig {
    /// Initiator or Follower, with its settings.
    pub role: RoleConfig,
    /// Our DXP name; `None` uses the player's name. Cut to 32 printable characters.
    pub name: Option<String>,
    /// How long to wait for the peer and the user.
    pub timeouts: Timeouts,
    /// End the game (GAMEEND reason `0`, on our turn) once each side has made the game's
    /// number of moves.
    pub end_at_move_limit: bool,
    /// End the game (GAMEEND reason `0`, on our turn) once the opponent's clock, as we measure
    /// it, is past its time by more than the grace.
    pub end_on_time: bool,
    /// The least time between two frames we send (pydraughts and DXC100 lose the second of
    /// two frames that arrive together; this also spaces a GAMEACC and our first MOVE). Used
    /// by the connections that [`connect`](crate::connect), [`accept`](crate::accept) and
    /// [`run`](crate::run) make; a [`Connection`](crate::Connection) built by hand takes its own
    /// [`ConnectionOptions`](crate::ConnectionOptions).
    pub frame_gap: Duration,
    /// Records and transcript.
    pub records: RecordOptions,
    /// How much noise the peer may make.
    pub noise: NoiseBudget,
    /// Keep each game's record in the session's report ([`SessionReport::games`]). Off, a
    /// session that plays many games on one connection (a referee's built-in participant
    /// plays a whole series so) takes no memory per game; the records still come as
    /// [`Event::GameOver`](crate::Event) and are saved as configured.
    ///
    /// [`SessionReport::games`]: crate::SessionReport::games
    pub keep_games: bool,
}

impl SessionConfig {
    /// An Initiator session.
    pub fn initiator(config: InitiatorConfig) -> SessionConfig {
        SessionConfig {
            role: RoleConfig::Initiator(config),
            ..SessionConfig::default()
        }
    }

    /// A Follower session.
    pub fn follower(config: FollowerConfig) -> SessionConfig {
        SessionConfig {
            role: RoleConfig::Follower(config),
            ..SessionConfig::default()
        }
    }
}

impl Default for SessionConfig {
    /// A Follower that accepts every playable game, with the default time-outs, ending games at
    /// the move limit and on time, 100 ms between frames, no files written.
    fn default() -> SessionConfig {
        SessionConfig {
            role: RoleConfig::Follower(FollowerConfig::default()),
            name: None,
            timeouts: Timeouts::default(),
            end_at_move_limit: true,
            end_on_time: true,
            frame_gap: Duration::from_millis(100),
            records: RecordOptions::default(),
            noise: NoiseBudget::default(),
            keep_games: true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A records directory under a plain file is refused before any game, naming the path;
    /// one that can be made is made.
    #[test]
    fn records_are_checked_before_the_games() {
        let dir = std::env::temp_dir().join(format!("damx-records-check-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let games = dir.join("games");
        let records = |pdn| RecordOptions {
            pdn: Some(pdn),
            ..RecordOptions::default()
        };
        assert!(records(PdnTarget::Directory(games.clone())).check().is_ok());
        assert!(games.is_dir());
        let file = dir.join("plain");
        std::fs::write(&file, "").unwrap();
        let error = records(PdnTarget::Directory(file.join("below")))
            .check()
            .unwrap_err();
        assert_eq!((error.action, error.path), ("create", file.join("below")));
        assert!(
            records(PdnTarget::File(dir.join("all.pdn")))
                .check()
                .is_ok()
        );
        assert!(RecordOptions::default().check().is_ok());
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A plan with openings and fixed colours plays each opening once, in our colour.
    #[test]
    fn a_plan_becomes_the_initiators_games() {
        let plan = SeriesPlan {
            games: 3,
            minutes: 5,
            move_limit: 0,
            colors: SeriesColors::Fixed(Color::Black),
        };
        let opening: Position = "W:W31-50:B1-19".parse().unwrap();
        let RoleConfig::Initiator(initiator) = plan.role(&[opening, Position::initial()]) else {
            panic!("an Initiator");
        };
        let start = |game: &GameSettings| game.start.unwrap_or_else(Position::initial);
        let starts: Vec<Position> = initiator.games.iter().map(start).collect();
        assert_eq!(starts, [opening, Position::initial(), opening]);
        assert!(
            initiator
                .games
                .iter()
                .all(|game| game.our_color == Color::Black)
        );
    }

    /// The minimum-time filter refuses shorter games and games without a clock, saying why.
    #[test]
    fn a_minimum_time_refuses_shorter_games() {
        let request = |minutes: &str| {
            let frame = format!("R01{:<32}W{minutes}000A", "Peer");
            match damx_wire::decode(frame.as_bytes()) {
                Ok(damx_wire::Message::GameReq(request)) => request,
                other => panic!("{other:?}"),
            }
        };
        let filter = min_minutes(5);
        assert_eq!(filter(&request("005")), Ok(()));
        assert_eq!(
            filter(&request("004")),
            Err("4 min is less than the 5 min asked for".to_owned())
        );
        assert!(filter(&request("000")).is_err());
    }

    /// The colour plans and roles read their words, whatever the case; others are refused.
    #[test]
    fn choices_read_their_words() {
        assert_eq!("Black".parse(), Ok(SeriesColors::Fixed(Color::Black)));
        assert_eq!(
            "alternate".parse(),
            Ok(SeriesColors::Alternate(Color::White))
        );
        assert!("red".parse::<SeriesColors>().is_err());
        for role in [Role::Initiator, Role::Follower] {
            assert_eq!(role.to_string().parse(), Ok(role));
        }
        let error = "leader".parse::<Role>().unwrap_err();
        assert_eq!(
            error.to_string(),
            "expected initiator or follower, found \"leader\""
        );
    }

    /// A series alternates colours and plays each opening with both colours.
    #[test]
    fn series_alternates_colours_and_openings() {
        let a: Position = "W:W31-50:B1-19".parse().unwrap();
        let b: Position = "B:W31-50:B1-20".parse().unwrap();
        let config = InitiatorConfig::series(5, Color::Black, 3, 40, &[a, b]);
        let colors: Vec<Color> = config.games.iter().map(|g| g.our_color).collect();
        use Color::{Black, White};
        assert_eq!(colors, [Black, White, Black, White, Black]);
        let starts: Vec<Option<Position>> = config.games.iter().map(|g| g.start).collect();
        assert_eq!(starts, [Some(a), Some(a), Some(b), Some(b), Some(a)]);
        assert!(
            config
                .games
                .iter()
                .all(|g| g.minutes == 3 && g.move_limit == 40)
        );
        let plain = InitiatorConfig::series(2, Color::White, 0, 0, &[]);
        assert!(plain.games.iter().all(|g| g.start.is_none()));
        let fixed = InitiatorConfig::series_with(3, SeriesColors::Fixed(Black), 1, 40, &[a, b]);
        assert!(fixed.games.iter().all(|g| g.our_color == Black));
        let starts: Vec<Option<Position>> = fixed.games.iter().map(|g| g.start).collect();
        assert_eq!(starts, [Some(a), Some(b), Some(a)]);
    }

    /// A `.pdn` path is a file to append to; any other path a directory.
    #[test]
    fn a_pdn_path_is_a_file_and_any_other_a_directory() {
        let target = |path: &str| PdnTarget::from(PathBuf::from(path));
        assert_eq!(target("games.pdn"), PdnTarget::File("games.pdn".into()));
        assert_eq!(target("games"), PdnTarget::Directory("games".into()));
        assert_eq!(target("games/"), PdnTarget::Directory("games/".into()));
        assert_eq!(target("a.pdn.d"), PdnTarget::Directory("a.pdn.d".into()));
    }
}

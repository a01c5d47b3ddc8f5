//! Openings: the start of each pair of games.
//!
//! - [`Opening::ballots`]: the built-in balanced 2- and 3-move ballots of
//!   [`damx_engine::openings`], labelled by their moves (`32-28,18-23,37-32`).
//! - [`Opening::parse`]: a file of FEN lines (one position a line, `#` comments; the engine's
//!   ballot file reads as one) or a PDN file (each game's position after its moves, labelled
//!   by the moves when the game starts normally, else by the FEN of that position).
//! - [`Opening::read`]: either file, told apart by its content.
//! - [`Opening::initial`]: the normal start, labelled `start`, sent as a GAMEREQ of type `A`.
//! - [`OpeningSource`]: which of these a front end asks for (`ballots`, `start`, a position or
//!   a file), read from its word and loaded in one call.
//!
//! A label is one word (no blanks), so that it fits the event stream.

use std::convert::Infallible;
use std::fmt;
use std::io;
use std::path::PathBuf;
use std::str::FromStr;

use damx_rules::pdn::{self, PdnError};
use damx_rules::{Game, Position};

/// The start of a pair of games.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// One word naming it: `start`, the moves from the start joined by `,`, or a FEN.
    pub label: String,
    /// The position to start from; `None` for the normal start.
    pub start: Option<Position>,
}

/// Why an openings file cannot be read.
#[derive(Debug)]
pub struct OpeningsError {
    /// What went wrong, in words.
    pub message: String,
    /// The PDN reader's error, when it was one.
    pub source: Option<Box<PdnError>>,
}

impl fmt::Display for OpeningsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for OpeningsError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_ref()
            .map(|error| error.as_ref() as &(dyn std::error::Error + 'static))
    }
}

impl Opening {
    /// The normal start.
    pub fn initial() -> Opening {
        Opening {
            label: "start".to_owned(),
            start: None,
        }
    }

    /// An opening from a position (the normal start if it is the initial position).
    pub fn from_position(position: Position) -> Opening {
        if position == Position::initial() {
            return Opening::initial();
        }
        Opening {
            label: position.to_fen().replace(char::is_whitespace, ""),
            start: Some(position),
        }
    }

    /// The built-in ballots, in the engine's order.
    pub fn ballots() -> Vec<Opening> {
        damx_engine::openings::ballots()
            .iter()
            .map(|ballot| Opening {
                label: ballot.moves_text().replace(' ', ","),
                start: Some(ballot.position),
            })
            .collect()
    }

    /// The openings of a file's text, PDN games or FEN lines, told apart by the first line
    /// that is not blank or a comment: a PDN tag (`[`) or a move number starts PDN.
    ///
    /// # Errors
    /// As [`Opening::parse`].
    pub fn read(text: &str) -> Result<Vec<Opening>, OpeningsError> {
        let pdn = text
            .lines()
            .map(str::trim)
            .find(|line| !line.is_empty() && !line.starts_with('#') && !line.starts_with('%'))
            .is_some_and(|line| {
                line.starts_with('[') || line.starts_with(|c: char| c.is_ascii_digit())
            });
        Opening::parse(text, pdn)
    }

    /// The openings of a file's text: PDN games when `pdn` is true, else FEN lines.
    ///
    /// # Errors
    /// An [`OpeningsError`] naming the line (and game) that does not read, or an empty list.
    pub fn parse(text: &str, pdn: bool) -> Result<Vec<Opening>, OpeningsError> {
        let failed = |error: PdnError| OpeningsError {
            message: error.to_string(),
            source: Some(Box::new(error)),
        };
        let openings: Vec<Opening> = if pdn {
            let games = pdn::parse_games(text).map_err(failed)?;
            let mut openings = Vec::with_capacity(games.len());
            for (index, record) in games.iter().enumerate() {
                let game = record.to_game().map_err(|error| OpeningsError {
                    message: format!("game {}: {error}", index + 1),
                    source: None,
                })?;
                openings.push(opening_of_game(&game));
            }
            openings
        } else {
            pdn::parse_fen_list(text)
                .map_err(failed)?
                .into_iter()
                .map(Opening::from_position)
                .collect()
        };
        if let Some(index) = openings
            .iter()
            .position(|o| o.start.is_some_and(|p| !p.has_legal_move()))
        {
            return Err(OpeningsError {
                message: format!("opening {}: the side to move has no legal move", index + 1),
                source: None,
            });
        }
        if openings.is_empty() {
            return Err(OpeningsError {
                message: "no opening in the file".to_owned(),
                source: None,
            });
        }
        Ok(openings)
    }
}

/// Where a series' openings come from. From a word: `ballots`, `start`, or else a file's path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OpeningSource {
    /// The built-in balanced ballots ([`Opening::ballots`]).
    Ballots,
    /// The normal start.
    Start,
    /// One position.
    Position(Position),
    /// A file of FEN lines or PDN games, told apart by content ([`Opening::read`]); `-` is
    /// standard input.
    File(PathBuf),
}

impl FromStr for OpeningSource {
    type Err = Infallible;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Ok(match text {
            "ballots" => OpeningSource::Ballots,
            "start" => OpeningSource::Start,
            path => OpeningSource::File(PathBuf::from(path)),
        })
    }
}

impl OpeningSource {
    /// The start positions of the openings ([`OpeningSource::load`]; the normal start where
    /// an opening has none of its own), for an Initiator's [`SeriesPlan`](crate::config::SeriesPlan).
    ///
    /// # Errors
    /// As [`OpeningSource::load`].
    pub fn positions(&self, seed: Option<u64>) -> Result<Vec<Position>, LoadOpeningsError> {
        let openings = self.load(seed)?.into_iter();
        Ok(openings
            .map(|opening| opening.start.unwrap_or_else(Position::initial))
            .collect())
    }

    /// The openings, the ballots shuffled by `seed` (in the engine's order without one).
    ///
    /// # Errors
    /// A file that cannot be read, or does not read as openings.
    pub fn load(&self, seed: Option<u64>) -> Result<Vec<Opening>, LoadOpeningsError> {
        Ok(match self {
            OpeningSource::Ballots => match seed {
                Some(seed) => super::shuffled(Opening::ballots(), seed),
                None => Opening::ballots(),
            },
            OpeningSource::Start => vec![Opening::initial()],
            OpeningSource::Position(position) => vec![Opening::from_position(*position)],
            OpeningSource::File(path) => {
                let read = if path.as_os_str() == "-" {
                    pdn::read_text(io::stdin().lock())
                } else {
                    std::fs::File::open(path).and_then(pdn::read_text)
                };
                let text = read.map_err(|source| LoadOpeningsError::Read {
                    path: path.clone(),
                    source,
                })?;
                Opening::read(&text).map_err(|error| LoadOpeningsError::Invalid {
                    path: path.clone(),
                    error,
                })?
            }
        })
    }
}

/// Why an [`OpeningSource`] gives no openings.
#[derive(Debug)]
pub enum LoadOpeningsError {
    /// The file cannot be read.
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// The file does not read as openings.
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong in it.
        error: OpeningsError,
    },
}

impl fmt::Display for LoadOpeningsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadOpeningsError::Read { path, .. } => write!(f, "cannot read {}", path.display()),
            LoadOpeningsError::Invalid { path, error } => write!(f, "{}: {error}", path.display()),
        }
    }
}

impl std::error::Error for LoadOpeningsError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            LoadOpeningsError::Read { source, .. } => Some(source),
            LoadOpeningsError::Invalid { error, .. } => Some(error),
        }
    }
}

/// The opening a PDN game stands for: its final position, labelled by its moves.
fn opening_of_game(game: &Game) -> Opening {
    if game.moves().is_empty() || *game.start() != Position::initial() {
        return Opening::from_position(*game.position());
    }
    Opening {
        label: game.start().line_texts(game.moves()).join(","),
        start: Some(*game.position()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The engine's ballots are there, labelled by their moves, and each leads to its position.
    #[test]
    fn built_in_ballots() {
        let ballots = Opening::ballots();
        assert!(ballots.len() > 100);
        for opening in &ballots {
            assert!(!opening.label.contains(char::is_whitespace));
            let mut game = Game::default();
            for text in opening.label.split(',') {
                let mv = game.position().parse_move(text).unwrap();
                game.play(mv);
            }
            assert_eq!(Some(*game.position()), opening.start);
        }
    }

    /// FEN lists and PDN games both read; the initial position is the normal start.
    #[test]
    fn files_of_fen_and_pdn() {
        let fens = "# two openings\nW:W31-50:B1-20\nB:W28,31,33-50:B1-20 ; a comment\n";
        let openings = Opening::parse(fens, false).unwrap();
        assert_eq!(openings[0], Opening::initial());
        assert_eq!(openings[1].label, openings[1].start.unwrap().to_fen());
        let pdn = "[Event \"x\"]\n1. 32-28 18-23 *\n\n[Event \"y\"]\n1. 33-29 *\n";
        let openings = Opening::parse(pdn, true).unwrap();
        assert_eq!(openings[0].label, "32-28,18-23");
        assert_eq!(openings[1].label, "33-29");
        assert!(Opening::parse("", false).is_err());
        let error = Opening::parse("W:W31-50:B1-20\nW:W51\n", false).unwrap_err();
        assert!(error.to_string().contains("line 2"), "{error}");
        assert_eq!(
            Opening::read(pdn).unwrap(),
            Opening::parse(pdn, true).unwrap()
        );
        assert_eq!(
            Opening::read("\n1. 32-28 19-23 *").unwrap(),
            Opening::parse("1. 32-28 19-23 *", true).unwrap()
        );
        assert_eq!(
            Opening::read(fens).unwrap(),
            Opening::parse(fens, false).unwrap()
        );
    }

    /// A source is told by its word and loads its openings: the ballots shuffled by a seed
    /// or in order, the start, a position, a file; an unreadable or invalid file says which.
    #[test]
    fn sources_load_their_openings() {
        let ballots = |seed| {
            "ballots"
                .parse::<OpeningSource>()
                .unwrap()
                .load(seed)
                .unwrap()
        };
        assert_eq!(ballots(None), Opening::ballots());
        assert_ne!(ballots(Some(1)), Opening::ballots());
        assert_eq!(ballots(Some(1)), ballots(Some(1)));
        assert_eq!(ballots(Some(1)).len(), Opening::ballots().len());
        let start = "start".parse::<OpeningSource>().unwrap();
        assert_eq!(start.load(Some(1)).unwrap(), [Opening::initial()]);
        let position = Position::from_fen("W:W28,40:B23,5").unwrap();
        let fixed = OpeningSource::Position(position).load(None).unwrap();
        assert_eq!(fixed[0].start, Some(position));

        let dir = std::env::temp_dir().join(format!("damx-openings-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("openings.txt");
        std::fs::write(&file, "W:W28,40:B23,5\n").unwrap();
        let source: OpeningSource = file.to_str().unwrap().parse().unwrap();
        assert_eq!(source.load(None).unwrap(), fixed);
        std::fs::write(&file, "W:W51\n").unwrap();
        let error = source.load(None).unwrap_err();
        assert!(
            matches!(error, LoadOpeningsError::Invalid { .. }),
            "{error}"
        );
        assert!(
            error.to_string().starts_with(file.to_str().unwrap()),
            "{error}"
        );
        let missing = OpeningSource::File(dir.join("missing.txt"));
        let error = missing.load(None).unwrap_err();
        assert!(matches!(error, LoadOpeningsError::Read { .. }), "{error}");
        assert_eq!(
            error.to_string(),
            format!("cannot read {}", dir.join("missing.txt").display())
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}

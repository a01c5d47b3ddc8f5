//! Openings: the start of each pair of games.
//!
//! - [`Opening::ballots`]: the built-in balanced 2- and 3-move ballots of
//!   [`damx_engine::openings`], labelled by their moves (`32-28,18-23,37-32`).
//! - [`Opening::parse`]: a file of FEN lines (one position a line, `#` comments; the engine's
//!   ballot file reads as one) or a PDN file (each game's position after its moves, labelled
//!   by the moves when the game starts normally, else by the FEN of that position).
//! - [`Opening::read`]: either file, told apart by its content.
//! - [`Opening::initial`]: the normal start, labelled `start`, sent as a GAMEREQ of type `A`.
//!
//! A label is one word (no blanks), so that it fits the event stream.

use std::fmt;

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
}

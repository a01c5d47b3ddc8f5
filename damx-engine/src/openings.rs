//! Balanced opening ballots: positions after the first two or three moves (plies) from the
//! start, to give engine matches and tournaments varied games.
//!
//! The list is derived by `cargo xtask ballots`: every sequence of two and three plies from the
//! start position is searched by this engine at a moderate depth, and the positions whose
//! score stays close to equal are kept (one per position when sequences transpose). It lives
//! in `data/ballots.txt`, one FEN a line with the moves as a `#` comment, and is embedded in
//! the crate. A match plays each ballot twice with colours swapped, so that a ballot's small
//! imbalance cancels out.
//!
//! ```
//! let ballots = damx_engine::openings::ballots();
//! assert!(ballots.len() > 100);
//! let first = &ballots[0];
//! assert!(first.position.has_legal_move());
//! assert!(first.moves.len() == 2 || first.moves.len() == 3);
//! ```

use std::sync::OnceLock;

use damx_rules::{Game, Move, Position};

/// The ballot file as embedded: `FEN # move move [move]` a line.
pub const BALLOTS_TEXT: &str = include_str!("../data/ballots.txt");

/// One opening ballot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ballot {
    /// The position to start from.
    pub position: Position,
    /// The moves from the start position that lead to it.
    pub moves: Vec<Move>,
}

impl Ballot {
    /// A game from the start position with the ballot's moves played (so that a record of the
    /// game shows the opening moves).
    pub fn game(&self) -> Game {
        let mut game = Game::default();
        for mv in &self.moves {
            game.play(*mv);
        }
        game
    }

    /// The moves in notation, separated by spaces.
    pub fn moves_text(&self) -> String {
        Position::initial().line_texts(&self.moves).join(" ")
    }
}

/// The built-in ballots, in file order.
pub fn ballots() -> &'static [Ballot] {
    static BALLOTS: OnceLock<Vec<Ballot>> = OnceLock::new();
    BALLOTS.get_or_init(|| parse_ballots(BALLOTS_TEXT).unwrap_or_default())
}

/// A ballot line that does not hold together.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BallotError {
    /// The 1-based line.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for BallotError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ballot line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for BallotError {}

/// Reads ballots: `FEN # moves` a line, blank lines and lines starting with `#` skipped. The
/// moves must lead from the start position to the FEN.
pub fn parse_ballots(text: &str) -> Result<Vec<Ballot>, BallotError> {
    let mut ballots = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let error = |message: String| BallotError {
            line: index + 1,
            message,
        };
        let (fen, moves_text) = line
            .split_once('#')
            .ok_or_else(|| error("expected `FEN # moves`".into()))?;
        let position: Position = fen
            .trim()
            .parse()
            .map_err(|e| error(format!("bad FEN: {e}")))?;
        let mut game = Game::default();
        let mut moves = Vec::new();
        for text in moves_text.split_whitespace() {
            let mv = game
                .position()
                .parse_move(text)
                .map_err(|e| error(format!("move {text}: {e}")))?;
            game.play(mv);
            moves.push(mv);
        }
        if *game.position() != position {
            return Err(error(format!(
                "the moves lead to {}, not to the FEN",
                game.position()
            )));
        }
        ballots.push(Ballot { position, moves });
    }
    Ok(ballots)
}

/// Writes ballots in the file format.
pub fn write_ballots(ballots: &[Ballot]) -> String {
    ballots
        .iter()
        .map(|ballot| format!("{} # {}\n", ballot.position.to_fen(), ballot.moves_text()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The embedded file reads without error, has no duplicate positions and both 2- and
    /// 3-ply ballots.
    #[test]
    fn embedded_ballots_are_valid() {
        let ballots = parse_ballots(BALLOTS_TEXT).unwrap();
        assert_eq!(ballots.len(), super::ballots().len());
        let mut positions: Vec<_> = ballots.iter().map(|b| b.position.to_fen()).collect();
        positions.sort();
        positions.dedup();
        assert_eq!(positions.len(), ballots.len());
        assert!(ballots.iter().any(|b| b.moves.len() == 2));
        assert!(ballots.iter().any(|b| b.moves.len() == 3));
    }

    /// Writing and reading gives the same ballots; a line whose moves do not reach its FEN is
    /// refused.
    #[test]
    fn round_trip_and_mismatch() {
        let ballots = ballots()[..5].to_vec();
        assert_eq!(parse_ballots(&write_ballots(&ballots)), Ok(ballots));
        let wrong = "W:W31-50:B1-20 # 32-28 19-23\n";
        assert_eq!(parse_ballots(wrong).unwrap_err().line, 1);
    }
}

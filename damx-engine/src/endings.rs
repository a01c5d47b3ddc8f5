//! Won endings the engine must convert: a test set, and self-play from each position by the
//! rules.
//!
//! Every position is a win for the side named (the stronger side), with the side to move of
//! its FEN.
//! [`convert`] lets the engine play both sides from the position until the rules end the game
//! (a win, or a draw by the 25-, 16- or 5-move rule or by repetition); the ending counts as
//! converted only if the stronger side wins. `cargo xtask endings` runs the whole set at a
//! chosen time a move; a quick subset runs in `cargo test`.
//!
//! ```
//! use damx_engine::endings::{WON_ENDINGS, convert};
//! use damx_engine::{EngineOptions, Limits};
//!
//! let ending = &WON_ENDINGS[0];
//! let options = EngineOptions { hash_mb: 4, ..EngineOptions::default() };
//! let record = convert(ending, &options, &Limits::nodes(2_000)).expect("a valid position");
//! assert!(record.plies > 0);
//! ```

use std::fmt;

use damx_rules::{Color, FenError, Game, Outcome, Position};

use crate::engine::EngineOptions;
use crate::gauntlet::{SearchPlayer, play_game};
use crate::limits::Limits;

/// A won position and which side wins it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WonEnding {
    /// A short description.
    pub name: &'static str,
    /// The position, as FEN.
    pub fen: &'static str,
    /// The side that wins.
    pub winner: Color,
}

const fn white(name: &'static str, fen: &'static str) -> WonEnding {
    WonEnding {
        name,
        fen,
        winner: Color::White,
    }
}

const fn black(name: &'static str, fen: &'static str) -> WonEnding {
    WonEnding {
        name,
        fen,
        winner: Color::Black,
    }
}

/// The test set. Kings against a lone king are won with four kings anywhere. With three they
/// are a draw in general on this board, even when the stronger side holds the long diagonal
/// 46-5 and the lone king is off it (`W:WK46,K47,K48:BK3` is a draw by the databases, and Scan
/// 2.0's bitbases agree): only positions with a trap are won, and these three are such wins,
/// among the longest to convert (8 to 11 plies to conversion) of those where the stronger
/// side holds the diagonal, which the 16-move count leaves room for. With men, the men promote first or one
/// is given up. Four kings against a king and a man is the ending that damx once failed to win
/// against another program.
///
/// Every entry is a win for the side named with the side to move of its FEN: by the 2–5-piece
/// databases, and for the six-piece entries by a sacrifice or a capture into them within three
/// plies (checked by hand: `every_ending_is_won_by_the_databases`).
pub const WON_ENDINGS: &[WonEnding] = &[
    white(
        "4 kings v king, off the long diagonal",
        "W:WK47,K48,K49,K50:BK3",
    ),
    white(
        "4 kings v king, on the long diagonal",
        "W:WK47,K48,K49,K50:BK14",
    ),
    black("4 kings v king, in the corner 46", "B:WK46:BK1,K2,K3,K4"),
    white(
        "4 kings v king, lone king to move",
        "B:WK36,K42,K45,K49:BK5",
    ),
    white(
        "5 kings v king on the long diagonal",
        "W:WK47,K48,K49,K50,K36:BK19",
    ),
    white(
        "3 kings holding the diagonal v king, a trap",
        "W:WK9,K10,K32:BK26",
    ),
    white(
        "3 kings holding the diagonal v king, lone king to move",
        "B:WK9,K14,K32:BK3",
    ),
    black(
        "3 kings holding the diagonal v king, black wins",
        "B:WK48:BK10,K20,K32",
    ),
    white("3 kings and a man v king", "W:WK47,K48,K49,40:BK3"),
    white("2 kings and 2 men v king", "W:WK46,K50,39,40:BK3"),
    white("king and 3 men v king", "W:WK50,37,38,39:BK3"),
    white("4 kings v king and man", "W:WK47,K48,K49,K50:BK3,14"),
    black(
        "4 kings v king and man, black wins",
        "W:WK26,45:BK1,K2,K3,K4",
    ),
    white("3 men v man", "W:W36,37,38:B2"),
    white("3 kings and 2 men v king", "W:WK47,K48,K49,36,37:BK3"),
];

/// How an ending was played out.
#[derive(Clone, Debug)]
pub struct Conversion {
    /// Whether the winning side won.
    pub converted: bool,
    /// Plies played.
    pub plies: usize,
    /// The rules' verdict, if the game ended by the rules within the ply limit.
    pub outcome: Option<Outcome>,
    /// The game played.
    pub game: Game,
}

impl fmt::Display for Conversion {
    /// `won in 23 plies`, `draw (16-move rule) after 32 plies`, ...
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.outcome {
            Some(_) if self.converted => write!(f, "won in {} plies", self.plies),
            Some(Outcome::Draw(reason)) => write!(f, "draw ({reason}) after {} plies", self.plies),
            Some(Outcome::Win { .. }) => write!(f, "lost after {} plies", self.plies),
            None => write!(f, "unfinished after {} plies", self.plies),
        }
    }
}

/// The most plies a conversion may take: the 25-move rule ends any king ending before, and a
/// man move resets it at most 9 times for each man.
pub const MAX_CONVERSION_PLIES: usize = 600;

/// Plays `ending` out with the engine on both sides, each move within `limits`.
pub fn convert(
    ending: &WonEnding,
    options: &EngineOptions,
    limits: &Limits,
) -> Result<Conversion, FenError> {
    let position: Position = ending.fen.parse()?;
    let mut white = SearchPlayer::new(options.clone(), limits.clone());
    let mut black = SearchPlayer::new(options.clone(), limits.clone());
    let record = play_game(
        &mut white,
        &mut black,
        &Game::new(position),
        MAX_CONVERSION_PLIES,
    );
    Ok(Conversion {
        converted: record.winner() == Some(ending.winner),
        plies: record.game.ply(),
        outcome: record.outcome,
        game: record.game,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::egdb::{self, Egdb, Wdl};

    /// Every position is legal, the winner has more material, neither side can capture (the
    /// ending is not decided by one capture), and the game is not already over.
    #[test]
    fn the_set_is_sound() {
        for ending in WON_ENDINGS {
            let position: Position = ending.fen.parse().expect(ending.name);
            let game = Game::new(position);
            assert_eq!(game.outcome(), None, "{}", ending.name);
            let worth = |color| position.men(color).count() + 3 * position.kings(color).count();
            assert!(
                worth(ending.winner) > worth(!ending.winner),
                "{}",
                ending.name
            );
            let can_take = [Color::White, Color::Black]
                .map(|side| position.with_side_to_move(side).has_capture());
            assert_eq!(can_take, [false, false], "{}", ending.name);
        }
    }

    /// Whether `winner` wins `position` with best play: by the databases where they answer,
    /// else by a search of at most `plies` plies whose leaves they answer.
    fn proven_win(egdb: &Egdb, position: &Position, winner: Color, plies: u32) -> bool {
        if let Some(value) = egdb.value(position) {
            let wanted = if position.side_to_move() == winner {
                Wdl::Win
            } else {
                Wdl::Loss
            };
            return value.wdl == wanted;
        }
        if plies == 0 {
            return false;
        }
        let moves = position.legal_moves();
        let proven = |mv| proven_win(egdb, &position.play(mv), winner, plies - 1);
        if position.side_to_move() == winner {
            moves.iter().any(proven)
        } else {
            // A loser without a move has lost: `all` of nothing holds.
            moves.iter().all(proven)
        }
    }

    /// Every entry is won for the side named, by the 2–5-piece databases; the six-piece
    /// entries convert into them within three plies. By hand, on a directory where
    /// `damx egdb build --pieces 5` has run:
    /// `DAMX_EGDB_TEST_DIR=DIR cargo test -p damx-engine --release endings -- --ignored`
    /// (without the variable, the directory of `damx egdb`).
    #[test]
    #[ignore = "by hand: needs the 2-5-piece databases"]
    fn every_ending_is_won_by_the_databases() {
        let dir = std::env::var_os("DAMX_EGDB_TEST_DIR")
            .map(std::path::PathBuf::from)
            .or_else(egdb::default_dir)
            .expect("a database directory");
        let egdb = Egdb::open(&dir).unwrap();
        assert!(
            egdb.stats().complete_pieces >= 5,
            "{} does not hold every slice of 2-5 pieces",
            dir.display()
        );
        let wrong: Vec<&str> = WON_ENDINGS
            .iter()
            .filter(|ending| {
                let position: Position = ending.fen.parse().unwrap();
                !proven_win(&egdb, &position, ending.winner, 3)
            })
            .map(|ending| ending.name)
            .collect();
        assert!(wrong.is_empty(), "not won: {wrong:?}");
    }

    /// The clearest wins are converted at a small node count a move.
    #[test]
    fn kings_against_a_lone_king_are_won() {
        let options = EngineOptions {
            hash_mb: 4,
            ..EngineOptions::default()
        };
        for ending in &WON_ENDINGS[..2] {
            let record = convert(ending, &options, &Limits::nodes(30_000)).unwrap();
            assert!(record.converted, "{}: {record}", ending.name);
        }
    }
}

//! Adjudication: deciding a game that the programs did not finish.
//!
//! DXP carries no score, so two programs cannot agree on one. The referee decides by its own
//! means, as configured, and records how:
//!
//! - [`AdjudicationMethod::Engine`]: the built-in engine searches the position to a small
//!   depth (one thread, so the same position always gets the same answer). A forced win wins;
//!   a score of at least `threshold` centi-men for one side wins for that side; anything else,
//!   or a lone king against at most three pieces (the endgame rules draw those unless there is
//!   a forced win), is a draw.
//! - [`AdjudicationMethod::Material`]: the endgame rules and the material count. A lone king
//!   against at most three pieces is a draw; otherwise the side ahead by at least `margin`
//!   (a man counts 1, a king 3) wins; else a draw.
//! - [`AdjudicationMethod::Draw`]: a draw.

use damx_engine::{Engine, EngineOptions, Limits, StopSignal};
use damx_rules::{Color, Game, GameResult, Piece, Position};

use super::win;

/// How a game is decided when it reaches the cap or a program's claim needs checking.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AdjudicationMethod {
    /// The built-in engine's search.
    Engine {
        /// The depth of the search, in plies.
        depth: u32,
        /// The score, in centi-men (a man is 100), from which the side ahead is given the win.
        threshold: i32,
    },
    /// The endgame rules and the material count.
    Material {
        /// The material lead that wins (a man counts 1, a king 3).
        margin: u32,
    },
    /// Every adjudicated game is a draw.
    Draw,
}

/// The referee's move cap and its adjudication method.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Adjudication {
    /// Adjudicate once each side has made this many moves (`None`: never; the draw rules still
    /// end every game in time).
    pub max_moves: Option<u16>,
    /// How.
    pub method: AdjudicationMethod,
}

impl Default for Adjudication {
    /// A cap of 150 moves each, the engine at depth 8 with a threshold of 1.5 men.
    fn default() -> Adjudication {
        Adjudication {
            max_moves: Some(150),
            method: AdjudicationMethod::Engine {
                depth: 8,
                threshold: 150,
            },
        }
    }
}

/// Carries out an [`AdjudicationMethod`]; keeps the engine between adjudications.
pub struct Judge {
    method: AdjudicationMethod,
    engine: Option<Engine>,
}

impl std::fmt::Debug for Judge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Judge")
            .field("method", &self.method)
            .finish_non_exhaustive()
    }
}

impl Judge {
    /// A judge for `method` (the engine is made at the first search).
    pub fn new(method: AdjudicationMethod) -> Judge {
        Judge {
            method,
            engine: None,
        }
    }

    /// The result of the game at its current position, and how it was found, in words.
    pub fn judge(&mut self, game: &Game) -> (GameResult, String) {
        let position = game.position();
        let lone_king = game.endgame_count().is_some();
        match self.method {
            AdjudicationMethod::Draw => (GameResult::Draw, "adjudicated a draw".to_owned()),
            AdjudicationMethod::Material { margin } => {
                let white = material(position, Color::White);
                let black = material(position, Color::Black);
                let figures = format!("material {white}-{black} (a king counts 3)");
                if lone_king {
                    (GameResult::Draw, format!("{figures}, a lone king: a draw"))
                } else if white >= black + margin {
                    (GameResult::WhiteWins, format!("{figures}: white wins"))
                } else if black >= white + margin {
                    (GameResult::BlackWins, format!("{figures}: black wins"))
                } else {
                    (GameResult::Draw, format!("{figures}: a draw"))
                }
            }
            AdjudicationMethod::Engine { depth, threshold } => {
                let engine = self.engine.get_or_insert_with(|| {
                    Engine::new(EngineOptions {
                        threads: 1,
                        hash_mb: 8,
                        ..EngineOptions::default()
                    })
                });
                engine.new_game();
                let result =
                    engine.search(game, &Limits::depth(depth), &StopSignal::new(), &mut |_| {});
                let side = position.side_to_move();
                let score = result.score;
                let figures = format!("engine depth {}: {score} for {side}", result.depth);
                if score.is_win() {
                    (win(side), format!("{figures}: {side} wins"))
                } else if score.is_loss() {
                    (win(!side), format!("{figures}: {} wins", !side))
                } else if lone_king {
                    (GameResult::Draw, format!("{figures}, a lone king: a draw"))
                } else if score.value() >= threshold {
                    (win(side), format!("{figures}: {side} wins"))
                } else if score.value() <= -threshold {
                    (win(!side), format!("{figures}: {} wins", !side))
                } else {
                    (GameResult::Draw, format!("{figures}: a draw"))
                }
            }
        }
    }
}

/// The material of `color`: a man 1, a king 3.
fn material(position: &Position, color: Color) -> u32 {
    position.pieces_of(color, Piece::Man).count()
        + 3 * position.pieces_of(color, Piece::King).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(fen: &str) -> Game {
        Game::new(fen.parse().unwrap())
    }

    /// The material count gives the side ahead by the margin the win, and a lone king a draw.
    #[test]
    fn material_adjudication() {
        let mut judge = Judge::new(AdjudicationMethod::Material { margin: 2 });
        let (result, detail) = judge.judge(&game("W:W31,32,33,34:B1,2"));
        assert_eq!(result, GameResult::WhiteWins, "{detail}");
        assert_eq!(detail, "material 4-2 (a king counts 3): white wins");
        assert_eq!(
            judge.judge(&game("W:W31,32,33:B1,2")).0,
            GameResult::Draw,
            "one man ahead is not enough"
        );
        assert_eq!(
            judge.judge(&game("B:WK46:B1,2,3,4,5,6")).0,
            GameResult::BlackWins
        );
        // Three kings against one: the 16-move rule draws it.
        let (result, detail) = judge.judge(&game("W:WK31,K32,K33:BK1"));
        assert_eq!(result, GameResult::Draw, "{detail}");
    }

    /// The engine gives a clearly won position to the side ahead and an even one a draw.
    #[test]
    fn engine_adjudication() {
        let mut judge = Judge::new(AdjudicationMethod::Engine {
            depth: 4,
            threshold: 150,
        });
        let (result, detail) = judge.judge(&game("B:W31,32,33,34,35,36,37:B1,2"));
        assert_eq!(result, GameResult::WhiteWins, "{detail}");
        assert!(detail.starts_with("engine depth 4: "), "{detail}");
        let (result, detail) = judge.judge(&Game::default());
        assert_eq!(result, GameResult::Draw, "{detail}");
    }

    /// The draw method draws everything.
    #[test]
    fn draw_adjudication() {
        let mut judge = Judge::new(AdjudicationMethod::Draw);
        assert_eq!(judge.judge(&game("W:W31,32,33,34:B1")).0, GameResult::Draw);
    }
}

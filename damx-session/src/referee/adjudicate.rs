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
//! - [`AdjudicationMethod::Egdb`]: the endgame databases. A game is decided as soon as it
//!   reaches a quiet position (no capture pending) within them ([`Judge::database`], reason
//!   `egdb`); at the move cap and for claims, a position within them gets their value and any
//!   other the engine's search, which probes them too.
//!
//! The databases store the value without the draw rules' counters, so a database win is only
//! taken where no counter can intervene: in a counted ending (three or two pieces against a
//! lone king) and in kings-only positions, only when the winner has kings alone, the loser one
//! piece, and the stored distance to conversion (the capture that ends the game) fits in the
//! plies the counts leave. Otherwise the game plays on; a database draw is always a draw.

use damx_engine::egdb::{SharedEgdb, Value, Wdl};
use damx_engine::{Engine, EngineOptions, Limits, StopSignal};
use damx_rules::{
    Color, DrawReason, ENDGAME5_DRAW_PLIES, ENDGAME16_DRAW_PLIES, Game, GameResult,
    KING_MOVES_DRAW_PLIES, Piece, Position,
};

use super::win;

/// How a game is decided when it reaches the cap or a program's claim needs checking.
#[derive(Clone, Debug, PartialEq, Eq)]
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
    /// The endgame databases, as soon as a game reaches a quiet position within them; outside
    /// them, at the cap and for claims, the engine's search with them.
    Egdb {
        /// The databases.
        egdb: SharedEgdb,
        /// The depth of the search outside the databases, in plies.
        depth: u32,
        /// The score, in centi-men, from which the search gives the side ahead the win.
        threshold: i32,
    },
}

/// The kinds of [`AdjudicationMethod`], without their numbers: what a person chooses
/// (`--adjudicate`; the words are [`Words`](crate::words::Words)').
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AdjudicationKind {
    /// [`AdjudicationMethod::Engine`].
    Engine,
    /// [`AdjudicationMethod::Material`].
    Material,
    /// [`AdjudicationMethod::Draw`].
    Draw,
    /// [`AdjudicationMethod::Egdb`].
    Egdb,
}

impl AdjudicationMethod {
    /// The method of `kind` with the numbers a person gives: the search's depth and the score
    /// that wins (centi-men, at most 100 men), the material margin, and for the databases the
    /// `egdb` that loads them (called only then).
    ///
    /// # Errors
    /// What `egdb` fails with.
    pub fn of_kind<E>(
        kind: AdjudicationKind,
        depth: u32,
        score: u32,
        margin: u32,
        egdb: impl FnOnce() -> Result<SharedEgdb, E>,
    ) -> Result<AdjudicationMethod, E> {
        let threshold = score.min(10_000) as i32;
        Ok(match kind {
            AdjudicationKind::Engine => AdjudicationMethod::Engine { depth, threshold },
            AdjudicationKind::Material => AdjudicationMethod::Material { margin },
            AdjudicationKind::Draw => AdjudicationMethod::Draw,
            AdjudicationKind::Egdb => AdjudicationMethod::Egdb {
                egdb: egdb()?,
                depth,
                threshold,
            },
        })
    }

    /// Its kind.
    pub fn kind(&self) -> AdjudicationKind {
        match self {
            AdjudicationMethod::Engine { .. } => AdjudicationKind::Engine,
            AdjudicationMethod::Material { .. } => AdjudicationKind::Material,
            AdjudicationMethod::Draw => AdjudicationKind::Draw,
            AdjudicationMethod::Egdb { .. } => AdjudicationKind::Egdb,
        }
    }
}

/// The referee's move cap and its adjudication method.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Adjudication {
    /// Adjudicate once each side has made this many moves (`None`: never; the draw rules still
    /// end every game in time).
    pub max_moves: Option<u16>,
    /// How.
    pub method: AdjudicationMethod,
}

impl Adjudication {
    /// The default cap: 150 moves each.
    pub const DEFAULT_MAX_MOVES: u16 = 150;
    /// The default depth of the engine's adjudication search.
    pub const DEFAULT_DEPTH: u32 = 8;
    /// The default score (centi-men) from which the engine's search gives the side ahead the
    /// win: 1.5 men.
    pub const DEFAULT_THRESHOLD: i32 = 150;
}

impl Default for Adjudication {
    /// A cap of 150 moves each, the engine at depth 8 with a threshold of 1.5 men.
    fn default() -> Adjudication {
        Adjudication {
            max_moves: Some(Adjudication::DEFAULT_MAX_MOVES),
            method: AdjudicationMethod::Engine {
                depth: Adjudication::DEFAULT_DEPTH,
                threshold: Adjudication::DEFAULT_THRESHOLD,
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
        if let AdjudicationMethod::Egdb { egdb, .. } = &self.method
            && let Some(value) = egdb.value(position)
        {
            let side = position.side_to_move();
            let result = match value.wdl {
                Wdl::Win => win(side),
                Wdl::Loss => win(!side),
                Wdl::Draw => GameResult::Draw,
            };
            return (result, database_detail(side, value, result));
        }
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
            AdjudicationMethod::Engine { depth, threshold }
            | AdjudicationMethod::Egdb {
                depth, threshold, ..
            } => {
                let egdb = match &self.method {
                    AdjudicationMethod::Egdb { egdb, .. } => Some(egdb.clone()),
                    _ => None,
                };
                let engine = self.engine.get_or_insert_with(|| {
                    Engine::new(EngineOptions {
                        threads: 1,
                        hash_mb: 8,
                        egdb,
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

impl Judge {
    /// With [`AdjudicationMethod::Egdb`], the result of a game whose current position is quiet
    /// and within the databases, with the value in words; `None` otherwise: the game goes on.
    /// The databases leave out the draw rules' counters, so a win in a counted ending or with
    /// kings only is taken only where the winner has kings alone, the loser one piece, and the
    /// distance to that capture fits in the plies the counts leave.
    pub fn database(&self, game: &Game) -> Option<(GameResult, String)> {
        let AdjudicationMethod::Egdb { egdb, .. } = &self.method else {
            return None;
        };
        let position = game.position();
        let value = egdb.probe_value(position)?;
        let side = position.side_to_move();
        let winner = match value.wdl {
            Wdl::Draw => {
                return Some((
                    GameResult::Draw,
                    database_detail(side, value, GameResult::Draw),
                ));
            }
            Wdl::Win => side,
            Wdl::Loss => !side,
        };
        let counted = game.endgame_count();
        let kings_only = position.pieces_of(Color::White, Piece::Man).is_empty()
            && position.pieces_of(Color::Black, Piece::Man).is_empty();
        if counted.is_some() || kings_only {
            // The conversion must end the game (the winner captures the last piece with kings
            // alone, no promotion in between) before any count runs out.
            let plies = value.plies? as usize;
            let ends_game = position.pieces_of(winner, Piece::Man).is_empty()
                && position.pieces(!winner).count() == 1;
            let endgame_left = counted.map_or(usize::MAX, |(rule, done)| {
                let limit = match rule {
                    DrawReason::Endgame5 => ENDGAME5_DRAW_PLIES,
                    _ => ENDGAME16_DRAW_PLIES,
                };
                limit.saturating_sub(done)
            });
            let kings_left = if kings_only {
                KING_MOVES_DRAW_PLIES.saturating_sub(game.reversible_plies())
            } else {
                usize::MAX
            };
            if !ends_game || plies > endgame_left.min(kings_left) {
                return None;
            }
        }
        let result = win(winner);
        Some((result, database_detail(side, value, result)))
    }
}

/// The database value in words, from the side to move, and the result it gives.
fn database_detail(side: Color, value: Value, result: GameResult) -> String {
    let verdict = match result {
        GameResult::WhiteWins => "white wins",
        GameResult::BlackWins => "black wins",
        _ => "a draw",
    };
    format!("endgame database: {value} for {side}: {verdict}")
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

    /// The 2–3-piece databases, built once into a temporary directory for these tests.
    fn databases() -> SharedEgdb {
        use damx_engine::egdb::{BuildOptions, Egdb, build};
        static DIR: std::sync::OnceLock<SharedEgdb> = std::sync::OnceLock::new();
        DIR.get_or_init(|| {
            let dir = std::env::temp_dir()
                .join(format!("damx-session-adjudicate-{}", std::process::id()));
            let options = BuildOptions {
                dir: dir.clone(),
                pieces: 3,
                memory_limit: None,
            };
            build(&options, &|_| {}).expect("the 2-3-piece build succeeds");
            let egdb = Egdb::open(&dir).expect("the databases open");
            assert!(egdb.problems().is_empty(), "{:?}", egdb.problems());
            // The databases are read into memory: the files are no longer needed.
            let _ = std::fs::remove_dir_all(&dir);
            SharedEgdb::new(egdb)
        })
        .clone()
    }

    fn egdb_judge() -> Judge {
        Judge::new(AdjudicationMethod::Egdb {
            egdb: databases(),
            depth: 4,
            threshold: 150,
        })
    }

    /// Quiet positions within the databases are decided by their value; the counts of the
    /// draw rules hold back a win that does not end the game by capture.
    #[test]
    fn database_adjudication_of_quiet_positions() {
        let judge = egdb_judge();
        let decided = |fen: &str| judge.database(&game(fen));
        // Two men against one, no count: a win.
        let (result, detail) = decided("W:W6,7:B45").expect("in the databases");
        assert_eq!(result, GameResult::WhiteWins, "{detail}");
        assert_eq!(
            detail,
            "endgame database: win (1 ply to conversion) for white: white wins"
        );
        // The same from the loser's side.
        let (result, detail) = decided("B:W6,7:B35").expect("in the databases");
        assert_eq!(result, GameResult::WhiteWins, "{detail}");
        // Two kings against one, in general a draw.
        let (result, detail) = decided("B:WK1,K2:BK50").expect("in the databases");
        assert_eq!(result, GameResult::Draw, "{detail}");
        assert_eq!(detail, "endgame database: draw for black: a draw");
        // Two kings that catch the lone king in 3 plies, well within the 5-move count.
        let (result, detail) = decided("W:WK46,K47:BK5").expect("within the count");
        assert_eq!(result, GameResult::WhiteWins, "{detail}");
        // A king and a man against a lone king: the conversion is a promotion or a capture
        // that need not end the game before the count does, so the game plays on.
        assert_eq!(decided("W:W33,K46:BK5"), None);
        // A capture pending, too many pieces, or another method: not decided.
        assert_eq!(decided("W:W28,40:B23,5"), None);
        assert_eq!(decided("W:W28,40:B5,9,10"), None);
        assert_eq!(
            Judge::new(AdjudicationMethod::Draw).database(&game("W:W6,7:B45")),
            None
        );
    }

    /// At the cap the databases value any position within them, captures resolved; outside
    /// them the engine searches.
    #[test]
    fn database_adjudication_at_the_cap() {
        let mut judge = egdb_judge();
        let (result, detail) = judge.judge(&game("W:W28,40:B23,5"));
        assert_eq!(result, GameResult::WhiteWins, "{detail}");
        assert!(detail.starts_with("endgame database: win"), "{detail}");
        let (result, detail) = judge.judge(&game("B:W31,32,33,34,35,36,37:B1,2"));
        assert_eq!(result, GameResult::WhiteWins, "{detail}");
        assert!(detail.starts_with("engine depth 4: "), "{detail}");
    }

    /// The draw method draws everything.
    #[test]
    fn draw_adjudication() {
        let mut judge = Judge::new(AdjudicationMethod::Draw);
        assert_eq!(judge.judge(&game("W:W31,32,33,34:B1")).0, GameResult::Draw);
    }

    /// A kind and a person's numbers make the method (the score capped at 100 men); the
    /// databases are loaded only for their own kind, and a failure to load them is the
    /// method's.
    #[test]
    fn methods_are_made_of_a_kind_and_numbers() {
        let no_egdb = || -> Result<SharedEgdb, &str> { Err("no databases") };
        for (kind, method) in [
            (
                AdjudicationKind::Engine,
                AdjudicationMethod::Engine {
                    depth: 6,
                    threshold: 10_000,
                },
            ),
            (
                AdjudicationKind::Material,
                AdjudicationMethod::Material { margin: 2 },
            ),
            (AdjudicationKind::Draw, AdjudicationMethod::Draw),
        ] {
            let made = AdjudicationMethod::of_kind(kind, 6, 20_000, 2, no_egdb);
            assert_eq!(made, Ok(method.clone()));
            assert_eq!(method.kind(), kind);
        }
        let egdb = AdjudicationMethod::of_kind(AdjudicationKind::Egdb, 6, 150, 2, no_egdb);
        assert_eq!(egdb, Err("no databases"));
        let made = AdjudicationMethod::of_kind(AdjudicationKind::Egdb, 6, 150, 2, || {
            Ok::<_, ()>(databases())
        });
        assert_eq!(made.map(|method| method.kind()), Ok(AdjudicationKind::Egdb));
    }
}

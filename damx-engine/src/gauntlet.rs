//! Engine matches in-process: players, one game between two of them, and the Elo estimate of a
//! match score.
//!
//! `cargo xtask strength` builds its matches from these parts; the tuning self-play uses
//! [`play_game`] too.
//!
//! ```
//! use damx_engine::gauntlet::{MaterialPlayer, RandomPlayer, play_game};
//! use damx_rules::Game;
//!
//! let mut white = MaterialPlayer::new(1);
//! let mut black = RandomPlayer::new(2);
//! let record = play_game(&mut white, &mut black, &Game::default(), 400);
//! assert!(record.game.ply() > 0);
//! ```

use std::fmt;
use std::time::{Duration, Instant};

use damx_rules::{Color, Game, Move, Outcome};

use crate::engine::{Engine, EngineOptions};
use crate::limits::{Clock, Limits, StopSignal};

/// Something that chooses moves.
pub trait Contender {
    /// Called before each game.
    fn new_game(&mut self) {}

    /// A legal move in the current position of `game`, which is not over. `clock` is the
    /// player's time left for the rest of the game when it plays on a clock.
    fn choose(&mut self, game: &Game, clock: Option<Duration>) -> Move;
}

/// The engine with fixed limits for every move.
#[derive(Debug)]
pub struct SearchPlayer {
    engine: Engine,
    limits: Limits,
    stop: StopSignal,
}

impl SearchPlayer {
    /// An engine made with `options`, searching every move within `limits` (and the game
    /// clock, when it plays on one).
    pub fn new(options: EngineOptions, limits: Limits) -> SearchPlayer {
        SearchPlayer {
            engine: Engine::new(options),
            limits,
            stop: StopSignal::new(),
        }
    }
}

impl Contender for SearchPlayer {
    fn new_game(&mut self) {
        self.engine.new_game();
    }

    fn choose(&mut self, game: &Game, clock: Option<Duration>) -> Move {
        let mut limits = self.limits.clone();
        if let Some(remaining) = clock {
            limits.clock = Some(Clock {
                remaining,
                moves_to_go: None,
            });
        }
        let result = self.engine.search(game, &limits, &self.stop, &mut |_| {});
        result
            .best_move
            .unwrap_or_else(|| game.position().legal_moves()[0])
    }
}

/// A small pseudo-random generator (splitmix64): reproducible games from a seed.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// Puts `items` in a random order (Fisher-Yates, last place first).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            items.swap(i, self.below(i + 1));
        }
    }
}

/// Plays a random legal move.
#[derive(Clone, Debug)]
pub struct RandomPlayer {
    rng: Rng,
}

impl RandomPlayer {
    /// A random mover with its own seed.
    pub fn new(seed: u64) -> RandomPlayer {
        RandomPlayer {
            rng: Rng::new(seed),
        }
    }
}

impl Contender for RandomPlayer {
    fn choose(&mut self, game: &Game, _clock: Option<Duration>) -> Move {
        let moves = game.position().legal_moves();
        moves[self.rng.below(moves.len())]
    }
}

/// Looks one ply ahead and takes the move that leaves the best material count (a king worth
/// three men), choosing at random among equals.
#[derive(Clone, Debug)]
pub struct MaterialPlayer {
    rng: Rng,
}

impl MaterialPlayer {
    /// A one-ply material player with its own seed.
    pub fn new(seed: u64) -> MaterialPlayer {
        MaterialPlayer {
            rng: Rng::new(seed),
        }
    }
}

impl Contender for MaterialPlayer {
    fn choose(&mut self, game: &Game, _clock: Option<Duration>) -> Move {
        let position = game.position();
        let me = position.side_to_move();
        let worth = |p: &damx_rules::Position, color: Color| {
            p.men(color).count() as i32 + 3 * p.kings(color).count() as i32
        };
        let moves = position.legal_moves();
        let scored: Vec<(i32, Move)> = moves
            .iter()
            .map(|mv| {
                let after = position.play(mv);
                (worth(&after, me) - worth(&after, !me), *mv)
            })
            .collect();
        let best = scored.iter().map(|(score, _)| *score).max().unwrap_or(0);
        let equals: Vec<Move> = scored
            .iter()
            .filter(|(score, _)| *score == best)
            .map(|(_, mv)| *mv)
            .collect();
        equals[self.rng.below(equals.len())]
    }
}

/// A finished game.
#[derive(Clone, Debug)]
pub struct GauntletGame {
    /// The game with all its moves (from the start it was given).
    pub game: Game,
    /// How it ended by the rules; `None` if it was stopped at the ply limit (scored a draw) or
    /// lost on time.
    pub outcome: Option<Outcome>,
    /// The side whose clock ran out, if one did (it lost).
    pub lost_on_time: Option<Color>,
    /// The clock time White and Black spent on their moves (zero for a player without a
    /// clock).
    pub time_used: [Duration; 2],
}

impl GauntletGame {
    /// The winner, if any.
    pub fn winner(&self) -> Option<Color> {
        match self.lost_on_time {
            Some(loser) => Some(!loser),
            None => self.outcome.and_then(|outcome| outcome.winner()),
        }
    }
}

/// Plays a game from the end of `start` without clocks (see [`play_timed_game`]).
pub fn play_game(
    white: &mut dyn Contender,
    black: &mut dyn Contender,
    start: &Game,
    max_plies: usize,
) -> GauntletGame {
    play_timed_game([(white, None), (black, None)], start, max_plies)
}

/// Plays a game from the end of `start` until the rules end it or `max_plies` more plies have
/// been played. `players` are White and Black, each with its time for the game if it plays on
/// a clock: the time a move takes is taken off, and a player whose time runs out loses. A
/// player's move that is not legal loses the game for it (counted as if it had no move).
pub fn play_timed_game(
    players: [(&mut dyn Contender, Option<Duration>); 2],
    start: &Game,
    max_plies: usize,
) -> GauntletGame {
    let [(white, white_time), (black, black_time)] = players;
    white.new_game();
    black.new_game();
    let mut clocks = [white_time, black_time];
    let mut time_used = [Duration::ZERO; 2];
    let mut game = start.clone();
    for _ in 0..max_plies {
        if let Some(outcome) = game.outcome() {
            return GauntletGame {
                game,
                outcome: Some(outcome),
                lost_on_time: None,
                time_used,
            };
        }
        let side = game.position().side_to_move();
        let (player, clock, used): (&mut dyn Contender, &mut Option<Duration>, &mut Duration) =
            match side {
                Color::White => (&mut *white, &mut clocks[0], &mut time_used[0]),
                Color::Black => (&mut *black, &mut clocks[1], &mut time_used[1]),
            };
        let started = Instant::now();
        let mv = player.choose(&game, *clock);
        if let Some(left) = clock {
            let spent = started.elapsed();
            *used += spent;
            match left.checked_sub(spent) {
                Some(rest) => *left = rest,
                None => {
                    return GauntletGame {
                        game,
                        outcome: None,
                        lost_on_time: Some(side),
                        time_used,
                    };
                }
            }
        }
        if game.try_play(mv).is_err() {
            return GauntletGame {
                game,
                outcome: Some(Outcome::Win {
                    winner: !side,
                    reason: damx_rules::WinReason::NoMoves,
                }),
                lost_on_time: None,
                time_used,
            };
        }
    }
    let outcome = game.outcome();
    GauntletGame {
        game,
        outcome,
        lost_on_time: None,
        time_used,
    }
}

/// Wins, draws and losses of one side of a match.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Games won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games lost.
    pub losses: u32,
}

impl Tally {
    /// Games played.
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// The score as a fraction: (wins + draws / 2) / games; `None` before any game.
    pub fn score(&self) -> Option<f64> {
        let games = self.games();
        (games > 0).then(|| (f64::from(self.wins) + f64::from(self.draws) / 2.0) / f64::from(games))
    }

    /// The Elo difference the score suggests, with its 95% margin.
    pub fn elo(&self) -> Option<EloEstimate> {
        let score = self.score()?;
        let n = f64::from(self.games());
        let variance = (f64::from(self.wins) * (1.0 - score).powi(2)
            + f64::from(self.draws) * (0.5 - score).powi(2)
            + f64::from(self.losses) * score.powi(2))
            / n;
        let error = (variance / n).sqrt();
        let elo = elo_of_score(score);
        if !elo.is_finite() {
            return Some(EloEstimate {
                elo,
                margin: f64::INFINITY,
            });
        }
        let low = elo_of_score(score - 1.96 * error);
        let high = elo_of_score(score + 1.96 * error);
        Some(EloEstimate {
            elo,
            margin: (high - low) / 2.0,
        })
    }

    /// The points one game earns a side, as DXP tournaments count them: 2 for a win
    /// (`Some(true)`), 1 for a draw (`None`), 0 for a loss (`Some(false)`).
    pub fn points_of(won: Option<bool>) -> u32 {
        match won {
            Some(true) => 2,
            None => 1,
            Some(false) => 0,
        }
    }

    /// The points of these games ([`Tally::points_of`] summed).
    pub fn points(&self) -> u32 {
        2 * self.wins + self.draws
    }

    /// Adds a game's result from this side's view.
    pub fn add(&mut self, won: Option<bool>) {
        match won {
            Some(true) => self.wins += 1,
            Some(false) => self.losses += 1,
            None => self.draws += 1,
        }
    }
}

impl fmt::Display for Tally {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "+{} ={} -{}", self.wins, self.draws, self.losses)?;
        if let (Some(score), Some(elo)) = (self.score(), self.elo()) {
            write!(f, " ({:.1}%), Elo {elo}", 100.0 * score)?;
        }
        Ok(())
    }
}

/// An Elo difference with its 95% error margin (either may be infinite for a score of 0 or
/// 100%).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EloEstimate {
    /// The estimate.
    pub elo: f64,
    /// Half the width of the 95% confidence interval.
    pub margin: f64,
}

impl fmt::Display for EloEstimate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let number = |value: f64| {
            if value.is_finite() {
                // Rounded first, so that -0.3 shows as 0, not -0.
                match value.round() {
                    0.0 => "0".to_string(),
                    rounded => format!("{rounded:+.0}"),
                }
            } else if value > 0.0 {
                "+inf".to_string()
            } else {
                "-inf".to_string()
            }
        };
        let margin = if self.margin.is_finite() {
            format!("{:.0}", self.margin)
        } else {
            "inf".to_string()
        };
        write!(f, "{} +/- {margin}", number(self.elo))
    }
}

/// The Elo difference at which the expected score is `score` (logistic model, 400 points per
/// factor ten of odds); infinite at or beyond 0 and 1.
pub fn elo_of_score(score: f64) -> f64 {
    if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        -400.0 * (1.0 / score - 1.0).log10()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A shuffle is a permutation, the same for the same seed, and moves things.
    #[test]
    fn shuffles_are_reproducible_permutations() {
        let shuffled = |seed| {
            let mut items: Vec<u32> = (0..100).collect();
            Rng::new(seed).shuffle(&mut items);
            items
        };
        let mut sorted = shuffled(7);
        assert_eq!(shuffled(7), sorted);
        assert_ne!(shuffled(8), sorted);
        assert_ne!(sorted, (0..100).collect::<Vec<u32>>());
        sorted.sort_unstable();
        assert_eq!(sorted, (0..100).collect::<Vec<u32>>());
    }

    /// The score, Elo and margin of a known tally: 60 wins, 20 draws, 20 losses is 70%, about
    /// +147 Elo, and a per-game deviation of 0.4 gives a margin of about 66.
    #[test]
    fn elo_estimate_math() {
        let tally = Tally {
            wins: 60,
            draws: 20,
            losses: 20,
        };
        assert_eq!(tally.score(), Some(0.7));
        let estimate = tally.elo().unwrap();
        assert!((estimate.elo - 147.19).abs() < 0.01, "{estimate:?}");
        let low = -400.0 * (1.0 / (0.7 - 1.96 * 0.04) - 1.0f64).log10();
        let high = -400.0 * (1.0 / (0.7 + 1.96 * 0.04) - 1.0f64).log10();
        assert!((estimate.margin - (high - low) / 2.0).abs() < 1e-9);
        assert!((estimate.margin - 66.0).abs() < 0.5, "{estimate:?}");
        assert_eq!(tally.to_string(), "+60 =20 -20 (70.0%), Elo +147 +/- 66");
    }

    /// A tally's points are the sum of its games' points, 2 a win and 1 a draw.
    #[test]
    fn points_are_two_a_win_and_one_a_draw() {
        let mut tally = Tally::default();
        let games = [Some(true), None, Some(false), Some(true), None];
        for won in games {
            tally.add(won);
        }
        assert_eq!(tally.points(), 6);
        assert_eq!(games.into_iter().map(Tally::points_of).sum::<u32>(), 6);
    }

    /// An even score is 0 Elo; all wins is an infinite estimate; no games gives nothing.
    #[test]
    fn elo_edges() {
        let even = Tally {
            wins: 10,
            draws: 5,
            losses: 10,
        };
        assert_eq!(even.elo().unwrap().elo, 0.0);
        let sweep = Tally {
            wins: 10,
            draws: 0,
            losses: 0,
        };
        assert_eq!(sweep.elo().unwrap().elo, f64::INFINITY);
        assert_eq!(sweep.elo().unwrap().to_string(), "+inf +/- inf");
        let even = EloEstimate {
            elo: -0.3,
            margin: 40.0,
        };
        assert_eq!(even.to_string(), "0 +/- 40");
        assert_eq!(Tally::default().elo(), None);
        assert_eq!(elo_of_score(0.0), f64::NEG_INFINITY);
    }

    /// Plays instantly but slowly enough to lose a 1 ms clock.
    struct Slow(RandomPlayer);

    impl Contender for Slow {
        fn choose(&mut self, game: &Game, clock: Option<Duration>) -> Move {
            std::thread::sleep(Duration::from_millis(5));
            self.0.choose(game, clock)
        }
    }

    /// A player whose clock runs out loses, whatever the position.
    #[test]
    fn running_out_of_time_loses() {
        let mut slow = Slow(RandomPlayer::new(1));
        let mut random = RandomPlayer::new(2);
        let record = play_timed_game(
            [
                (&mut random, None),
                (&mut slow, Some(Duration::from_millis(1))),
            ],
            &Game::default(),
            100,
        );
        assert_eq!(record.lost_on_time, Some(Color::Black));
        assert_eq!(record.winner(), Some(Color::White));
        assert_eq!(record.game.ply(), 1);
        // The clock counts the move that overran it; a player without a clock uses none.
        assert_eq!(record.time_used[0], Duration::ZERO);
        assert!(record.time_used[1] >= Duration::from_millis(5));
    }

    /// A game between two random movers ends by the rules or at the ply limit, with legal
    /// moves throughout.
    #[test]
    fn random_game_is_legal() {
        let record = play_game(
            &mut RandomPlayer::new(3),
            &mut RandomPlayer::new(4),
            &Game::default(),
            1000,
        );
        assert!(record.outcome.is_some());
        let mut replay = Game::default();
        for mv in record.game.moves() {
            replay.try_play(*mv).unwrap();
        }
    }
}

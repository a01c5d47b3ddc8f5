//! Scores: centi-men from the side to move, with won and lost positions counted in plies.

use std::fmt;

/// A search or evaluation score from the point of view of the side to move.
///
/// Ordinary scores are in centi-men (a man is worth 100). Scores within [`Score::MAX_PLIES`] of
/// [`Score::WIN`] are forced wins (and their negations forced losses), the distance from
/// `WIN` counting the plies to the win: a quicker win scores higher, a slower loss scores
/// higher than a quick one.
///
/// `Display` writes `+1.25`, `-0.40`, `0.00`, `win in 7` or `loss in 4` (plies).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default)]
pub struct Score(pub i32);

impl Score {
    /// A draw, or an equal position.
    pub const DRAW: Score = Score(0);
    /// A win on the spot (the opponent has no move now).
    pub const WIN: Score = Score(30_000);
    /// The longest win distance the search can report, in plies.
    pub const MAX_PLIES: i32 = 1_000;
    /// Evaluations are kept below this bound so that they never look like wins.
    pub const MAX_EVAL: i32 = Score::WIN.0 - 2 * Score::MAX_PLIES;

    /// A score in centi-men, clamped below the win scores.
    pub const fn centi_men(value: i32) -> Score {
        if value > Score::MAX_EVAL {
            Score(Score::MAX_EVAL)
        } else if value < -Score::MAX_EVAL {
            Score(-Score::MAX_EVAL)
        } else {
            Score(value)
        }
    }

    /// A forced win in `plies` plies (0: the opponent has just been left without a move).
    pub const fn win_in(plies: i32) -> Score {
        Score(Score::WIN.0 - plies)
    }

    /// A forced loss in `plies` plies (0: the side to move has no move now).
    pub const fn loss_in(plies: i32) -> Score {
        Score(-Score::WIN.0 + plies)
    }

    /// The raw value (centi-men, or a win/loss encoding).
    pub const fn value(self) -> i32 {
        self.0
    }

    /// Whether the score is a forced win for the side to move.
    pub const fn is_win(self) -> bool {
        self.0 >= Score::WIN.0 - Score::MAX_PLIES
    }

    /// Whether the score is a forced loss for the side to move.
    pub const fn is_loss(self) -> bool {
        self.0 <= -Score::WIN.0 + Score::MAX_PLIES
    }

    /// Whether the score is a forced win or loss.
    pub const fn is_decisive(self) -> bool {
        self.is_win() || self.is_loss()
    }

    /// Plies to the end for a forced win (positive) or loss (negative or zero: a loss on the
    /// spot is 0, like a win on the spot; tell them apart with [`Score::is_win`]); `None`
    /// otherwise.
    pub const fn plies_to_end(self) -> Option<i32> {
        if self.is_win() {
            Some(Score::WIN.0 - self.0)
        } else if self.is_loss() {
            Some(-(Score::WIN.0 + self.0))
        } else {
            None
        }
    }
}

impl std::ops::Neg for Score {
    type Output = Score;

    fn neg(self) -> Score {
        Score(-self.0)
    }
}

impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.plies_to_end() {
            Some(plies) if self.is_win() => write!(f, "win in {plies}"),
            Some(plies) => write!(f, "loss in {}", -plies),
            None => {
                let sign = match self.0 {
                    1.. => "+",
                    0 => "",
                    _ => "-",
                };
                let magnitude = self.0.unsigned_abs();
                write!(f, "{sign}{}.{:02}", magnitude / 100, magnitude % 100)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Centi-men print as men with two decimals and a sign; wins and losses as plies.
    #[test]
    fn display() {
        let cases = [
            (Score(125), "+1.25"),
            (Score(-40), "-0.40"),
            (Score(0), "0.00"),
            (Score(-1234), "-12.34"),
            (Score::win_in(7), "win in 7"),
            (Score::loss_in(4), "loss in 4"),
            (Score::loss_in(0), "loss in 0"),
        ];
        for (score, text) in cases {
            assert_eq!(score.to_string(), text);
        }
    }

    /// Quicker wins and slower losses compare higher; evaluations stay below the wins.
    #[test]
    fn ordering_and_bounds() {
        assert!(Score::win_in(3) > Score::win_in(5));
        assert!(Score::loss_in(6) > Score::loss_in(2));
        assert!(Score::centi_men(i32::MAX) < Score::win_in(Score::MAX_PLIES));
        assert!(!Score::centi_men(i32::MAX).is_decisive());
        assert!(Score::centi_men(i32::MIN) > Score::loss_in(Score::MAX_PLIES));
        assert_eq!(-Score::win_in(9), Score::loss_in(9));
        assert_eq!(Score::win_in(9).plies_to_end(), Some(9));
        assert_eq!(Score::loss_in(9).plies_to_end(), Some(-9));
        assert_eq!(Score(50).plies_to_end(), None);
    }
}

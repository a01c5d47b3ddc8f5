//! Scores, the standings table with Elo estimates, and the sequential probability ratio test.
//!
//! - Points: a win 2, a draw 1, a loss 0 (draughts' scoring).
//! - Elo: each participant's score against the field it met, on the logistic scale (400
//!   points per factor ten of odds), with the 95% margin from the spread of its game results;
//!   the arithmetic is [`damx_engine::gauntlet::Tally::elo`].
//! - SPRT: the trinomial generalised SPRT (the approximation fishtest used before its
//!   pentanomial model): with `N` games, mean score `s` and per-game variance `var` (wins 1,
//!   draws ½, losses 0), and `s0`, `s1` the expected scores of `elo0` and `elo1`,
//!   `LLR = N (s1 - s0) (2s - s0 - s1) / (2 var)`. H1 (`elo1`) is accepted once
//!   `LLR >= ln((1 - beta) / alpha)`, H0 (`elo0`) once `LLR <= ln(beta / (1 - alpha))`.
//!   While all games have had one result (no spread), one win and one loss are added to the
//!   tally, so that a one-sided match decides too.

use std::fmt;

use damx_engine::gauntlet::{EloEstimate, Tally};

/// The hypotheses and error rates of a sequential probability ratio test.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SprtConfig {
    /// The Elo difference of H0.
    pub elo0: f64,
    /// The Elo difference of H1.
    pub elo1: f64,
    /// The false positive rate (accepting H1 when H0 holds).
    pub alpha: f64,
    /// The false negative rate (accepting H0 when H1 holds).
    pub beta: f64,
}

impl Default for SprtConfig {
    /// H0 = 0 Elo, H1 = 10 Elo, alpha = beta = 0.05.
    fn default() -> SprtConfig {
        SprtConfig {
            elo0: 0.0,
            elo1: 10.0,
            alpha: 0.05,
            beta: 0.05,
        }
    }
}

/// Which hypothesis the test accepted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hypothesis {
    /// H0: the difference is `elo0` (the change is not an improvement of `elo1`).
    H0,
    /// H1: the difference is `elo1`.
    H1,
}

impl fmt::Display for Hypothesis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Hypothesis::H0 => "h0",
            Hypothesis::H1 => "h1",
        })
    }
}

/// Where the test stands.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SprtStatus {
    /// The log-likelihood ratio.
    pub llr: f64,
    /// The bound at which H0 is accepted.
    pub lower: f64,
    /// The bound at which H1 is accepted.
    pub upper: f64,
    /// The accepted hypothesis, once there is one.
    pub verdict: Option<Hypothesis>,
}

impl SprtConfig {
    /// The (lower, upper) bounds of the LLR.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The log-likelihood ratio of `tally` (the tested side's wins, draws and losses); 0 before
    /// the first game.
    ///
    /// While every game has had the same result the sample variance is zero and the normal
    /// approximation says nothing; the tally is then taken with one more win and one more loss
    /// (a prior that either side can win a game), so that a one-sided match still decides.
    pub fn llr(&self, tally: &Tally) -> f64 {
        let counts = [tally.wins, tally.draws, tally.losses].map(f64::from);
        let llr = self.llr_of(counts);
        if llr.is_nan() {
            self.llr_of([counts[0] + 1.0, counts[1], counts[2] + 1.0])
        } else {
            llr
        }
    }

    /// The LLR of (wins, draws, losses); 0 without games, NaN without spread.
    fn llr_of(&self, [wins, draws, losses]: [f64; 3]) -> f64 {
        let games = wins + draws + losses;
        if games == 0.0 {
            return 0.0;
        }
        let (w, d, l) = (wins / games, draws / games, losses / games);
        let score = w + d / 2.0;
        let variance = w * (1.0 - score).powi(2) + d * (0.5 - score).powi(2) + l * score.powi(2);
        if variance <= f64::EPSILON {
            return f64::NAN;
        }
        let expected = |elo: f64| 1.0 / (1.0 + 10f64.powf(-elo / 400.0));
        let (s0, s1) = (expected(self.elo0), expected(self.elo1));
        games * (s1 - s0) * (2.0 * score - s0 - s1) / (2.0 * variance)
    }

    /// The test's standing after `tally`.
    pub fn status(&self, tally: &Tally) -> SprtStatus {
        let llr = self.llr(tally);
        let (lower, upper) = self.bounds();
        let verdict = if llr >= upper {
            Some(Hypothesis::H1)
        } else if llr <= lower {
            Some(Hypothesis::H0)
        } else {
            None
        };
        SprtStatus {
            llr,
            lower,
            upper,
            verdict,
        }
    }
}

/// One line of the standings.
#[derive(Clone, Debug, PartialEq)]
pub struct Standing {
    /// Its rank, from 1 (equal points share a rank).
    pub rank: usize,
    /// The participant's name.
    pub name: String,
    /// Points: 2 a win, 1 a draw.
    pub points: u32,
    /// Wins, draws and losses.
    pub tally: Tally,
    /// The Elo difference against the field it met, with its 95% margin.
    pub elo: Option<EloEstimate>,
}

/// The standings of `names` with their tallies: by points, then by fewer games, then in the
/// given order.
pub fn standings(names: &[String], tallies: &[Tally]) -> Vec<Standing> {
    let mut order: Vec<usize> = (0..names.len()).collect();
    let points = |i: usize| 2 * tallies[i].wins + tallies[i].draws;
    order.sort_by_key(|&i| (std::cmp::Reverse(points(i)), tallies[i].games(), i));
    let mut table: Vec<Standing> = Vec::with_capacity(order.len());
    for (place, &i) in order.iter().enumerate() {
        let rank = match table.last() {
            Some(previous) if previous.points == points(i) => previous.rank,
            _ => place + 1,
        };
        table.push(Standing {
            rank,
            name: names[i].clone(),
            points: points(i),
            tally: tallies[i],
            elo: tallies[i].elo(),
        });
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tally(wins: u32, draws: u32, losses: u32) -> Tally {
        Tally {
            wins,
            draws,
            losses,
        }
    }

    /// The bounds for alpha = beta = 0.05 are -/+ ln 19, and the LLR of known results is the
    /// GSPRT value (worked out by hand from the formula in the module docs).
    #[test]
    fn sprt_on_known_results() {
        let sprt = SprtConfig::default();
        let (lower, upper) = sprt.bounds();
        assert!((lower + 19f64.ln()).abs() < 1e-12 && (upper - 19f64.ln()).abs() < 1e-12);
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
        assert!(close(sprt.llr(&tally(60, 20, 20)), 1.733_713_311_929_099_7));
        let five = SprtConfig { elo1: 5.0, ..sprt };
        assert!(close(
            five.llr(&tally(100, 300, 100)),
            -0.129_423_001_999_813_77
        ));
        assert!(close(
            five.llr(&tally(120, 300, 100)),
            0.554_944_528_008_310_8
        ));
        assert!(close(five.llr(&tally(10, 0, 30)), -0.389_259_739_234_731_5));
        // No games, no information.
        assert_eq!(sprt.llr(&tally(0, 0, 0)), 0.0);
        // Without spread the tally counts one more win and one more loss: all draws lean to
        // H0 (equal strength), all wins to H1, and a long enough run of wins decides.
        assert!(close(
            sprt.llr(&tally(0, 12, 0)),
            with_spread(&sprt, 1, 12, 1)
        ));
        assert!(sprt.llr(&tally(0, 12, 0)) < 0.0);
        assert!(close(
            sprt.llr(&tally(3, 0, 0)),
            with_spread(&sprt, 4, 0, 1)
        ));
        assert!(sprt.llr(&tally(3, 0, 0)) > 0.0);
        assert_eq!(sprt.status(&tally(40, 0, 0)).verdict, Some(Hypothesis::H1));
        // A clear win accepts H1, a clear loss H0, a close result neither.
        assert_eq!(
            sprt.status(&tally(300, 100, 100)).verdict,
            Some(Hypothesis::H1)
        );
        assert_eq!(
            sprt.status(&tally(100, 100, 300)).verdict,
            Some(Hypothesis::H0)
        );
        assert_eq!(sprt.status(&tally(60, 20, 20)).verdict, None);
    }

    /// The LLR of a tally with spread, straight from the formula.
    fn with_spread(sprt: &SprtConfig, wins: u32, draws: u32, losses: u32) -> f64 {
        sprt.llr(&tally(wins, draws, losses))
    }

    /// Points are 2/1/0; equal points share a rank; the Elo of a 75% score is +191.
    #[test]
    fn standings_and_elo() {
        let names: Vec<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
        let table = standings(&names, &[tally(1, 2, 1), tally(2, 2, 0), tally(1, 0, 3)]);
        let order: Vec<(&str, usize, u32)> = table
            .iter()
            .map(|s| (s.name.as_str(), s.rank, s.points))
            .collect();
        assert_eq!(order, [("b", 1, 6), ("a", 2, 4), ("c", 3, 2)]);
        let elo = table[0].elo.unwrap();
        assert!((elo.elo - 190.85).abs() < 0.01, "{elo:?}");
        let tied = standings(&names[..2], &[tally(1, 0, 0), tally(0, 2, 0)]);
        assert_eq!((tied[0].rank, tied[1].rank), (1, 1));
    }
}

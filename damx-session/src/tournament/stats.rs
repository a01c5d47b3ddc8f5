//! Scores, the standings table with Elo estimates, and the sequential probability ratio test.
//!
//! - Points: a win 2, a draw 1, a loss 0 (draughts' scoring).
//! - Elo: each participant's score against the field it met, on the logistic scale (400
//!   points per factor ten of odds), with the 95% margin from the spread of its game results;
//!   the arithmetic is [`damx_engine::gauntlet::Tally::elo`].
//! - SPRT: the generalised SPRT on game pairs (the pentanomial model fishtest uses). The two
//!   games of one opening, colours swapped, are one pair, and a pair is scored by the tested
//!   side's points in it, 0 to 4 ([`Pentanomial`]). With `N` complete pairs, mean pair score
//!   `s` (on 0..1) and its variance `var`, and `s0`, `s1` the expected scores of `elo0` and
//!   `elo1`, `LLR = N (s1 - s0) (2s - s0 - s1) / (2 var)`. H1 (`elo1`) is accepted once
//!   `LLR >= ln((1 - beta) / alpha)`, H0 (`elo0`) once `LLR <= ln(beta / (1 - alpha))`.
//!   Scored by pairs, what an opening gives one colour cancels out within the pair, so the
//!   variance is the players' alone and the test decides in fewer games than one counting
//!   games. A prior of one lost and one won pair (0 and 4 points) is counted with the pairs
//!   played: the variance is taken from the pairs themselves, and in a game where nearly
//!   every pair is drawn a few pairs would give one far too small, so that a single lost or
//!   won pair decided the test; the prior keeps the variance from collapsing (its mean is an
//!   even score, so it biases nothing), weighs less with every pair, and lets a one-sided
//!   match decide too.

use std::collections::HashMap;
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
    /// The pairs the LLR is computed from.
    pub pairs: Pentanomial,
}

impl SprtConfig {
    /// The (lower, upper) bounds of the LLR.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The log-likelihood ratio of `pairs` with the prior pairs of the module documentation;
    /// 0 before the first complete pair.
    pub fn llr(&self, pairs: &Pentanomial) -> f64 {
        if pairs.pairs() == 0 {
            return 0.0;
        }
        let mut counts = pairs.counts.map(f64::from);
        counts[0] += 1.0;
        counts[4] += 1.0;
        let total: f64 = counts.iter().sum();
        let share = |points: usize| points as f64 / 4.0;
        let score = (0..5).map(|k| counts[k] * share(k)).sum::<f64>() / total;
        let variance = (0..5)
            .map(|k| counts[k] * (share(k) - score).powi(2))
            .sum::<f64>()
            / total;
        let expected = |elo: f64| 1.0 / (1.0 + 10f64.powf(-elo / 400.0));
        let (s0, s1) = (expected(self.elo0), expected(self.elo1));
        total * (s1 - s0) * (2.0 * score - s0 - s1) / (2.0 * variance)
    }

    /// The test's standing after `pairs`.
    pub fn status(&self, pairs: &Pentanomial) -> SprtStatus {
        let llr = self.llr(pairs);
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
            pairs: *pairs,
        }
    }
}

/// The tested side's results by pairs of games: `counts[k]` pairs in which it scored `k`
/// points (a win 2, a draw 1), so `[0, 0, 1, 0, 0]` is one pair of two draws, or of a win
/// and a loss.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pentanomial {
    /// Pairs by the points scored in them, 0 to 4.
    pub counts: [u32; 5],
}

impl Pentanomial {
    /// The complete pairs.
    pub fn pairs(&self) -> u32 {
        self.counts.iter().sum()
    }
}

/// `pairs by points 0-4: 3 10 40 12 5`.
impl fmt::Display for Pentanomial {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [a, b, c, d, e] = self.counts;
        write!(f, "pairs by points 0-4: {a} {b} {c} {d} {e}")
    }
}

/// Puts games together into pairs as they finish, in any order: game `2k` and game `2k + 1`
/// (counted from 0) are pair `k`, the two games of one opening.
#[derive(Clone, Debug, Default)]
pub struct PairBook {
    /// The points of the pairs of which one game has finished, by pair.
    open: HashMap<u64, u32>,
    complete: Pentanomial,
}

impl PairBook {
    /// Game `index` (from 0) from the tested side's view, as [`Tally::add`] takes it: won
    /// (`Some(true)`), lost (`Some(false)`) or drawn (`None`).
    pub fn add(&mut self, index: u64, won: Option<bool>) {
        let points = Tally::points_of(won);
        match self.open.remove(&(index / 2)) {
            Some(first) => self.complete.counts[(first + points) as usize] += 1,
            None => {
                self.open.insert(index / 2, points);
            }
        }
    }

    /// The complete pairs.
    pub fn pentanomial(&self) -> Pentanomial {
        self.complete
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
    let points = |i: usize| tallies[i].points();
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

    fn pairs(counts: [u32; 5]) -> Pentanomial {
        Pentanomial { counts }
    }

    /// The bounds for alpha = beta = 0.05 are -/+ ln 19, and the LLR of known pair counts is
    /// the GSPRT value (worked out apart from the code, from the formula in the module docs).
    #[test]
    fn sprt_on_known_results() {
        let sprt = SprtConfig::default();
        let (lower, upper) = sprt.bounds();
        assert!((lower + 19f64.ln()).abs() < 1e-12 && (upper - 19f64.ln()).abs() < 1e-12);
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
        assert!(close(
            sprt.llr(&pairs([5, 20, 50, 30, 10])),
            0.977_438_194_676_013_8
        ));
        assert!(close(
            sprt.llr(&pairs([2, 10, 60, 20, 8])),
            1.527_694_140_431_685_7
        ));
        let five = SprtConfig { elo1: 5.0, ..sprt };
        assert!(close(
            five.llr(&pairs([10, 40, 100, 40, 10])),
            -0.100_590_022_354_293_37
        ));
        // No pairs, no information.
        assert_eq!(sprt.llr(&pairs([0; 5])), 0.0);
        // With the prior pairs, all even pairs lean to H0 (equal strength), all won pairs to
        // H1, and a long enough run of won pairs decides.
        assert!(close(
            sprt.llr(&pairs([0, 0, 12, 0, 0])),
            -0.040_570_249_372_367_36
        ));
        assert!(close(
            sprt.llr(&pairs([0, 0, 0, 0, 3])),
            0.131_645_616_115_201
        ));
        assert_eq!(
            sprt.status(&pairs([0, 0, 0, 0, 40])).verdict,
            Some(Hypothesis::H1)
        );
        // A clear win accepts H1, a clear loss H0, a close result neither.
        assert_eq!(
            sprt.status(&pairs([10, 20, 100, 60, 60])).verdict,
            Some(Hypothesis::H1)
        );
        assert_eq!(
            sprt.status(&pairs([60, 60, 100, 20, 10])).verdict,
            Some(Hypothesis::H0)
        );
        assert_eq!(sprt.status(&pairs([5, 20, 50, 30, 10])).verdict, None);
        // Thirteen drawn pairs and one lost one decide nothing yet (without the prior the
        // variance of these 14 pairs alone made it H0 at elo1 = 20, LLR -3.13).
        let twenty = SprtConfig { elo1: 20.0, ..sprt };
        let drawn = pairs([0, 1, 13, 0, 0]);
        assert!(close(twenty.llr(&drawn), -0.395_289_789_506_008_7));
        assert_eq!(twenty.status(&drawn).verdict, None);
    }

    /// A pair is complete when both of its games are in, whatever their order; its score is
    /// the sum of their points.
    #[test]
    fn games_make_pairs() {
        let mut book = PairBook::default();
        book.add(1, Some(true)); // pair 0, second game: a win
        book.add(4, None); // pair 2, first game: a draw
        assert_eq!(book.pentanomial().pairs(), 0);
        book.add(0, None); // pair 0 complete: 3 points
        book.add(5, Some(false)); // pair 2 complete: 1 point
        book.add(6, Some(true));
        assert_eq!(book.pentanomial(), pairs([0, 1, 0, 1, 0]));
        assert_eq!(
            book.pentanomial().to_string(),
            "pairs by points 0-4: 0 1 0 1 0"
        );
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

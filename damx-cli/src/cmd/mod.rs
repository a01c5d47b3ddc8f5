//! One module per command. Each takes its validated configuration and the output to write to,
//! and returns an [`Error`] that `main` turns into a message and an exit code.

use damx_engine::Score;
use serde::Serialize;

use crate::error::Error;
use crate::log::info;

pub(crate) mod analyse;
pub(crate) mod bench;
pub(crate) mod decode;
pub(crate) mod demo;
pub(crate) mod egdb;
pub(crate) mod encode;
pub(crate) mod follow;
pub(crate) mod hub;
pub(crate) mod initiate;
pub(crate) mod perft;
pub(crate) mod play;
pub(crate) mod proxy;
pub(crate) mod referee;

/// Counts the valid and invalid items of a conversion, which goes on past invalid ones.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    valid: usize,
    invalid: usize,
}

impl Tally {
    /// One item converted.
    pub(crate) fn valid(&mut self) {
        self.valid += 1;
    }

    /// One item refused; `report` names it on standard error.
    pub(crate) fn invalid(&mut self, report: impl FnOnce()) {
        self.invalid += 1;
        report();
    }

    /// Success if every item was valid, else the summary that makes the exit code 1.
    pub(crate) fn finish(self, done: &str) -> Result<(), Error> {
        let total = self.valid + self.invalid;
        info!("{} of {total} messages {done}", self.valid);
        match self.invalid {
            0 => Ok(()),
            invalid => Err(Error::Invalid(format!(
                "{invalid} of {total} messages could not be {done}"
            ))),
        }
    }
}

/// A score as JSON: `{"centi_men": 25}`, `{"win_in": 7}` or `{"loss_in": 4}` (plies).
#[derive(Debug, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum ScoreJson {
    /// An ordinary score in centi-men (a man is 100).
    CentiMen(i32),
    /// A forced win in this many plies.
    WinIn(i32),
    /// A forced loss in this many plies.
    LossIn(i32),
}

impl From<Score> for ScoreJson {
    fn from(score: Score) -> ScoreJson {
        match score.plies_to_end() {
            Some(plies) if plies >= 0 => ScoreJson::WinIn(plies),
            Some(plies) => ScoreJson::LossIn(-plies),
            None => ScoreJson::CentiMen(score.value()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Scores become one-key JSON objects: centi-men, or plies to a forced end.
    #[test]
    fn scores_become_json_objects() {
        let json = |score| serde_json::to_string(&ScoreJson::from(score)).unwrap();
        assert_eq!(json(Score(25)), r#"{"centi_men":25}"#);
        assert_eq!(json(Score::win_in(7)), r#"{"win_in":7}"#);
        assert_eq!(json(Score::loss_in(4)), r#"{"loss_in":4}"#);
    }
}

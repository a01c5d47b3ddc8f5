//! The records of finished games: a JSON line each in the results file (which is also what
//! a run resumes from), and a PDN game each.
//!
//! A results line:
//!
//! ```text
//! {"game":3,"white":"a","black":"b","opening":"32-28,18-23","result":"2-0",
//!  "reason":"illegal-move","detail":"M0000332700: no legal move goes from 33 to 27",
//!  "disqualified":["b"],"plies":7,"moves":["32-28","18-23",...],
//!  "white_seconds":1.234,"black_seconds":0.98,"white_dxp":"damx","black_dxp":"Broken"}
//! ```
//!
//! (on one line; `detail`, `disqualified` and the DXP names are left out when empty).

use std::fmt;
use std::time::SystemTime;

use damx_rules::{Color, GameResult};
use serde::{Deserialize, Serialize};

use crate::config::Role;
use crate::record::{GameRecord, Termination, pdn_date};
use crate::referee::{GameReport, Reason};

/// One finished game, as the results file keeps it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameLine {
    /// The game's number in the schedule.
    pub game: u32,
    /// White's name.
    pub white: String,
    /// Black's name.
    pub black: String,
    /// The opening's label.
    pub opening: String,
    /// `2-0`, `1-1`, `0-2` or `*`.
    pub result: String,
    /// The reason word.
    pub reason: String,
    /// Details in words.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub detail: String,
    /// The names of the programs that forfeited.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disqualified: Vec<String>,
    /// Moves (plies) played.
    pub plies: usize,
    /// The moves in notation.
    pub moves: Vec<String>,
    /// White's thinking time, in seconds.
    pub white_seconds: f64,
    /// Black's thinking time, in seconds.
    pub black_seconds: f64,
    /// White's DXP name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub white_dxp: Option<String>,
    /// Black's DXP name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub black_dxp: Option<String>,
    /// A fingerprint of the settings the game was played with (the clock, move limit,
    /// claims, adjudication and each participant's options; see
    /// [`TournamentConfig::settings_key`](super::TournamentConfig::settings_key)), so that a
    /// resumed series goes on with the same ones.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<String>,
}

/// A results file line that does not read.
#[derive(Debug)]
pub struct ResultsError {
    /// The 1-based line.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ResultsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for ResultsError {}

impl GameLine {
    /// The line for a refereed game.
    pub fn from_report(report: &GameReport, opening: &str) -> GameLine {
        let setup = &report.setup;
        let moves = setup.start_position().line_texts(&report.moves);
        let seconds =
            |color: Color| (report.used[color.index()].as_secs_f64() * 1000.0).round() / 1000.0;
        GameLine {
            game: setup.number,
            white: setup.names[0].clone(),
            black: setup.names[1].clone(),
            opening: opening.to_owned(),
            result: report.verdict.result.as_str().to_owned(),
            reason: report.verdict.reason.word().to_owned(),
            detail: report.verdict.detail.clone(),
            disqualified: report
                .verdict
                .disqualified
                .iter()
                .map(|color| setup.names[color.index()].clone())
                .collect(),
            plies: report.moves.len(),
            moves,
            white_seconds: seconds(Color::White),
            black_seconds: seconds(Color::Black),
            white_dxp: report.dxp_names[0].clone(),
            black_dxp: report.dxp_names[1].clone(),
            settings: None,
        }
    }

    /// The result.
    pub fn game_result(&self) -> GameResult {
        GameResult::from_token(&self.result).unwrap_or(GameResult::Unfinished)
    }

    /// The reason.
    pub fn game_reason(&self) -> Option<Reason> {
        Reason::from_word(&self.reason)
    }

    /// The line as JSON, without a line break.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Reads a results file. A last line without its line break that does not read (a write
    /// cut short) is left out; any other line that does not read is an error.
    ///
    /// # Errors
    /// A [`ResultsError`] naming the line.
    pub fn read_all(text: &str) -> Result<Vec<GameLine>, ResultsError> {
        let mut lines = Vec::new();
        let complete = text.ends_with('\n');
        let all: Vec<&str> = text.lines().collect();
        for (index, raw) in all.iter().enumerate() {
            if raw.trim().is_empty() {
                continue;
            }
            let parsed = serde_json::from_str::<GameLine>(raw)
                .map_err(|error| error.to_string())
                .and_then(|line| {
                    if GameResult::from_token(&line.result).is_none() {
                        Err(format!("unknown result {:?}", line.result))
                    } else if line.game_reason().is_none() {
                        Err(format!("unknown reason {:?}", line.reason))
                    } else {
                        Ok(line)
                    }
                });
            match parsed {
                Ok(line) => lines.push(line),
                Err(_) if index + 1 == all.len() && !complete => {}
                Err(message) => {
                    return Err(ResultsError {
                        line: index + 1,
                        message,
                    });
                }
            }
        }
        Ok(lines)
    }

    /// The game as PDN text: the session's record tags (`Event`, `Date`, `White`, `Black`,
    /// `Result`, `FEN`, `Round`, `TimeControl`), `Termination` with the reason word and the
    /// details, and `Opening` with the opening's label.
    pub fn to_pdn(
        &self,
        report: &GameReport,
        event: &str,
        minutes: u16,
        move_limit: u16,
    ) -> String {
        let record = GameRecord {
            number: self.game,
            role: Role::Initiator,
            white: self.white.clone(),
            black: self.black.clone(),
            our_color: Color::White,
            minutes,
            move_limit: (move_limit > 0).then_some(move_limit),
            start: report.setup.start_position(),
            moves: report.moves.clone(),
            seconds: report
                .millis
                .iter()
                .map(|ms| (ms / 1000).min(u64::from(u16::MAX)) as u16)
                .collect(),
            result: report.verdict.result,
            termination: Termination::Aborted,
            site: None,
            date: Some(pdn_date(SystemTime::now())),
        };
        let mut pdn = record.to_pdn(event);
        let termination = if self.detail.is_empty() {
            self.reason.clone()
        } else {
            format!("{}: {}", self.reason, self.detail)
        };
        pdn.set_tag("Termination", &termination.replace('"', "'"));
        pdn.set_tag("Opening", &self.opening);
        pdn.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::referee::{GameSetup, Verdict};
    use std::time::Duration;

    fn report() -> GameReport {
        let start = damx_rules::Position::initial();
        let first = start.parse_move("32-28").unwrap();
        GameReport {
            setup: GameSetup {
                number: 4,
                names: ["a".into(), "b".into()],
                start: None,
                stop_after: [false, false],
            },
            verdict: Verdict::forfeit(Color::Black, Reason::Silent, "no move within 1.0 s"),
            moves: vec![first],
            millis: vec![1_500],
            used: [Duration::from_millis(1_500), Duration::from_secs(1)],
            dxp_names: [Some("damx".into()), None],
            keep: [true, false],
        }
    }

    /// A report becomes a JSON line that reads back, and a PDN game with the referee's tags.
    #[test]
    fn line_and_pdn() {
        let report = report();
        let line = GameLine::from_report(&report, "start");
        let json = line.to_json();
        assert_eq!(
            json,
            r#"{"game":4,"white":"a","black":"b","opening":"start","result":"2-0","reason":"silent","detail":"no move within 1.0 s","disqualified":["b"],"plies":1,"moves":["32-28"],"white_seconds":1.5,"black_seconds":1.0,"white_dxp":"damx"}"#
        );
        assert_eq!(
            GameLine::read_all(&format!("{json}\n")).unwrap(),
            std::slice::from_ref(&line)
        );
        let pdn = line.to_pdn(&report, "test", 5, 0);
        for tag in [
            "[Event \"test\"]",
            "[White \"a\"]",
            "[Result \"2-0\"]",
            "[Round \"4\"]",
            "[TimeControl \"300\"]",
            "[Termination \"silent: no move within 1.0 s\"]",
            "[Opening \"start\"]",
        ] {
            assert!(pdn.contains(tag), "{tag} in\n{pdn}");
        }
        let games = damx_rules::pdn::parse_games(&pdn).unwrap();
        assert_eq!(games[0].moves, report.moves);
    }

    /// A cut-short last line is left out; a broken line elsewhere is an error with its number.
    #[test]
    fn reading_survives_a_cut_short_write() {
        let json = GameLine::from_report(&report(), "start").to_json();
        let cut = format!("{json}\n{}", &json[..20]);
        assert_eq!(GameLine::read_all(&cut).unwrap().len(), 1);
        let broken = format!("{}\n{json}\n", &json[..20]);
        assert_eq!(GameLine::read_all(&broken).unwrap_err().line, 1);
        let unknown = json.replace("silent", "bored");
        assert!(GameLine::read_all(&format!("{unknown}\n")).is_err());
    }
}

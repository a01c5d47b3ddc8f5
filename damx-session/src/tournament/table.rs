//! A series as a person reads it: the final table ([`table`]: standings, the reasons games
//! ended, the SPRT's standing) and a one-line [`Status`] kept up to date from the event
//! stream, as `damx match` and `damx tournament` print them.
//!
//! ```
//! use damx_session::tournament::TournamentEvent;
//! use damx_session::tournament::table::Status;
//!
//! let mut status = Status::default();
//! status.see(&TournamentEvent::Scores(vec![("damx".into(), 3), ("scan".into(), 1)]));
//! assert_eq!(status.line(), "games 0, 0 running  damx 3, scan 1");
//! ```

use std::fmt::Write as _;

use super::{TournamentEvent, TournamentReport};

/// What a progress line shows of a running series.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Status {
    scheduled: usize,
    finished: usize,
    running: usize,
    scores: String,
}

impl Status {
    /// Takes in one event of the series.
    pub fn see(&mut self, event: &TournamentEvent) {
        match event {
            TournamentEvent::Game { .. } => self.scheduled += 1,
            TournamentEvent::Resumed { .. } => self.finished += 1,
            TournamentEvent::Begin { .. } => self.running += 1,
            TournamentEvent::Result { .. } => {
                self.running = self.running.saturating_sub(1);
                self.finished += 1;
            }
            TournamentEvent::Scores(scores) => {
                self.scores = scores
                    .iter()
                    .map(|(name, points)| format!("{name} {points}"))
                    .collect::<Vec<_>>()
                    .join(", ");
            }
            _ => {}
        }
    }

    /// `games 3/10, 2 running  damx 4, scan 2`.
    pub fn line(&self) -> String {
        let total = if self.scheduled > 0 {
            format!("/{}", self.scheduled)
        } else {
            String::new()
        };
        format!(
            "games {}{total}, {} running  {}",
            self.finished, self.running, self.scores
        )
    }
}

/// The final table after an empty line, the reasons games ended, and the SPRT's standing.
pub fn table(report: &TournamentReport) -> String {
    let width = report
        .standings
        .iter()
        .map(|s| s.name.len())
        .max()
        .unwrap_or(4)
        .max(4);
    let mut text = format!(
        "\n{:>4}  {:<width$}  {:>6}  {:>5}  {:>4}  {:>5}  {:>4}  {:>6}  Elo\n",
        "rank", "name", "points", "games", "won", "drawn", "lost", "score"
    );
    for standing in &report.standings {
        let tally = &standing.tally;
        let score = tally
            .score()
            .map_or("-".to_owned(), |score| format!("{:.1}%", 100.0 * score));
        let elo = standing.elo.map_or("-".to_owned(), |elo| elo.to_string());
        let _ = writeln!(
            text,
            "{:>4}  {:<width$}  {:>6}  {:>5}  {:>4}  {:>5}  {:>4}  {:>6}  {elo}",
            standing.rank,
            standing.name,
            standing.points,
            tally.games(),
            tally.wins,
            tally.draws,
            tally.losses,
            score
        );
    }
    if !report.reasons.is_empty() {
        let reasons: Vec<String> = report
            .reasons
            .iter()
            .map(|(reason, count)| format!("{reason} {count}"))
            .collect();
        let _ = writeln!(text, "\ngames ended by: {}", reasons.join(", "));
    }
    if let Some(sprt) = report.sprt {
        let verdict = match sprt.verdict {
            Some(hypothesis) => format!("{} accepted", hypothesis.to_string().to_uppercase()),
            None => "no decision yet".to_owned(),
        };
        let _ = writeln!(
            text,
            "SPRT: LLR {:.2} (bounds {:.2}, {:.2}), {verdict}; {}",
            sprt.llr, sprt.lower, sprt.upper, sprt.pairs
        );
    }
    text
}

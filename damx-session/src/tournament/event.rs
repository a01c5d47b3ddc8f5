//! The event stream of a match or tournament: one event a line, stable words.
//!
//! The shape follows docs/spec/tournament.md. Fields are separated by one blank; names and
//! openings are single words; where a line ends in free text (a DXP name, details), that text
//! runs to the end of the line (never a line break). Numbers are plain decimals.
//!
//! ```text
//! PARTICIPANT <id> <name> <dxp-name...>            a program identified itself (first GAMEACC)
//! GAME <n> <white> <black> <opening>               the schedule, before the first game
//! RESUMED <n> <result> <reason>                    a game taken from the results file
//! BEGIN <n> <white> <black>                        a game starts
//! MOVE <n> <ply> <move> <seconds>                  a move (only when asked for)
//! DISQUALIFICATION <n> <name> <reason> <detail...> a program forfeits the game
//! RESTART <name> <why>                             a program is started again: why the last copy
//!                                                  ended (a reason word, closed, exited, no-start)
//! RESULT <n> <2-0|1-1|0-2|*> <reason> <detail...>  a game is over
//! SCORES <name>=<points> ...                       the standings after each game (2/1/0)
//! SPRT <llr> <lower> <upper> <continue|h0|h1>      the test after each game, in SPRT mode
//! NOTE <n> <name> <text...>                         a chat, or a slip that changes nothing
//! WARNING <text...>                                 something went wrong that stops nothing
//! END <complete|interrupted|h0|h1>                 the last line
//! ```
//!
//! In SPRT mode without a number of games there is no fixed schedule: each `GAME` line comes
//! just before its `BEGIN`. The reasons are the words of [`Reason`].

use std::fmt;

use damx_rules::GameResult;

use super::stats::{Hypothesis, SprtStatus};
use crate::referee::Reason;

/// Why the series ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndKind {
    /// Every scheduled game was played.
    Complete,
    /// Stopped on request; the results file lets it resume.
    Interrupted,
    /// The SPRT accepted a hypothesis.
    Sprt(Hypothesis),
}

impl fmt::Display for EndKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EndKind::Complete => f.write_str("complete"),
            EndKind::Interrupted => f.write_str("interrupted"),
            EndKind::Sprt(hypothesis) => hypothesis.fmt(f),
        }
    }
}

/// One line of the event stream; `Display` writes it (without the line break).
#[derive(Clone, Debug, PartialEq)]
pub enum TournamentEvent {
    /// A participant identified itself by the name in its first GAMEACC.
    Participant {
        /// Its number, from 1, in the order given.
        id: usize,
        /// Its name in the series.
        name: String,
        /// Its DXP name.
        dxp_name: String,
    },
    /// A scheduled game.
    Game {
        /// Its number.
        number: u32,
        /// White's name.
        white: String,
        /// Black's name.
        black: String,
        /// The opening's label.
        opening: String,
    },
    /// A game already in the results file (not played again).
    Resumed {
        /// Its number.
        number: u32,
        /// Its result.
        result: GameResult,
        /// Why it ended.
        reason: Reason,
    },
    /// A game starts.
    Begin {
        /// Its number.
        number: u32,
        /// White's name.
        white: String,
        /// Black's name.
        black: String,
    },
    /// A move was played.
    Move {
        /// The game.
        number: u32,
        /// Plies played, this one included.
        ply: usize,
        /// The move in notation.
        text: String,
        /// The time it took, in milliseconds.
        millis: u64,
    },
    /// A program forfeits a game.
    Disqualification {
        /// The game.
        number: u32,
        /// The program's name.
        name: String,
        /// Why.
        reason: Reason,
        /// Details.
        detail: String,
    },
    /// A program is started again after its last copy failed.
    Restart {
        /// Its name.
        name: String,
        /// How the last copy ended: the reason word of the forfeit that ended it, `closed` (a
        /// stop code `1`, or closed by the referee), `exited` (it went away between games), or
        /// `no-start` (the last start failed).
        why: String,
    },
    /// A game is over.
    Result {
        /// The game.
        number: u32,
        /// Its result.
        result: GameResult,
        /// Why it ended.
        reason: Reason,
        /// Details.
        detail: String,
    },
    /// The points of every participant, in the order given.
    Scores(Vec<(String, u32)>),
    /// The SPRT after a game.
    Sprt(SprtStatus),
    /// A program chatted, or did something the referee noted without consequence (a late
    /// acknowledgement, a stray message, a take-back request).
    Note {
        /// The game.
        number: u32,
        /// The program's name.
        name: String,
        /// What, in words.
        text: String,
    },
    /// Something went wrong that stops nothing (a record that could not be written).
    Warning(String),
    /// The series is over.
    End(EndKind),
}

/// Free text made safe for the end of a line: no line breaks, no leading or trailing blanks,
/// and every other control character escaped (a program's name and chats reach the terminal
/// through it).
fn text(detail: &str) -> String {
    let joined = detail
        .split(['\n', '\r'])
        .map(str::trim)
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    crate::render::escaped(&joined).into_owned()
}

/// Writes ` <detail>` when there is a detail.
fn tail(f: &mut fmt::Formatter<'_>, detail: &str) -> fmt::Result {
    let detail = text(detail);
    if detail.is_empty() {
        Ok(())
    } else {
        write!(f, " {detail}")
    }
}

impl fmt::Display for TournamentEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TournamentEvent::Participant { id, name, dxp_name } => {
                write!(f, "PARTICIPANT {id} {name}")?;
                tail(f, dxp_name)
            }
            TournamentEvent::Game {
                number,
                white,
                black,
                opening,
            } => write!(f, "GAME {number} {white} {black} {opening}"),
            TournamentEvent::Resumed {
                number,
                result,
                reason,
            } => write!(f, "RESUMED {number} {result} {reason}"),
            TournamentEvent::Begin {
                number,
                white,
                black,
            } => write!(f, "BEGIN {number} {white} {black}"),
            TournamentEvent::Move {
                number,
                ply,
                text,
                millis,
            } => write!(
                f,
                "MOVE {number} {ply} {text} {}.{:03}",
                millis / 1000,
                millis % 1000
            ),
            TournamentEvent::Disqualification {
                number,
                name,
                reason,
                detail,
            } => {
                write!(f, "DISQUALIFICATION {number} {name} {reason}")?;
                tail(f, detail)
            }
            TournamentEvent::Restart { name, why } => write!(f, "RESTART {name} {why}"),
            TournamentEvent::Result {
                number,
                result,
                reason,
                detail,
            } => {
                write!(f, "RESULT {number} {result} {reason}")?;
                tail(f, detail)
            }
            TournamentEvent::Scores(scores) => {
                f.write_str("SCORES")?;
                for (name, points) in scores {
                    write!(f, " {name}={points}")?;
                }
                Ok(())
            }
            TournamentEvent::Sprt(status) => {
                let verdict = status
                    .verdict
                    .map_or("continue".to_owned(), |h| h.to_string());
                write!(
                    f,
                    "SPRT {:.3} {:.3} {:.3} {verdict}",
                    status.llr, status.lower, status.upper
                )
            }
            TournamentEvent::Note { number, name, text } => {
                write!(f, "NOTE {number} {name}")?;
                tail(f, text)
            }
            TournamentEvent::Warning(message) => {
                f.write_str("WARNING")?;
                tail(f, message)
            }
            TournamentEvent::End(kind) => write!(f, "END {kind}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each event is one line of the documented shape; free text loses its line breaks.
    #[test]
    fn lines() {
        let lines: Vec<String> = [
            TournamentEvent::Participant {
                id: 1,
                name: "scan".into(),
                dxp_name: "Scan 3.1".into(),
            },
            TournamentEvent::Game {
                number: 3,
                white: "a".into(),
                black: "b".into(),
                opening: "32-28,18-23".into(),
            },
            TournamentEvent::Move {
                number: 3,
                ply: 12,
                text: "28x19".into(),
                millis: 1_205,
            },
            TournamentEvent::Disqualification {
                number: 3,
                name: "b".into(),
                reason: Reason::IllegalMove,
                detail: "M0000332700:\nno legal move goes from 33 to 27".into(),
            },
            TournamentEvent::Result {
                number: 3,
                result: GameResult::WhiteWins,
                reason: Reason::IllegalMove,
                detail: String::new(),
            },
            TournamentEvent::Scores(vec![("a".into(), 2), ("b".into(), 0)]),
            TournamentEvent::Sprt(SprtStatus {
                llr: 1.5,
                lower: -2.944,
                upper: 2.944,
                verdict: None,
                pairs: Default::default(),
            }),
            TournamentEvent::End(EndKind::Sprt(Hypothesis::H1)),
        ]
        .iter()
        .map(ToString::to_string)
        .collect();
        assert_eq!(
            lines,
            [
                "PARTICIPANT 1 scan Scan 3.1",
                "GAME 3 a b 32-28,18-23",
                "MOVE 3 12 28x19 1.205",
                "DISQUALIFICATION 3 b illegal-move M0000332700: no legal move goes from 33 to 27",
                "RESULT 3 2-0 illegal-move",
                "SCORES a=2 b=0",
                "SPRT 1.500 -2.944 2.944 continue",
                "END h1",
            ]
        );
    }

    /// What a program sends (its DXP name, its chats, the frames quoted in a detail) cannot
    /// reach the terminal as control characters: they are escaped.
    #[test]
    fn peer_text_is_escaped() {
        let participant = TournamentEvent::Participant {
            id: 2,
            name: "b".into(),
            dxp_name: "\x1b]0;x\x07\x1b[2JEvil".into(),
        };
        assert_eq!(
            participant.to_string(),
            "PARTICIPANT 2 b \\x1b]0;x\\x07\\x1b[2JEvil"
        );
        let note = TournamentEvent::Note {
            number: 1,
            name: "b".into(),
            text: "chat: \tbell\x07\r\n".into(),
        };
        assert_eq!(note.to_string(), "NOTE 1 b chat: \\tbell\\x07");
    }
}

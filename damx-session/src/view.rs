//! [`GameView`]: what a front end shows of a running game, kept up to date from the session's
//! [`Event`]s: the players, the position, each side's time and the move numbers.
//!
//! ```
//! use damx_session::{Event, GameView};
//! # fn show(events: &[Event]) {
//! let mut view = None;
//! for event in events {
//!     if let Event::GameStarted(info) = event {
//!         view = Some(GameView::new(info.clone()));
//!     }
//!     if let Some(view) = &mut view {
//!         view.apply(event);
//!     }
//! }
//! # }
//! ```

use std::time::Duration;

use damx_rules::{Color, Position};

use crate::event::Event;
use crate::player::GameInfo;

/// A game as a front end shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameView {
    /// What the game is about.
    pub info: GameInfo,
    /// The position now.
    pub position: Position,
    /// Time used per colour ([`Color::index`]), as the session measured each move: the peer's
    /// time starts when our move was sent.
    pub used: [Duration; 2],
}

impl GameView {
    /// A game at its start.
    pub fn new(info: GameInfo) -> GameView {
        GameView {
            position: info.start,
            info,
            used: [Duration::ZERO; 2],
        }
    }

    /// Takes in a session event: a move played, a take-back. Other events change nothing.
    pub fn apply(&mut self, event: &Event) {
        match event {
            Event::MovePlayed(played) => {
                self.used[played.color.index()] += played.time;
                self.position = played.position;
            }
            Event::TakeBackDone { position, .. } => self.position = *position,
            _ => {}
        }
    }

    /// The time `color` has left, or (`None`) the game has no clock.
    pub fn time_left(&self, color: Color) -> Option<Duration> {
        let total = self.info.time_per_player()?;
        Some(total.saturating_sub(self.used[color.index()]))
    }

    /// The number of the move that ply `ply` (from 1) belongs to, counting from the game's
    /// start: `1` for White's first move and Black's answer; from a start with Black to move,
    /// Black's first move is `1` too.
    pub fn move_number(&self, ply: usize) -> usize {
        (ply + usize::from(self.info.start.side_to_move() == Color::Black)).div_ceil(2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Role;
    use crate::event::{MovePlayed, Side};

    /// Moves and take-backs keep the position and the clocks; move numbers count from the
    /// start, whoever moves first.
    #[test]
    fn a_view_follows_the_game() {
        let start = Position::initial();
        let info = GameInfo {
            number: 1,
            role: Role::Initiator,
            our_name: "damx".into(),
            peer_name: "peer".into(),
            our_color: Color::White,
            minutes: 1,
            move_limit: None,
            start,
        };
        let mut view = GameView::new(info.clone());
        let played = MovePlayed::opening(Side::Us);
        view.apply(&Event::MovePlayed(played.clone()));
        assert_eq!(view.position, played.position);
        assert_eq!(
            view.time_left(Color::White),
            Some(Duration::from_millis(58_500))
        );
        assert_eq!(view.time_left(Color::Black), Some(Duration::from_secs(60)));
        view.apply(&Event::TakeBackDone {
            number: 1,
            requested_by: Side::Peer,
            ply: 0,
            position: start,
        });
        assert_eq!(view.position, start);
        assert_eq!(
            (
                view.move_number(1),
                view.move_number(2),
                view.move_number(3)
            ),
            (1, 1, 2)
        );
        let black_first = GameView::new(GameInfo {
            start: start.with_side_to_move(Color::Black),
            minutes: 0,
            ..info
        });
        assert_eq!(
            (black_first.move_number(1), black_first.move_number(2)),
            (1, 2)
        );
        assert_eq!(black_first.time_left(Color::White), None);
    }
}

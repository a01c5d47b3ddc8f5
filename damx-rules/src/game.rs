//! A game: a start position, the moves played, and the end-of-game rules.
//!
//! [`Game::play`] and [`Game::undo`] are cheap (a position copy and a few counters pushed on or
//! popped off vectors that keep their capacity), so a search can use a `Game` as its move stack.
//!
//! # End of the game
//!
//! [`Game::outcome`] applies the FMJD rules (article 6), in this order:
//!
//! 1. The side to move loses if it has no piece or no legal move. This is checked first: a move
//!    that completes a draw count and leaves the opponent without a move wins.
//! 2. [`DrawReason::Repetition`]: the same position (same pieces, same side to move) for the
//!    third time. Only positions since the last man move or capture can repeat.
//! 3. [`DrawReason::Endgame16`]: three kings, two kings and a man, or a king and two men against
//!    a lone king, after each side has played 16 more moves (32 plies).
//! 4. [`DrawReason::Endgame5`]: two kings, a king and a man, or a king against a lone king, after
//!    each side has played 5 more moves (10 plies).
//! 5. [`DrawReason::KingMoves25`]: 25 moves by each side (50 plies) in which only kings moved
//!    and nothing was captured.
//!
//! Where the rules text leaves room, this implementation decides:
//!
//! - Either colour may be the side with the lone king.
//! - The 16- and 5-move counts start with the first position whose material is in the category
//!   (the position after the capture or promotion that produced it, or the start of the game
//!   if the game starts there) and go up by one each ply while the material stays in the same
//!   category. A change inside the category does not restart the count: a man promoting (king
//!   and two men becoming two kings and a man) or a capture that keeps the category (two kings
//!   against a king becoming king against king) lets the count run on.
//! - A capture that moves the game from the 16-move category to the 5-move category (the lone
//!   king takes a piece) starts the 5-move count from zero at that moment, whatever was left of
//!   the 16-move count.
//! - The 25-move count runs independently of the endgame counts; a man move or a capture
//!   resets it, also inside an endgame category.
//! - A game set up from a position starts all counts at zero (the earlier history is unknown).

use std::fmt;

use crate::moves::Move;
use crate::position::{IllegalMoveError, Position};
use crate::square::Color;

/// Plies of king moves without capture after which the game is drawn (25 moves each).
pub const KING_MOVES_DRAW_PLIES: usize = 50;
/// Plies after which the 16-move endgames are drawn.
pub const ENDGAME16_DRAW_PLIES: usize = 32;
/// Plies after which the 5-move endgames are drawn.
pub const ENDGAME5_DRAW_PLIES: usize = 10;

/// How a game ended.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Outcome {
    /// One side won.
    Win {
        /// The winner.
        winner: Color,
        /// Why.
        reason: WinReason,
    },
    /// A draw by rule.
    Draw(DrawReason),
}

impl Outcome {
    /// The winner, if the game was won.
    pub fn winner(&self) -> Option<Color> {
        match self {
            Outcome::Win { winner, .. } => Some(*winner),
            Outcome::Draw(_) => None,
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Win { winner, reason } => write!(f, "{winner} wins ({reason})"),
            Outcome::Draw(reason) => write!(f, "draw ({reason})"),
        }
    }
}

/// Why a game was won.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum WinReason {
    /// The side to move has no piece or no legal move.
    NoMoves,
}

impl fmt::Display for WinReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WinReason::NoMoves => write!(f, "the loser has no legal move"),
        }
    }
}

/// Why a game was drawn.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum DrawReason {
    /// The same position with the same side to move for the third time.
    Repetition,
    /// 25 moves each with only kings moved and no capture.
    KingMoves25,
    /// 16 moves each in three kings (or two kings and a man, or a king and two men) against a
    /// lone king.
    Endgame16,
    /// 5 moves each in two kings (or a king and a man, or a king) against a lone king.
    Endgame5,
}

impl fmt::Display for DrawReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DrawReason::Repetition => "threefold repetition",
            DrawReason::KingMoves25 => "25 king moves each without capture",
            DrawReason::Endgame16 => "16 moves each against a lone king",
            DrawReason::Endgame5 => "5 moves each against a lone king",
        })
    }
}

/// The endgame-rule category of some material.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Endgame {
    None,
    Sixteen,
    Five,
}

impl Endgame {
    fn of(position: &Position) -> Endgame {
        // Every category has four pieces or fewer; most positions are settled by that.
        if position.occupied().count() > 4 {
            return Endgame::None;
        }
        let material = |color| (position.men(color).count(), position.kings(color).count());
        let (white, black) = (material(Color::White), material(Color::Black));
        let category = |strong: (u32, u32), lone: (u32, u32)| match (lone, strong) {
            ((0, 1), (0, 3) | (1, 2) | (2, 1)) => Endgame::Sixteen,
            ((0, 1), (0, 2) | (1, 1) | (0, 1)) => Endgame::Five,
            _ => Endgame::None,
        };
        match category(white, black) {
            Endgame::None => category(black, white),
            found => found,
        }
    }
}

/// One position of the game with the counters the draw rules need.
#[derive(Clone, Copy, Debug)]
struct State {
    position: Position,
    /// Plies since the last man move or capture (or since the start).
    reversible: u32,
    endgame: Endgame,
    /// Plies since the material entered `endgame` (meaningless for `Endgame::None`).
    endgame_plies: u32,
}

impl State {
    fn start(position: Position) -> State {
        State {
            position,
            reversible: 0,
            endgame: Endgame::of(&position),
            endgame_plies: 0,
        }
    }
}

/// A game: start position, moves and positions, and the end-of-game rules.
#[derive(Clone, Debug)]
pub struct Game {
    /// `states[0]` is the start; `states[i]` the position after `moves[..i]`. Never empty.
    states: Vec<State>,
    moves: Vec<Move>,
}

impl Game {
    /// A game starting at `start`.
    pub fn new(start: Position) -> Game {
        let mut states = Vec::with_capacity(128);
        states.push(State::start(start));
        Game {
            states,
            moves: Vec::with_capacity(128),
        }
    }

    fn current(&self) -> &State {
        // `states` is never empty; the fallback is only there to avoid a panic path.
        self.states.last().unwrap_or(&self.states[0])
    }

    /// The start position.
    pub fn start(&self) -> &Position {
        &self.states[0].position
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        &self.current().position
    }

    /// The moves played so far.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// The number of moves (plies) played.
    pub fn ply(&self) -> usize {
        self.moves.len()
    }

    /// Plays `mv`, which must be legal in the current position (not checked: this is the
    /// search's hot path). Allocates nothing once the game has been this long before.
    #[inline]
    pub fn play(&mut self, mv: Move) {
        let last = *self.current();
        let position = last.position.play(&mv);
        let moves_man = last
            .position
            .men(last.position.side_to_move())
            .contains(mv.from());
        let reversible = if mv.is_capture() || moves_man {
            0
        } else {
            last.reversible.saturating_add(1)
        };
        let endgame = if mv.is_capture() || moves_man {
            Endgame::of(&position)
        } else {
            last.endgame
        };
        let endgame_plies = if endgame == last.endgame {
            last.endgame_plies.saturating_add(1)
        } else {
            0
        };
        self.states.push(State {
            position,
            reversible,
            endgame,
            endgame_plies,
        });
        self.moves.push(mv);
    }

    /// Plays `mv` if it is legal in the current position.
    pub fn try_play(&mut self, mv: Move) -> Result<(), IllegalMoveError> {
        if self.position().is_legal(&mv) {
            self.play(mv);
            Ok(())
        } else {
            Err(IllegalMoveError { mv })
        }
    }

    /// Takes back the last move and returns it (`None` at the start).
    #[inline]
    pub fn undo(&mut self) -> Option<Move> {
        let mv = self.moves.pop()?;
        self.states.pop();
        Some(mv)
    }

    /// Takes back moves until `ply` moves remain, returning to the position before move `ply`
    /// (no effect if fewer moves were played).
    pub fn truncate(&mut self, ply: usize) {
        self.moves.truncate(ply);
        self.states.truncate(ply + 1);
    }

    /// The position after `ply` moves (`Some(start)` for 0, `None` beyond the current ply).
    pub fn position_at(&self, ply: usize) -> Option<&Position> {
        self.states.get(ply).map(|state| &state.position)
    }

    /// Plies since the last man move or capture (or the start): the 25-move count, and the
    /// window in which positions can repeat.
    pub fn reversible_plies(&self) -> usize {
        self.current().reversible as usize
    }

    /// The endgame rule that applies to the current material and how many plies it has run,
    /// if one applies.
    pub fn endgame_count(&self) -> Option<(DrawReason, usize)> {
        let state = self.current();
        let plies = state.endgame_plies as usize;
        match state.endgame {
            Endgame::None => None,
            Endgame::Sixteen => Some((DrawReason::Endgame16, plies)),
            Endgame::Five => Some((DrawReason::Endgame5, plies)),
        }
    }

    /// How often the current position (pieces and side to move) has occurred, this time
    /// included.
    pub fn repetitions(&self) -> usize {
        let current = self.current();
        let now = self.states.len() - 1;
        let window = (current.reversible as usize).min(now);
        (2..=window)
            .step_by(2)
            .filter(|back| self.states[now - back].position == current.position)
            .count()
            + 1
    }

    /// The result if the game is over by the rules (see the module documentation), `None` while
    /// it goes on.
    pub fn outcome(&self) -> Option<Outcome> {
        let state = self.current();
        if !state.position.has_legal_move() {
            return Some(Outcome::Win {
                winner: !state.position.side_to_move(),
                reason: WinReason::NoMoves,
            });
        }
        if self.repetitions() >= 3 {
            return Some(Outcome::Draw(DrawReason::Repetition));
        }
        let endgame_plies = state.endgame_plies as usize;
        match state.endgame {
            Endgame::Sixteen if endgame_plies >= ENDGAME16_DRAW_PLIES => {
                return Some(Outcome::Draw(DrawReason::Endgame16));
            }
            Endgame::Five if endgame_plies >= ENDGAME5_DRAW_PLIES => {
                return Some(Outcome::Draw(DrawReason::Endgame5));
            }
            _ => {}
        }
        if state.reversible as usize >= KING_MOVES_DRAW_PLIES {
            return Some(Outcome::Draw(DrawReason::KingMoves25));
        }
        None
    }
}

impl Default for Game {
    /// A game from the initial position.
    fn default() -> Game {
        Game::new(Position::initial())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::square::Square;

    fn game(fen: &str) -> Game {
        Game::new(Position::from_fen(fen).unwrap())
    }

    /// Plays the quiet move `from-to` (must be legal).
    fn play(game: &mut Game, from: u8, to: u8) {
        let mv = game
            .position()
            .legal_moves()
            .iter()
            .copied()
            .find(|mv| mv.from().number() == from && mv.to().number() == to)
            .unwrap_or_else(|| panic!("{from}-{to} is not legal in {}", game.position()));
        game.play(mv);
    }

    /// Shuffles two kings back and forth: `rounds` times White a->b->a and Black c->d->c.
    fn shuffle(game: &mut Game, white: (u8, u8), black: (u8, u8), rounds: usize) {
        for _ in 0..rounds {
            play(game, white.0, white.1);
            play(game, black.0, black.1);
            play(game, white.1, white.0);
            play(game, black.1, black.0);
        }
    }

    /// Play, undo, truncate and position_at keep moves and positions in step.
    #[test]
    fn history_play_undo_truncate() {
        let mut g = Game::default();
        play(&mut g, 32, 28);
        play(&mut g, 19, 23);
        play(&mut g, 28, 19);
        assert_eq!(g.ply(), 3);
        assert_eq!(g.moves()[2].to_string(), "28x19");
        let before = *g.position_at(2).unwrap();
        assert_eq!(g.undo().map(|m| m.to_string()), Some("28x19".to_string()));
        assert_eq!(*g.position(), before);
        g.truncate(1);
        assert_eq!(g.ply(), 1);
        assert_eq!(g.position_at(1), Some(g.position()));
        assert_eq!(g.position_at(2), None);
        g.truncate(5);
        assert_eq!(g.ply(), 1);
        g.truncate(0);
        assert_eq!(g.position(), g.start());
        assert_eq!(g.undo(), None);
        assert!(g.try_play(g.position().legal_moves()[0]).is_ok());
        let illegal = Move::new(
            Square::new(1).unwrap(),
            Square::new(2).unwrap(),
            crate::Bitboard::EMPTY,
        );
        assert!(g.try_play(illegal).is_err());
        assert_eq!(g.ply(), 1);
    }

    /// The side to move without a piece or without a move has lost.
    #[test]
    fn no_piece_or_no_move_loses() {
        let lost = Outcome::Win {
            winner: Color::Black,
            reason: WinReason::NoMoves,
        };
        assert_eq!(game("W:W:B1").outcome(), Some(lost));
        assert_eq!(game("W:W41,46:B32,36,37").outcome(), Some(lost));
        assert_eq!(Game::default().outcome(), None);
    }

    /// The third occurrence (same side to move) draws; the second does not.
    #[test]
    fn threefold_repetition() {
        let mut g = game("W:WK47,K48:BK3,K4");
        shuffle(&mut g, (48, 43), (3, 8), 1);
        assert_eq!(g.repetitions(), 2);
        assert_eq!(g.outcome(), None);
        play(&mut g, 48, 43);
        play(&mut g, 3, 8);
        play(&mut g, 43, 48);
        assert_eq!(g.repetitions(), 2);
        assert_eq!(g.outcome(), None);
        play(&mut g, 8, 3);
        assert_eq!(g.repetitions(), 3);
        assert_eq!(g.outcome(), Some(Outcome::Draw(DrawReason::Repetition)));
        g.undo();
        assert_eq!(g.outcome(), None);
    }

    /// A quiet king move (rotating through the candidates by `ply`) after which the position
    /// has not occurred three times and the opponent has no capture.
    fn quiet_king_move(g: &Game, ply: usize) -> Move {
        let position = g.position();
        let kings = position.kings(position.side_to_move());
        let candidates: Vec<Move> = position
            .legal_moves()
            .iter()
            .copied()
            .filter(|m| !m.is_capture() && kings.contains(m.from()))
            .collect();
        (0..candidates.len())
            .map(|offset| candidates[(ply * 7 + offset) % candidates.len()])
            .find(|&mv| {
                let mut probe = g.clone();
                probe.play(mv);
                // The opponent gets no capture and keeps a reply that gives us none.
                probe.repetitions() < 3
                    && !probe.position().has_capture()
                    && probe.position().legal_moves().iter().any(|&reply| {
                        let mut next = probe.clone();
                        next.play(reply);
                        next.repetitions() < 3 && !next.position().has_capture()
                    })
            })
            .unwrap_or_else(|| panic!("no safe quiet king move in {position}"))
    }

    /// 25 king moves each without capture draw (50 plies), not 49; a man move resets the count.
    #[test]
    fn twenty_five_king_moves() {
        let mut g = game("W:WK46,K50,36:BK1,K5,15");
        assert_eq!(g.endgame_count(), None);
        for ply in 0..49 {
            let mv = quiet_king_move(&g, ply);
            g.play(mv);
            assert_eq!(g.outcome(), None, "after {} plies", ply + 1);
        }
        assert_eq!(g.reversible_plies(), 49);
        let mv = quiet_king_move(&g, 49);
        g.play(mv);
        assert_eq!(g.reversible_plies(), 50);
        assert_eq!(g.outcome(), Some(Outcome::Draw(DrawReason::KingMoves25)));
        // A man move resets the count.
        g.truncate(10);
        play(&mut g, 36, 31);
        assert_eq!(g.reversible_plies(), 0);
    }

    /// Three kings against a lone king (either colour alone): drawn after 16 moves each, that is
    /// 32 plies, and not before.
    #[test]
    fn sixteen_move_rule() {
        for fen in ["W:WK47,K48,K49:BK5", "B:WK50:BK1,K2,K3"] {
            let mut g = game(fen);
            for ply in 0..32 {
                assert_eq!(g.outcome(), None, "{fen} after {ply} plies");
                let mv = quiet_king_move(&g, ply);
                g.play(mv);
            }
            assert_eq!(
                g.outcome(),
                Some(Outcome::Draw(DrawReason::Endgame16)),
                "{fen}"
            );
        }
    }

    /// A promotion inside the 16-move category keeps its count running; a capture from the
    /// 16-move category into the 5-move one starts the 5-move count at zero, and 10 plies later
    /// the game is drawn.
    #[test]
    fn endgame_counts_across_captures_and_promotions() {
        // King and two men against a king.
        let mut g = game("W:WK50,20,24:BK1");
        assert_eq!(g.endgame_count(), Some((DrawReason::Endgame16, 0)));
        play(&mut g, 20, 14);
        play(&mut g, 1, 6);
        assert_eq!(g.endgame_count(), Some((DrawReason::Endgame16, 2)));
        play(&mut g, 14, 9);
        play(&mut g, 6, 1);
        play(&mut g, 9, 3);
        // The man promoted: two kings and a man, still the 16-move category.
        assert_eq!(
            g.position().kings(Color::White).count(),
            2,
            "{}",
            g.position()
        );
        assert_eq!(g.endgame_count(), Some((DrawReason::Endgame16, 5)));

        // Two kings and a man against a king; the man steps onto the king's diagonal.
        let mut g = game("B:WK50,K46,28:BK1");
        assert_eq!(g.endgame_count(), Some((DrawReason::Endgame16, 0)));
        play(&mut g, 1, 7);
        play(&mut g, 28, 23);
        assert_eq!(g.endgame_count(), Some((DrawReason::Endgame16, 2)));
        let take = g.position().legal_moves()[0];
        assert_eq!(
            take.captured()
                .iter()
                .map(Square::number)
                .collect::<Vec<_>>(),
            [23]
        );
        g.play(take);
        assert_eq!(g.endgame_count(), Some((DrawReason::Endgame5, 0)));
        for ply in 0..9 {
            let mv = quiet_king_move(&g, ply);
            g.play(mv);
            assert_eq!(g.outcome(), None, "after {} plies", ply + 1);
        }
        let mv = quiet_king_move(&g, 9);
        g.play(mv);
        assert_eq!(g.outcome(), Some(Outcome::Draw(DrawReason::Endgame5)));
    }

    /// A capture that keeps the 5-move category (two kings against a king becoming king
    /// against king) lets the count run on.
    #[test]
    fn capture_inside_the_five_move_category_keeps_the_count() {
        let mut g = game("B:WK7,K50:BK1");
        assert_eq!(g.endgame_count(), Some((DrawReason::Endgame5, 0)));
        let take = g.position().legal_moves()[0];
        assert!(take.is_capture());
        g.play(take);
        assert_eq!(g.endgame_count(), Some((DrawReason::Endgame5, 1)));
    }

    /// The material categories, for either colour holding the lone king.
    #[test]
    fn endgame_categories() {
        let of = |fen: &str| Endgame::of(&Position::from_fen(fen).unwrap());
        assert_eq!(of("W:WK1,K2,K3:BK50"), Endgame::Sixteen);
        assert_eq!(of("W:WK1,K2,40:BK50"), Endgame::Sixteen);
        assert_eq!(of("W:WK1,39,40:BK50"), Endgame::Sixteen);
        assert_eq!(of("W:WK50:BK1,K2,K3"), Endgame::Sixteen);
        assert_eq!(of("W:WK1,K2:BK50"), Endgame::Five);
        assert_eq!(of("W:WK1,40:BK50"), Endgame::Five);
        assert_eq!(of("W:WK1:BK50"), Endgame::Five);
        assert_eq!(of("W:WK1,K2,K3,K4:BK50"), Endgame::None);
        assert_eq!(of("W:W39,40:BK50"), Endgame::None);
        assert_eq!(of("W:WK1,K2,K3:B45"), Endgame::None);
        assert_eq!(of("W:WK1,K2:BK50,K49"), Endgame::None);
    }

    /// A side without a move loses even when a draw count has run out at the same moment.
    #[test]
    fn loss_beats_draw_count() {
        let mut g = game("W:W41,46:B32,36,37");
        g.states[0].reversible = KING_MOVES_DRAW_PLIES as u32;
        assert_eq!(g.outcome().and_then(|o| o.winner()), Some(Color::Black));
        let mut g = game("W:WK1,K2,K3:BK50");
        g.states[0].reversible = KING_MOVES_DRAW_PLIES as u32;
        assert_eq!(g.outcome(), Some(Outcome::Draw(DrawReason::KingMoves25)));
    }
}

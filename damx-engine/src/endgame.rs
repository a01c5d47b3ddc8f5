//! Knowledge for winning endings that the search adds to the evaluation: how to make
//! progress against a lone king, and how close the draw rules are.
//!
//! - Against a lone king (one king, nothing else) the stronger side wants the long diagonal
//!   46-5 for itself and the lone king off it, and the lone king's safe squares (those it can
//!   move to without being taken at once) as few as possible: that drives it to the edge and
//!   into the traps where it is caught. A lone king can only hope for a draw, so these terms
//!   only push the winning side on; the draw scaling of the evaluation stays as it is.
//! - [`rule_scale`]: a winning score is worth less the closer the 25-move rule or an endgame
//!   count is to drawing the game, so that the winning side prefers moves that reset the
//!   count (a capture, a man move) and converts before the rules bite.

use damx_rules::{Color, DrawReason, ENDGAME5_DRAW_PLIES, ENDGAME16_DRAW_PLIES, Game};
use damx_rules::{KING_MOVES_DRAW_PLIES, Position};

use crate::board::{self, LONG_DIAGONAL, RAYS};

/// For each safe square of the lone king.
const SAFE_SQUARE: i32 = 6;
/// When the lone king stands on the long diagonal.
const LONE_KING_ON_DIAGONAL: i32 = 40;
/// When the stronger side holds the long diagonal with a king and the lone king is off it.
const DIAGONAL_HELD: i32 = 40;

/// The conversion terms in centi-men from White's side, or 0 unless one side has a lone king
/// and the other at least three pieces with a king among them.
pub(crate) fn lone_king_terms(position: &Position) -> i32 {
    for strong in [Color::White, Color::Black] {
        let weak = !strong;
        let lone = position.kings(weak).bits();
        if position.men(weak).bits() != 0 || lone.count_ones() != 1 {
            continue;
        }
        let kings = position.kings(strong).bits();
        let pieces = position.pieces(strong).bits();
        if kings == 0 || pieces.count_ones() < 3 {
            return 0;
        }
        let score = against_lone_king(kings, pieces, lone);
        return match strong {
            Color::White => score,
            Color::Black => -score,
        };
    }
    0
}

/// The stronger side's terms: `kings` among its `pieces`, against the king on `lone`.
fn against_lone_king(kings: u64, pieces: u64, lone: u64) -> i32 {
    let safe = safe_squares(kings, pieces, lone).count_ones() as i32;
    let mut score = -SAFE_SQUARE * safe;
    if lone & LONG_DIAGONAL != 0 {
        score -= LONE_KING_ON_DIAGONAL;
    } else if kings & LONG_DIAGONAL != 0 {
        score += DIAGONAL_HELD;
    }
    score
}

/// The squares the king on `lone` can move to without being taken at once by one of `kings`
/// (the stronger side has `pieces`): a stronger king sees the square along a diagonal and the
/// square beyond it is empty.
fn safe_squares(kings: u64, pieces: u64, lone: u64) -> u64 {
    // The lone king's own square is empty once it has moved.
    let empty = board::ALL & !pieces;
    let mut attacked = 0u64;
    let mut rest = kings;
    while rest != 0 {
        let bit = rest.trailing_zeros();
        rest &= rest - 1;
        for (dir, rays) in RAYS.iter().enumerate() {
            let seen = ray_reach(rays[bit as usize], dir, pieces);
            attacked |= seen & beyond_is(empty, dir);
        }
    }
    let lone_bit = lone.trailing_zeros() as usize;
    let mut reach = 0u64;
    for (dir, rays) in RAYS.iter().enumerate() {
        reach |= ray_reach(rays[lone_bit], dir, pieces);
    }
    reach & !attacked
}

/// The squares of `ray` (direction `dir`, nearest first as in [`RAYS`]) up to the first
/// occupied one.
fn ray_reach(ray: u64, dir: usize, occupied: u64) -> u64 {
    let blockers = ray & occupied;
    if blockers == 0 {
        ray
    } else if dir < 2 {
        // Towards lower bits: the nearest blocker is the highest.
        ray & !((1u64 << (63 - blockers.leading_zeros() + 1)) - 1)
    } else {
        ray & ((1u64 << blockers.trailing_zeros()) - 1)
    }
}

/// The squares whose next square in direction `dir` is in `set`.
fn beyond_is(set: u64, dir: usize) -> u64 {
    // One step in `dir` from s lands in `set` exactly when s is one step back from `set`.
    match dir {
        0 => board::down_left(set),
        1 => board::down_right(set),
        2 => board::up_right(set),
        _ => board::up_left(set),
    }
}

/// Plies before a draw rule ends the game at which a winning evaluation starts to shrink.
pub(crate) const RULE_HORIZON: usize = 20;

/// The share (out of [`RULE_HORIZON`]) of an evaluation still worth playing for when a draw
/// rule is near: the full score while more than `RULE_HORIZON` plies remain under every
/// count that runs, then shrinking with the plies left.
pub(crate) fn rule_scale(game: &Game) -> i32 {
    let mut left = KING_MOVES_DRAW_PLIES.saturating_sub(game.reversible_plies());
    if let Some((reason, plies)) = game.endgame_count() {
        let limit = match reason {
            DrawReason::Endgame16 => ENDGAME16_DRAW_PLIES,
            DrawReason::Endgame5 => ENDGAME5_DRAW_PLIES,
            _ => usize::MAX,
        };
        left = left.min(limit.saturating_sub(plies));
    }
    left.min(RULE_HORIZON) as i32
}

/// `score` scaled by [`rule_scale`].
pub(crate) fn scaled_for_rules(score: i32, game: &Game) -> i32 {
    let scale = rule_scale(game);
    if scale >= RULE_HORIZON as i32 {
        score
    } else {
        // Keep a little of the score so that the better side still prefers its better lines.
        score * (scale + 2) / (RULE_HORIZON as i32 + 2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms(fen: &str) -> i32 {
        lone_king_terms(&fen.parse().unwrap())
    }

    /// Only a lone king against three pieces or more with a king counts, from White's side.
    #[test]
    fn only_against_a_lone_king() {
        assert_eq!(terms("W:WK47,K48:BK3"), 0);
        assert_eq!(terms("W:W31,32,33:BK3"), 0);
        assert_eq!(terms("W:WK47,K48,K49:BK3,14"), 0);
        assert_ne!(terms("W:WK47,K48,K49:BK3"), 0);
        assert_eq!(terms("W:WK47,K48,K49:BK3"), -terms("B:WK48:BK2,K3,K4"));
    }

    /// The lone king is better off on the long diagonal, and worse off in a corner than in the
    /// middle of the board; holding the diagonal is worth something.
    #[test]
    fn the_lone_king_wants_the_diagonal_and_room() {
        let on_diagonal = terms("W:WK1,K2,K3:BK28");
        let off = terms("W:WK1,K2,K3:BK27");
        assert!(on_diagonal < off, "{on_diagonal} {off}");
        let held = terms("W:WK46,K2,K3:BK27");
        assert!(held > off, "{held} {off}");
        let cornered = terms("W:WK46,K2,K3:BK45");
        assert!(cornered > held, "{cornered} {held}");
    }

    /// Squares the stronger kings can take on are not safe.
    #[test]
    fn attacked_squares_are_not_safe() {
        let safe = |fen: &str| {
            let position: Position = fen.parse().unwrap();
            let white = position.pieces(Color::White).bits();
            let kings = position.kings(Color::White).bits();
            safe_squares(kings, white, position.kings(Color::Black).bits()).count_ones()
        };
        // From 5 the lone king has only the long diagonal; a king on 46 takes it anywhere
        // on it.
        assert_eq!(safe("W:WK1,K2,K46:BK5"), 0);
        // Without that king, the diagonal down to 46 has nine squares, of which the kings on
        // 1, 2 and 3 take on 23, 19 and 14.
        assert_eq!(safe("W:WK1,K2,K3:BK5"), 6);
    }

    /// Far from the draw rules the score stands; near them it shrinks towards zero.
    #[test]
    fn near_a_draw_rule_scores_shrink() {
        // Five moves each: 10 plies left at the start.
        let five = Game::new("W:WK47,K48:BK3".parse().unwrap());
        assert_eq!(rule_scale(&five), 10);
        assert_eq!(scaled_for_rules(300, &five), 300 * 12 / 22);
        // Sixteen moves each: 32 plies, far enough at the start.
        let sixteen = Game::new("W:WK47,K48,K49:BK3".parse().unwrap());
        assert_eq!(rule_scale(&sixteen), 20);
        assert_eq!(scaled_for_rules(300, &sixteen), 300);
        assert_eq!(scaled_for_rules(-300, &sixteen), -300);
    }
}

//! The database in the search: scores for database positions, and the root moves that keep
//! the database value.
//!
//! A won database position scores below the range of forced wins the search proves by itself
//! (so a real win found by search still ranks above), and above every evaluation. Among won
//! positions, fewer opponent pieces, fewer own men (promoted) and a shorter distance to
//! conversion score higher, in that order, so the search makes progress: a capture or a
//! promotion into a won position always scores above staying, and within a slice the shorter
//! path to the next conversion is preferred. A slice without distances gives every won
//! position the same score, so once the game is within the databases the search goes on
//! through its wins and losses to find the progress itself.

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use damx_rules::{Game, Move, MoveList, Position};

use super::{DISTANCE_CAP, Egdb, Value, Wdl};
use crate::score::Score;

/// A database shared by engines and threads; equal when it is the same database.
#[derive(Clone)]
pub struct SharedEgdb(Arc<Egdb>);

impl SharedEgdb {
    /// Shares `egdb`.
    pub fn new(egdb: Egdb) -> SharedEgdb {
        SharedEgdb(Arc::new(egdb))
    }
}

impl Deref for SharedEgdb {
    type Target = Egdb;

    fn deref(&self) -> &Egdb {
        &self.0
    }
}

impl PartialEq for SharedEgdb {
    fn eq(&self, other: &SharedEgdb) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for SharedEgdb {}

impl fmt::Debug for SharedEgdb {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SharedEgdb")
            .field("dir", &self.0.dir())
            .field("stats", &self.0.stats())
            .finish()
    }
}

/// The best score a database win gets (a win with one opponent piece left, no own man,
/// conversion next ply).
pub const WIN_BASE: i32 = Score::MAX_EVAL - 1_000;
const PER_OPPONENT_PIECE: i32 = 400;
const PER_OWN_MAN: i32 = 200;

/// The search score of a database value of `position`, from the side to move.
pub fn score(position: &Position, value: Value) -> Score {
    let side = position.side_to_move();
    let winner = match value.wdl {
        Wdl::Draw => return Score::DRAW,
        Wdl::Win => side,
        Wdl::Loss => !side,
    };
    let plies = value.plies.unwrap_or(DISTANCE_CAP).min(DISTANCE_CAP) as i32;
    let won = WIN_BASE
        - PER_OPPONENT_PIECE * position.pieces(!winner).count() as i32
        - PER_OWN_MAN * position.men(winner).count() as i32
        - plies;
    Score(if winner == side { won } else { -won })
}

/// The databases as one search uses them.
#[derive(Clone, Copy)]
pub(crate) struct Probing<'a> {
    egdb: &'a Egdb,
    /// Whether a win or loss without a stored distance ends a line. Not when the search
    /// starts within the databases: there every won position of such a slice scores the
    /// same, and the search finds the progress (men running to promotion, captures) itself,
    /// while the root keeps only the moves that keep the win ([`filter_root`]).
    wdl_cuts: bool,
}

impl<'a> Probing<'a> {
    /// How a search of `root` uses `egdb`; `progress` is
    /// [`SearchFeatures::database_progress`](crate::SearchFeatures::database_progress).
    pub(crate) fn new(
        egdb: Option<&'a Egdb>,
        root: &Position,
        progress: bool,
    ) -> Option<Probing<'a>> {
        egdb.map(|egdb| Probing {
            egdb,
            wdl_cuts: !progress || root.occupied().count() > egdb.max_pieces(),
        })
    }

    /// The database.
    pub(crate) fn egdb(self) -> &'a Egdb {
        self.egdb
    }
}

/// The score of a quiet node from the database, if it answers, in the search's integer form.
/// Inside an endgame count of the draw rules, a win whose distance to conversion does not fit
/// in the plies left is not taken on trust (the search decides); nor, in a search that
/// started within the databases, a win without a distance ([`Probing`]).
#[inline]
pub(crate) fn probe_node(probing: Option<Probing<'_>>, game: &Game) -> Option<i32> {
    let Probing { egdb, wdl_cuts } = probing?;
    let position = game.position();
    if position.occupied().count() > egdb.max_pieces() {
        return None;
    }
    let value = egdb.probe_value(position)?;
    if value.wdl != Wdl::Draw && value.plies.is_none() && !wdl_cuts {
        return None;
    }
    if let (Some(plies), Some((reason, played))) = (value.plies, game.endgame_count()) {
        let limit = match reason {
            damx_rules::DrawReason::Endgame16 => damx_rules::ENDGAME16_DRAW_PLIES,
            damx_rules::DrawReason::Endgame5 => damx_rules::ENDGAME5_DRAW_PLIES,
            _ => usize::MAX,
        };
        if value.wdl != Wdl::Draw && played + plies as usize > limit {
            return None;
        }
    }
    Some(score(position, value).value())
}

/// Keeps only the root moves that keep the database value of `position` (all of them when the
/// database does not know the position or one of the moves). With a stored distance, a won
/// position keeps the moves of the best score.
pub(crate) fn filter_root(egdb: Option<&Egdb>, position: &Position, moves: &mut MoveList) {
    let Some(egdb) = egdb else {
        return;
    };
    if moves.is_empty() || position.occupied().count() > egdb.max_pieces() + 1 {
        return;
    }
    let mut scored: Vec<(Move, Wdl, i32)> = Vec::with_capacity(moves.len());
    for mv in moves.iter() {
        let next = position.play(mv);
        let Some(value) = egdb.value(&next) else {
            return;
        };
        scored.push((*mv, value.wdl.flip(), -score(&next, value).value()));
    }
    let Some(best) = scored.iter().map(|&(_, wdl, _)| wdl).max() else {
        return;
    };
    let keep: Vec<Move> = scored
        .into_iter()
        .filter(|&(_, wdl, _)| wdl == best)
        .map(|(mv, _, _)| mv)
        .collect();
    moves.clear();
    moves.extend(keep);
}

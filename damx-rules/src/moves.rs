//! Moves and fixed-capacity move lists.

use std::fmt;
use std::ops::{Deref, DerefMut};

use crate::bitboard::Bitboard;
use crate::square::Square;

/// A move: the piece on `from` goes to `to` and removes the pieces on `captured`.
///
/// This triple is the identity of a move in the FMJD rules: two capture paths with the same
/// triple are the same move, and two captures with the same `from` and `to` but different
/// captured sets are different moves. `from == to` is possible for a capture that comes back to
/// its start square. The landing squares of a capture are not stored; see
/// [`Position::capture_path`](crate::Position::capture_path).
///
/// `Display` writes `32-28` or `28x19` without the path; use
/// [`Position::move_text`](crate::Position::move_text) for notation that is unambiguous in its
/// position.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Move {
    // Layout bits (see `bitboard`), so that playing a move needs no table lookup.
    from: u8,
    to: u8,
    captured: Bitboard,
}

impl Move {
    /// The move from `from` to `to` capturing the pieces on `captured` (empty for a quiet move).
    /// Nothing is checked here; see [`Position::is_legal`](crate::Position::is_legal).
    pub const fn new(from: Square, to: Square, captured: Bitboard) -> Move {
        Move {
            from: from.bit() as u8,
            to: to.bit() as u8,
            captured,
        }
    }

    /// Builds a move from layout bits (the generator's hot path).
    #[inline(always)]
    pub(crate) const fn from_bits(from: u32, to: u32, captured: u64) -> Move {
        Move {
            from: from as u8,
            to: to as u8,
            captured: Bitboard::from_bits(captured),
        }
    }

    /// The start square.
    pub const fn from(&self) -> Square {
        Square::from_bit(self.from as u32)
    }

    /// The destination square.
    pub const fn to(&self) -> Square {
        Square::from_bit(self.to as u32)
    }

    /// The squares of the captured pieces (empty for a quiet move).
    pub const fn captured(&self) -> Bitboard {
        self.captured
    }

    /// Whether the move captures.
    pub const fn is_capture(&self) -> bool {
        !self.captured.is_empty()
    }

    /// How many pieces the move captures.
    pub const fn capture_count(&self) -> u32 {
        self.captured.count()
    }

    /// The layout bit of the start square.
    #[inline(always)]
    pub(crate) const fn start_bit(&self) -> u32 {
        self.from as u32
    }

    /// The layout bit of the destination square.
    #[inline(always)]
    pub(crate) const fn end_bit(&self) -> u32 {
        self.to as u32
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let separator = if self.is_capture() { 'x' } else { '-' };
        write!(f, "{}{}{}", self.from(), separator, self.to())
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")?;
        if self.is_capture() {
            write!(f, " {:?}", self.captured)?;
        }
        Ok(())
    }
}

/// A list of moves on the stack, without heap allocation.
///
/// It holds up to [`MoveList::CAPACITY`] moves. No position with at most 20 pieces a side is
/// known to come near that (the most mobile known positions have fewer than 100 moves); should
/// a constructed position ever exceed it, the moves past the capacity are dropped rather than
/// panicking.
///
/// A fresh list costs a few kilobytes of zeroing; code that generates moves millions of times
/// can keep lists and refill them with
/// [`Position::legal_moves_into`](crate::Position::legal_moves_into).
#[derive(Clone)]
pub struct MoveList {
    moves: [Move; MoveList::CAPACITY],
    len: usize,
}

impl MoveList {
    /// The most moves a list holds.
    pub const CAPACITY: usize = 256;

    /// An empty list.
    pub const fn new() -> MoveList {
        const NULL: Move = Move::from_bits(0, 0, 0);
        MoveList {
            moves: [NULL; MoveList::CAPACITY],
            len: 0,
        }
    }

    /// Appends a move; returns `false` (and drops the move) when the list is full.
    #[inline(always)]
    pub fn push(&mut self, mv: Move) -> bool {
        if let Some(slot) = self.moves.get_mut(self.len) {
            *slot = mv;
            self.len += 1;
            true
        } else {
            false
        }
    }

    /// Removes all moves.
    #[inline(always)]
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Shortens the list to `len` moves (no effect if it is shorter).
    #[inline(always)]
    pub fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
    }

    /// Removes the move at `index` by moving the last move into its place.
    pub fn swap_remove(&mut self, index: usize) -> Option<Move> {
        if index >= self.len {
            return None;
        }
        let mv = self.moves[index];
        self.len -= 1;
        self.moves[index] = self.moves[self.len];
        Some(mv)
    }
}

impl Default for MoveList {
    fn default() -> Self {
        MoveList::new()
    }
}

impl Deref for MoveList {
    type Target = [Move];

    #[inline(always)]
    fn deref(&self) -> &[Move] {
        &self.moves[..self.len]
    }
}

impl DerefMut for MoveList {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut [Move] {
        &mut self.moves[..self.len]
    }
}

impl fmt::Debug for MoveList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl PartialEq for MoveList {
    fn eq(&self, other: &MoveList) -> bool {
        **self == **other
    }
}

impl Eq for MoveList {}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = std::slice::Iter<'a, Move>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl IntoIterator for MoveList {
    type Item = Move;
    type IntoIter = MoveListIntoIter;

    fn into_iter(self) -> MoveListIntoIter {
        MoveListIntoIter {
            list: self,
            next: 0,
        }
    }
}

impl Extend<Move> for MoveList {
    fn extend<I: IntoIterator<Item = Move>>(&mut self, iter: I) {
        for mv in iter {
            if !self.push(mv) {
                break;
            }
        }
    }
}

impl FromIterator<Move> for MoveList {
    fn from_iter<I: IntoIterator<Item = Move>>(iter: I) -> MoveList {
        let mut list = MoveList::new();
        list.extend(iter);
        list
    }
}

/// The moves of a [`MoveList`] by value.
#[derive(Clone, Debug)]
pub struct MoveListIntoIter {
    list: MoveList,
    next: usize,
}

impl Iterator for MoveListIntoIter {
    type Item = Move;

    fn next(&mut self) -> Option<Move> {
        let mv = self.list.get(self.next).copied()?;
        self.next += 1;
        Some(mv)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.list.len() - self.next;
        (left, Some(left))
    }
}

impl ExactSizeIterator for MoveListIntoIter {}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(n: u8) -> Square {
        Square::new(n).unwrap()
    }

    /// A move keeps its squares and writes the short notation.
    #[test]
    fn move_parts_and_text() {
        let quiet = Move::new(sq(32), sq(28), Bitboard::EMPTY);
        assert_eq!((quiet.from(), quiet.to()), (sq(32), sq(28)));
        assert!(!quiet.is_capture());
        assert_eq!(quiet.to_string(), "32-28");
        let captured: Bitboard = [sq(23)].into_iter().collect();
        let capture = Move::new(sq(28), sq(19), captured);
        assert_eq!(capture.to_string(), "28x19");
        assert_eq!(capture.capture_count(), 1);
        assert_eq!(format!("{capture:?}"), "28x19 {23}");
    }

    /// A full list refuses more moves instead of panicking.
    #[test]
    fn list_capacity_is_respected() {
        let mv = Move::new(sq(1), sq(6), Bitboard::EMPTY);
        let mut list = MoveList::new();
        for _ in 0..MoveList::CAPACITY {
            assert!(list.push(mv));
        }
        assert!(!list.push(mv));
        assert_eq!(list.len(), MoveList::CAPACITY);
        assert_eq!(list.swap_remove(0), Some(mv));
        assert_eq!(list.into_iter().count(), MoveList::CAPACITY - 1);
    }
}

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
    /// The layout bits (see `bitboard`) of the start square (high byte) and destination (low
    /// byte), so that playing a move needs no table lookup. One field rather than two keeps a
    /// `Move` a pair of registers.
    ends: u16,
    captured: Bitboard,
}

impl Move {
    /// The move from `from` to `to` capturing the pieces on `captured` (empty for a quiet move).
    /// Nothing is checked here; see [`Position::is_legal`](crate::Position::is_legal).
    pub const fn new(from: Square, to: Square, captured: Bitboard) -> Move {
        Move {
            ends: (from.bit() as u16) << 8 | to.bit() as u16,
            captured,
        }
    }

    /// Builds a move from layout bits (the generator's hot path).
    #[inline(always)]
    pub(crate) const fn from_bits(from: u32, to: u32, captured: u64) -> Move {
        Move {
            ends: (from as u16) << 8 | (to as u16 & 0xff),
            captured: Bitboard::from_bits(captured),
        }
    }

    /// The start square.
    pub const fn from(&self) -> Square {
        Square::from_bit(self.start_bit())
    }

    /// The destination square.
    pub const fn to(&self) -> Square {
        Square::from_bit(self.end_bit())
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
        (self.ends >> 8) as u32 & 63
    }

    /// The layout bit of the destination square.
    #[inline(always)]
    pub(crate) const fn end_bit(&self) -> u32 {
        self.ends as u32 & 63
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

/// A list of moves, kept on the stack.
///
/// Up to [`MoveList::INLINE`] moves live inline, which covers every position of real games
/// (the most mobile positions found have about 130 quiet moves). Constructed positions with
/// many kings can have more legal captures than that (hundreds of distinct king captures are
/// possible); the list then moves its contents to the heap, so it never drops a move.
///
/// A fresh list costs a couple of kilobytes of zeroing; code that generates moves millions of
/// times can keep lists and refill them with
/// [`Position::legal_moves_into`](crate::Position::legal_moves_into).
#[derive(Clone)]
pub struct MoveList {
    inline: [Move; MoveList::INLINE],
    /// The number of moves. Up to `INLINE` they are in `inline`, beyond it all are in `spilled`.
    len: usize,
    /// Heap storage for a list longer than `INLINE` (stale while the list is shorter).
    spilled: Vec<Move>,
}

impl MoveList {
    /// The number of moves held without heap allocation.
    pub const INLINE: usize = 128;

    /// An empty list.
    pub const fn new() -> MoveList {
        const NULL: Move = Move::from_bits(0, 0, 0);
        MoveList {
            inline: [NULL; MoveList::INLINE],
            len: 0,
            spilled: Vec::new(),
        }
    }

    /// Appends a move.
    #[inline(always)]
    pub fn push(&mut self, mv: Move) {
        if let Some(slot) = self.inline.get_mut(self.len) {
            *slot = mv;
        } else {
            self.spill(mv);
        }
        self.len += 1;
    }

    #[cold]
    #[inline(never)]
    fn spill(&mut self, mv: Move) {
        if self.len == MoveList::INLINE {
            self.spilled.clear();
            self.spilled.extend_from_slice(&self.inline);
        }
        self.spilled.push(mv);
    }

    /// Removes all moves (keeping any heap capacity for the next fill).
    #[inline(always)]
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Shortens the list to `len` moves (no effect if it is shorter).
    pub fn truncate(&mut self, len: usize) {
        if len >= self.len {
            return;
        }
        if self.len > MoveList::INLINE {
            if len <= MoveList::INLINE {
                self.inline[..len].copy_from_slice(&self.spilled[..len]);
            } else {
                self.spilled.truncate(len);
            }
        }
        self.len = len;
    }

    /// Removes the move at `index` by moving the last move into its place.
    pub fn swap_remove(&mut self, index: usize) -> Option<Move> {
        if index >= self.len {
            return None;
        }
        let mv = self[index];
        let last = self.len - 1;
        self.swap(index, last);
        self.truncate(last);
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
        match self.inline.get(..self.len) {
            Some(moves) => moves,
            None => &self.spilled,
        }
    }
}

impl DerefMut for MoveList {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut [Move] {
        match self.inline.get_mut(..self.len) {
            Some(moves) => moves,
            None => &mut self.spilled,
        }
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
            self.push(mv);
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

    /// Past the inline capacity the list spills to the heap and keeps every move, in order;
    /// truncating back below the capacity returns to the inline storage.
    #[test]
    fn list_spills_instead_of_dropping() {
        let moves: Vec<Move> = (1..=50u8)
            .cycle()
            .take(MoveList::INLINE + 50)
            .map(|n| Move::new(sq(n), sq(n), Bitboard::EMPTY))
            .collect();
        let mut list: MoveList = moves.iter().copied().collect();
        assert_eq!(list.len(), MoveList::INLINE + 50);
        assert_eq!(&list[..], &moves[..]);
        assert_eq!(list.swap_remove(0), Some(moves[0]));
        assert_eq!(list[0], moves[MoveList::INLINE + 49]);
        list.truncate(10);
        assert_eq!(list.len(), 10);
        assert_eq!(list[1..], moves[1..10]);
        list.push(moves[3]);
        assert_eq!(list.len(), 11);
        list.clear();
        assert!(list.is_empty());
        assert_eq!(list.clone().into_iter().count(), 0);
    }
}

//! The transposition table, shared by all search threads without locks (its only `unsafe` is in
//! the memory hints of [`crate::hints`]: the prefetch of a bucket, and huge pages).
//!
//! Each entry is two `AtomicU64`: the data word and the key xor-ed with the data. A reader
//! accepts an entry only if `stored_key ^ data` gives back its key, so a write torn between two
//! threads (key of one store, data of another) reads as a miss instead of as wrong data
//! ("lockless hashing"). Entries sit in buckets of four, one cache line; the table size is a
//! power of two of buckets, chosen from a size in MiB.

use std::sync::atomic::{AtomicU64, Ordering};

use damx_rules::{Move, MoveList};

/// What a stored score says about the true score.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Bound {
    /// The true score is at most the stored one (no move reached alpha).
    Upper = 1,
    /// The true score is at least the stored one (a move reached beta).
    Lower = 2,
    /// The stored score is exact.
    Exact = 3,
}

/// A move reduced to 20 bits: start and end square numbers and 8 bits of the captured set.
/// It identifies the move among the legal moves of its position in all practical cases, and
/// [`MoveCode::find`] only ever returns a legal move.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct MoveCode(u32);

impl MoveCode {
    pub(crate) const NONE: MoveCode = MoveCode(0);

    pub(crate) fn of(mv: &Move) -> MoveCode {
        let captured = mv.captured().bits().wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 56;
        MoveCode(
            u32::from(mv.from().number())
                | u32::from(mv.to().number()) << 6
                | (captured as u32) << 12,
        )
    }

    /// The index of the move with this code in `moves`, if any.
    pub(crate) fn find(self, moves: &MoveList) -> Option<usize> {
        if self == MoveCode::NONE {
            return None;
        }
        moves.iter().position(|mv| MoveCode::of(mv) == self)
    }
}

/// One probed entry.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Entry {
    pub(crate) mv: MoveCode,
    /// Score in the table's convention (win distances from this node, see the search).
    pub(crate) score: i32,
    pub(crate) depth: i32,
    pub(crate) bound: Bound,
}

// The data word: move code in bits 0..20, score (i16) in 20..36, depth (u8) in 36..44, bound in
// 44..46, generation in 46..52.
const MOVE_BITS: u64 = (1 << 20) - 1;
const SCORE_SHIFT: u32 = 20;
const DEPTH_SHIFT: u32 = 36;
const BOUND_SHIFT: u32 = 44;
const GENERATION_SHIFT: u32 = 46;
const GENERATION_MASK: u64 = 63;

fn pack(entry: &Entry, generation: u8) -> u64 {
    u64::from(entry.mv.0) & MOVE_BITS
        | u64::from(entry.score.clamp(-32_767, 32_767) as i16 as u16) << SCORE_SHIFT
        | (entry.depth.clamp(0, 255) as u64) << DEPTH_SHIFT
        | (entry.bound as u64) << BOUND_SHIFT
        | (u64::from(generation) & GENERATION_MASK) << GENERATION_SHIFT
}

fn unpack(data: u64) -> Option<Entry> {
    let bound = match data >> BOUND_SHIFT & 3 {
        1 => Bound::Upper,
        2 => Bound::Lower,
        3 => Bound::Exact,
        _ => return None,
    };
    Some(Entry {
        mv: MoveCode((data & MOVE_BITS) as u32),
        score: i32::from((data >> SCORE_SHIFT) as u16 as i16),
        depth: (data >> DEPTH_SHIFT & 255) as i32,
        bound,
    })
}

fn generation_of(data: u64) -> u8 {
    (data >> GENERATION_SHIFT & GENERATION_MASK) as u8
}

#[derive(Default)]
struct Slot {
    key_xor_data: AtomicU64,
    data: AtomicU64,
}

const BUCKET_SLOTS: usize = 4;

#[derive(Default)]
#[repr(align(64))]
struct Bucket {
    slots: [Slot; BUCKET_SLOTS],
}

/// The shared transposition table.
pub(crate) struct TranspositionTable {
    buckets: Box<[Bucket]>,
    generation: u8,
    /// Whether the system refused the size asked for (the table is smaller).
    shrunk: bool,
}

impl TranspositionTable {
    /// A table of at most `mib` MiB (at least one bucket). Where the system refuses that much
    /// memory, half as much, and so on: a search with a smaller table beats a process aborted
    /// ([`TranspositionTable::bytes`] says what it got).
    pub(crate) fn new(mib: usize) -> TranspositionTable {
        let bytes = mib.saturating_mul(1 << 20);
        let wanted = (bytes / std::mem::size_of::<Bucket>()).max(1);
        // The largest power of two that fits, so that the index is a mask.
        let full = 1usize << (usize::BITS - 1 - wanted.leading_zeros());
        let mut count = full;
        let mut buckets = Vec::new();
        while buckets.try_reserve_exact(count).is_err() && count > 1 {
            count /= 2;
        }
        crate::hints::advise_huge_pages(buckets.spare_capacity_mut());
        buckets.resize_with(count, Bucket::default);
        TranspositionTable {
            buckets: buckets.into_boxed_slice(),
            generation: 0,
            shrunk: count < full,
        }
    }

    /// Whether the system refused the size asked for, so that the table is smaller.
    pub(crate) fn shrunk(&self) -> bool {
        self.shrunk
    }

    /// The size in bytes.
    pub(crate) fn bytes(&self) -> usize {
        self.buckets.len() * std::mem::size_of::<Bucket>()
    }

    /// Empties the table.
    pub(crate) fn clear(&mut self) {
        for bucket in self.buckets.iter_mut() {
            *bucket = Bucket::default();
        }
        self.generation = 0;
    }

    /// Starts a new search: entries of earlier searches become the first to be replaced.
    pub(crate) fn new_search(&mut self) {
        self.generation = (self.generation + 1) & GENERATION_MASK as u8;
    }

    fn bucket(&self, key: u64) -> &Bucket {
        // The high bits choose the bucket; the full key is checked in the slot.
        let index = ((u128::from(key) * self.buckets.len() as u128) >> 64) as usize;
        &self.buckets[index]
    }

    /// Asks for the cache line of `key`'s bucket, so that it is on its way before the probe
    /// needs it; several asked for together overlap their memory latencies.
    #[inline]
    pub(crate) fn touch(&self, key: u64) {
        crate::hints::prefetch(self.bucket(key));
    }

    /// The entry stored for `key`, if any.
    pub(crate) fn probe(&self, key: u64) -> Option<Entry> {
        self.bucket(key).slots.iter().find_map(|slot| {
            let data = slot.data.load(Ordering::Relaxed);
            let check = slot.key_xor_data.load(Ordering::Relaxed);
            if check ^ data == key && data != 0 {
                unpack(data)
            } else {
                None
            }
        })
    }

    /// Stores `entry` for `key`, replacing the same key's entry or the least valuable one of
    /// its bucket (oldest generation first, then shallowest).
    pub(crate) fn store(&self, key: u64, entry: Entry) {
        let bucket = self.bucket(key);
        let mut victim = &bucket.slots[0];
        let mut victim_worth = i32::MAX;
        for slot in &bucket.slots {
            let data = slot.data.load(Ordering::Relaxed);
            let check = slot.key_xor_data.load(Ordering::Relaxed);
            if check ^ data == key {
                // The same position: keep a deeper exact result unless this one is as deep,
                // and keep its move if this search has none.
                if let Some(old) = unpack(data) {
                    let mut entry = entry;
                    if entry.mv == MoveCode::NONE {
                        entry.mv = old.mv;
                    }
                    if entry.depth + 2 < old.depth
                        && generation_of(data) == self.generation
                        && old.bound == Bound::Exact
                    {
                        return;
                    }
                    write(slot, key, pack(&entry, self.generation));
                    return;
                }
                victim = slot;
                break;
            }
            let worth = if data == 0 {
                i32::MIN
            } else {
                let age = i32::from(self.generation.wrapping_sub(generation_of(data)) & 63);
                (data >> DEPTH_SHIFT & 255) as i32 - 8 * age
            };
            if worth < victim_worth {
                victim_worth = worth;
                victim = slot;
            }
        }
        write(victim, key, pack(&entry, self.generation));
    }

    /// The share of entries written by the current search, in per mille (sampled).
    pub(crate) fn permille_full(&self) -> u32 {
        let sample = self.buckets.len().min(250);
        let used = self.buckets[..sample]
            .iter()
            .flat_map(|bucket| &bucket.slots)
            .filter(|slot| {
                let data = slot.data.load(Ordering::Relaxed);
                data != 0 && generation_of(data) == self.generation
            })
            .count();
        (used * 1000 / (sample * BUCKET_SLOTS)) as u32
    }
}

fn write(slot: &Slot, key: u64, data: u64) {
    slot.key_xor_data.store(key ^ data, Ordering::Relaxed);
    slot.data.store(data, Ordering::Relaxed);
}

#[cfg(test)]
mod tests {
    use super::*;
    use damx_rules::Position;

    fn entry(score: i32, depth: i32, bound: Bound) -> Entry {
        Entry {
            mv: MoveCode::NONE,
            score,
            depth,
            bound,
        }
    }

    /// What is stored comes back unchanged, including negative scores and the move.
    #[test]
    fn store_probe_round_trip() {
        let tt = TranspositionTable::new(1);
        assert_eq!(tt.bytes(), 1 << 20);
        let moves = Position::initial().legal_moves();
        let stored = Entry {
            mv: MoveCode::of(&moves[4]),
            score: -29_950,
            depth: 17,
            bound: Bound::Lower,
        };
        tt.store(0xdead_beef_1234_5678, stored);
        assert_eq!(tt.probe(0xdead_beef_1234_5678), Some(stored));
        assert_eq!(stored.mv.find(&moves), Some(4));
        assert_eq!(tt.probe(0xdead_beef_1234_5679), None);
    }

    /// Keys that share a bucket do not see each other's entries, and a fifth key evicts one
    /// entry instead of corrupting any.
    #[test]
    fn colliding_keys_stay_apart() {
        let tt = TranspositionTable::new(1);
        // Same high bits (same bucket), different low bits.
        let keys: Vec<u64> = (0..5).map(|i| 0xabcd_0000_0000_0000 | i).collect();
        for (i, &key) in keys.iter().enumerate() {
            tt.store(key, entry(i as i32, 10 + i as i32, Bound::Exact));
        }
        let mut found = 0;
        for (i, &key) in keys.iter().enumerate() {
            if let Some(hit) = tt.probe(key) {
                assert_eq!(hit, entry(i as i32, 10 + i as i32, Bound::Exact));
                found += 1;
            }
        }
        assert_eq!(found, BUCKET_SLOTS);
        // The shallowest entry of the current generation went first.
        assert_eq!(tt.probe(keys[0]), None);
    }

    /// A torn write (the key word of one store with the data word of another) reads as a miss.
    #[test]
    fn torn_write_is_a_miss() {
        let tt = TranspositionTable::new(1);
        let key = 0x1234_5678_9abc_def0;
        tt.store(key, entry(5, 3, Bound::Exact));
        let slot = tt
            .bucket(key)
            .slots
            .iter()
            .find(|slot| slot.data.load(Ordering::Relaxed) != 0)
            .unwrap();
        slot.data
            .store(pack(&entry(-700, 9, Bound::Upper), 0), Ordering::Relaxed);
        assert_eq!(tt.probe(key), None);
    }

    /// A shallower result for the same position does not replace a deeper exact one of the same
    /// search, but a new search's result does.
    #[test]
    fn replacement_keeps_deep_exact_entries() {
        let mut tt = TranspositionTable::new(1);
        let key = 42 << 40;
        tt.store(key, entry(100, 12, Bound::Exact));
        tt.store(key, entry(-5, 2, Bound::Upper));
        assert_eq!(tt.probe(key).map(|e| e.depth), Some(12));
        tt.new_search();
        tt.store(key, entry(-5, 2, Bound::Upper));
        assert_eq!(tt.probe(key).map(|e| e.depth), Some(2));
        tt.clear();
        assert_eq!(tt.probe(key), None);
    }
}

//! Who plays whom, with which colours and which opening, in which order.
//!
//! The schedule is a pure function of the format, the number of participants, the openings
//! and the number of games, so that game numbers are stable from one run to the next (resume
//! relies on it). Games are laid out in rounds of opening pairs: in round `k` every pairing
//! plays opening `k` (cycling through the list) twice, first with its first participant white,
//! then with colours swapped. A match is one pairing; in SPRT mode it has no end.

use super::Opening;

/// How participants are paired.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Two participants (the first is the one under test, for the SPRT and the Elo).
    Match,
    /// Every participant against every other.
    RoundRobin,
    /// The first `seeds` participants each against every other participant (not against each
    /// other).
    Gauntlet {
        /// How many participants are seeds (at least 1).
        seeds: usize,
    },
}

impl Format {
    /// This format with `seeds` seeds if it is a gauntlet; any other as it is.
    #[must_use]
    pub fn seeded(self, seeds: usize) -> Format {
        match self {
            Format::Gauntlet { .. } => Format::Gauntlet { seeds },
            other => other,
        }
    }
}

/// One game of the schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ScheduledGame {
    /// Its number, from 1.
    pub number: u32,
    /// The index of the white participant.
    pub white: usize,
    /// The index of the black participant.
    pub black: usize,
    /// The index of its opening.
    pub opening: usize,
}

impl ScheduledGame {
    /// Whether participant `id` plays in it.
    pub fn involves(&self, id: usize) -> bool {
        self.white == id || self.black == id
    }
}

/// The games of a match or tournament.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schedule {
    pairings: Vec<(usize, usize)>,
    openings: usize,
    /// Games per pairing (`None`: without end).
    per_pairing: Option<u32>,
}

impl Schedule {
    /// The schedule for `participants` in `format`, with `openings` openings and `games`
    /// games per pairing (for a match: in all; `None`: without end).
    pub fn new(
        format: Format,
        participants: usize,
        openings: usize,
        games: Option<u32>,
    ) -> Schedule {
        let pairings = match format {
            Format::Match => vec![(0, 1)],
            Format::RoundRobin => (0..participants)
                .flat_map(|a| (a + 1..participants).map(move |b| (a, b)))
                .collect(),
            Format::Gauntlet { seeds } => (0..seeds.min(participants))
                .flat_map(|seed| (seeds..participants).map(move |other| (seed, other)))
                .collect(),
        };
        Schedule {
            pairings,
            openings: openings.max(1),
            per_pairing: games,
        }
    }

    /// The pairings, in order.
    pub fn pairings(&self) -> &[(usize, usize)] {
        &self.pairings
    }

    /// The number of games, `None` without end.
    pub fn total(&self) -> Option<u32> {
        self.per_pairing
            .map(|games| games.saturating_mul(self.pairings.len() as u32))
    }

    /// Game `number` (from 1), or `None` past the end.
    pub fn game(&self, number: u32) -> Option<ScheduledGame> {
        let pairings = self.pairings.len() as u64;
        if number == 0 || pairings == 0 || self.total().is_some_and(|total| number > total) {
            return None;
        }
        let index = u64::from(number - 1);
        let round_size = 2 * pairings;
        let full_rounds = self
            .per_pairing
            .map_or(u64::MAX, |games| u64::from(games / 2));
        let (round, pairing, swapped) = if index / round_size < full_rounds {
            (index / round_size, (index % round_size) / 2, index % 2 == 1)
        } else {
            // The last round of an odd number of games per pairing: one game each.
            (full_rounds, index - full_rounds * round_size, false)
        };
        let (first, second) = self.pairings[pairing as usize];
        let (white, black) = if swapped {
            (second, first)
        } else {
            (first, second)
        };
        Some(ScheduledGame {
            number,
            white,
            black,
            opening: (round % self.openings as u64) as usize,
        })
    }

    /// Every game, in order (empty without end).
    pub fn games(&self) -> impl Iterator<Item = ScheduledGame> + '_ {
        let total = self.total().unwrap_or(0);
        (1..=total).filter_map(|number| self.game(number))
    }
}

/// `openings` in an order shuffled by `seed` (the same seed, the same order).
pub fn shuffled(mut openings: Vec<Opening>, seed: u64) -> Vec<Opening> {
    let mut state = seed;
    let mut next = || {
        // splitmix64
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    for i in (1..openings.len()).rev() {
        let j = (next() % (i as u64 + 1)) as usize;
        openings.swap(i, j);
    }
    openings
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Seeds are a gauntlet's; the other formats keep none.
    #[test]
    fn only_a_gauntlet_is_seeded() {
        let gauntlet = Format::Gauntlet { seeds: 1 };
        assert_eq!(gauntlet.seeded(3), Format::Gauntlet { seeds: 3 });
        assert_eq!(Format::RoundRobin.seeded(3), Format::RoundRobin);
        assert_eq!(Format::Match.seeded(3), Format::Match);
    }

    /// A match alternates colours and gives each opening to two games in a row.
    #[test]
    fn a_match_plays_each_opening_with_both_colours() {
        let schedule = Schedule::new(Format::Match, 2, 3, Some(7));
        let games: Vec<(usize, usize, usize)> = schedule
            .games()
            .map(|g| (g.white, g.black, g.opening))
            .collect();
        assert_eq!(
            games,
            [
                (0, 1, 0),
                (1, 0, 0),
                (0, 1, 1),
                (1, 0, 1),
                (0, 1, 2),
                (1, 0, 2),
                (0, 1, 0)
            ]
        );
        assert_eq!(schedule.game(8), None);
        assert_eq!(schedule.game(0), None);
        let endless = Schedule::new(Format::Match, 2, 3, None);
        assert_eq!(endless.total(), None);
        assert_eq!(endless.game(1_000_001).map(|g| g.white), Some(0));
    }

    /// A round robin pairs everyone once per round; each pair of games swaps colours; the
    /// count is pairings times games per pairing.
    #[test]
    fn round_robin_layout() {
        let schedule = Schedule::new(Format::RoundRobin, 4, 2, Some(4));
        assert_eq!(schedule.pairings().len(), 6);
        assert_eq!(schedule.total(), Some(24));
        let games: Vec<ScheduledGame> = schedule.games().collect();
        assert_eq!(games.len(), 24);
        for pair in games.chunks(2) {
            assert_eq!(
                (pair[0].white, pair[0].black),
                (pair[1].black, pair[1].white)
            );
            assert_eq!(pair[0].opening, pair[1].opening);
        }
        assert!(games[..12].iter().all(|g| g.opening == 0));
        assert!(games[12..].iter().all(|g| g.opening == 1));
        for a in 0..4 {
            assert_eq!(games.iter().filter(|g| g.involves(a)).count(), 12);
            assert_eq!(games.iter().filter(|g| g.white == a).count(), 6);
        }
        // An odd number of games per pairing ends with one game each.
        let odd = Schedule::new(Format::RoundRobin, 3, 5, Some(3));
        let last: Vec<ScheduledGame> = odd.games().skip(6).collect();
        assert_eq!(last.len(), 3);
        assert!(last.iter().all(|g| g.opening == 1 && g.white < g.black));
    }

    /// A gauntlet pairs the seeds with everyone else only.
    #[test]
    fn gauntlet_layout() {
        let schedule = Schedule::new(Format::Gauntlet { seeds: 1 }, 4, 1, Some(2));
        assert_eq!(schedule.pairings(), [(0, 1), (0, 2), (0, 3)]);
        assert!(schedule.games().all(|g| g.involves(0)));
        let two = Schedule::new(Format::Gauntlet { seeds: 2 }, 4, 1, Some(2));
        assert_eq!(two.pairings(), [(0, 2), (0, 3), (1, 2), (1, 3)]);
    }

    /// Shuffling keeps every opening and depends only on the seed.
    #[test]
    fn shuffling_is_reproducible() {
        let openings: Vec<Opening> = (0..20)
            .map(|i| Opening {
                label: i.to_string(),
                start: None,
            })
            .collect();
        let a = shuffled(openings.clone(), 7);
        assert_eq!(a, shuffled(openings.clone(), 7));
        assert_ne!(a, shuffled(openings.clone(), 8));
        assert_ne!(a, openings);
        let mut labels: Vec<String> = a.into_iter().map(|o| o.label).collect();
        labels.sort_by_key(|l| l.parse::<u32>().unwrap());
        assert_eq!(labels, (0..20).map(|i| i.to_string()).collect::<Vec<_>>());
    }
}

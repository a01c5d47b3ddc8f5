//! The words a person chooses a setting by, each with what it means: the values of a front
//! end's options (`--color`, `--role`, `--claims`, `--adjudicate`, `--eval`, `--format`), read and listed the same
//! way by every front end through [`Words`], so that a GUI's list of choices and a command
//! line's `--help` say the same.
//!
//! ```
//! use damx_session::words::Words;
//! use damx_session::referee::ClaimPolicy;
//!
//! assert_eq!(ClaimPolicy::from_word("Trust"), Some(ClaimPolicy::Trust));
//! assert_eq!(ClaimPolicy::Strict.word(), "strict");
//! let listed: Vec<&str> = ClaimPolicy::WORDS.iter().map(|(word, _, _)| *word).collect();
//! assert_eq!(listed, ["adjudicate", "trust", "strict"]);
//! ```

use std::fmt;

use damx_engine::EvalKind;
use damx_rules::Color;

use crate::config::{Role, SeriesColors};
use crate::referee::{AdjudicationKind, ClaimPolicy};
use crate::tournament::Format;

/// A setting chosen by a word.
pub trait Words: Sized + Copy + PartialEq + 'static {
    /// Each word, what it means (a phrase for a list of choices), and the value it stands for.
    const WORDS: &'static [(&'static str, &'static str, Self)];

    /// The value `word` stands for, in any case and with blanks around it.
    fn from_word(word: &str) -> Option<Self> {
        let word = word.trim();
        let found = Self::WORDS
            .iter()
            .find(|(w, ..)| w.eq_ignore_ascii_case(word));
        found.map(|&(.., value)| value)
    }

    /// The word of this value.
    fn word(self) -> &'static str {
        let found = Self::WORDS.iter().find(|(.., value)| *value == self);
        found.map_or("", |(word, ..)| word)
    }
}

impl Words for SeriesColors {
    const WORDS: &'static [(&'static str, &'static str, Self)] = &[
        (
            "white",
            "White in every game",
            SeriesColors::Fixed(Color::White),
        ),
        (
            "black",
            "Black in every game",
            SeriesColors::Fixed(Color::Black),
        ),
        (
            "alternate",
            "White in the first game, then alternating",
            SeriesColors::Alternate(Color::White),
        ),
    ];
}

impl Words for Role {
    const WORDS: &'static [(&'static str, &'static str, Self)] = &[
        (
            "initiator",
            "We ask for the game (GAMEREQ): colour, clock and start are ours to choose",
            Role::Initiator,
        ),
        (
            "follower",
            "We accept the game the other program asks for",
            Role::Follower,
        ),
    ];
}

impl Words for ClaimPolicy {
    const WORDS: &'static [(&'static str, &'static str, Self)] = &[
        (
            "adjudicate",
            "Adjudicate the position, as at the move cap",
            ClaimPolicy::Adjudicate,
        ),
        (
            "trust",
            "Take a draw or win claim at its word",
            ClaimPolicy::Trust,
        ),
        (
            "strict",
            "A claim the rules do not back loses for the claimant",
            ClaimPolicy::Strict,
        ),
    ];
}

impl Words for AdjudicationKind {
    const WORDS: &'static [(&'static str, &'static str, Self)] = &[
        (
            "engine",
            "The built-in engine's search (--adjudicate-depth, --adjudicate-score)",
            AdjudicationKind::Engine,
        ),
        (
            "material",
            "The endgame rules and the material count (--adjudicate-margin; a king counts 3 men)",
            AdjudicationKind::Material,
        ),
        ("draw", "Always a draw", AdjudicationKind::Draw),
        (
            "egdb",
            "The endgame databases (--adjudicate-egdb): a game ends as soon as it reaches a quiet \
             position within them; outside them, the engine's search with them",
            AdjudicationKind::Egdb,
        ),
    ];
}

/// The formats of a tournament (a match is a command, or a setting, of its own); a gauntlet's
/// word stands for one seed, [`Format::seeded`] gives it more.
impl Words for Format {
    const WORDS: &'static [(&'static str, &'static str, Self)] = &[
        (
            "round-robin",
            "Everyone against everyone",
            Format::RoundRobin,
        ),
        (
            "gauntlet",
            "The first --seeds participants against all the others",
            Format::Gauntlet { seeds: 1 },
        ),
    ];
}

impl Words for EvalKind {
    const WORDS: &'static [(&'static str, &'static str, Self)] = &[
        (
            "hand",
            "Hand-written features with tuned weights",
            EvalKind::Hand,
        ),
        (
            "pattern",
            "Pattern tables fitted to game results",
            EvalKind::Pattern,
        ),
    ];
}

impl fmt::Display for ClaimPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.word())
    }
}

impl fmt::Display for AdjudicationKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.word())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every word reads back as its value and every value writes its word; other words are
    /// nothing.
    #[test]
    fn words_read_and_write_back() {
        fn round_trip<T: Words + fmt::Debug>() {
            for &(word, meaning, value) in T::WORDS {
                assert_eq!(T::from_word(&word.to_uppercase()), Some(value), "{word}");
                assert_eq!(value.word(), word);
                assert!(meaning.starts_with(char::is_uppercase), "{meaning}");
            }
            assert_eq!(T::from_word("none of these"), None);
        }
        round_trip::<SeriesColors>();
        round_trip::<Role>();
        round_trip::<ClaimPolicy>();
        round_trip::<AdjudicationKind>();
        round_trip::<EvalKind>();
        round_trip::<Format>();
        assert_eq!(ClaimPolicy::default().to_string(), "adjudicate");
    }
}

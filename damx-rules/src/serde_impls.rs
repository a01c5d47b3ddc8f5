//! Serde support (feature `serde`): squares as numbers, square sets as lists of numbers,
//! moves as `{from, to, captured}`, positions as FEN strings, results as PDN tokens; the
//! plain enums derive theirs.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::{Bitboard, Color, DrawReason, GameResult, Move, Outcome, Position, Square, WinReason};

impl Serialize for Square {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u8(self.number())
    }
}

impl<'de> Deserialize<'de> for Square {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let number = u8::deserialize(deserializer)?;
        Square::new(number)
            .ok_or_else(|| D::Error::custom(format!("square {number} is outside 1..=50")))
    }
}

impl Serialize for Bitboard {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for Bitboard {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(Vec::<Square>::deserialize(deserializer)?
            .into_iter()
            .collect())
    }
}

#[derive(Serialize, Deserialize)]
struct MoveFields {
    from: Square,
    to: Square,
    captured: Bitboard,
}

impl Serialize for Move {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        MoveFields {
            from: self.from(),
            to: self.to(),
            captured: self.captured(),
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Move {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let fields = MoveFields::deserialize(deserializer)?;
        Ok(Move::new(fields.from, fields.to, fields.captured))
    }
}

impl Serialize for Position {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.to_fen())
    }
}

impl<'de> Deserialize<'de> for Position {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let fen = String::deserialize(deserializer)?;
        Position::from_fen(&fen).map_err(D::Error::custom)
    }
}

impl Serialize for GameResult {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for GameResult {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let token = String::deserialize(deserializer)?;
        GameResult::from_token(&token)
            .ok_or_else(|| D::Error::custom(format!("unknown result {token:?}")))
    }
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum OutcomeFields {
    Win { winner: Color, reason: WinReason },
    Draw { reason: DrawReason },
}

impl Serialize for Outcome {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match *self {
            Outcome::Win { winner, reason } => OutcomeFields::Win { winner, reason },
            Outcome::Draw(reason) => OutcomeFields::Draw { reason },
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Outcome {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(match OutcomeFields::deserialize(deserializer)? {
            OutcomeFields::Win { winner, reason } => Outcome::Win { winner, reason },
            OutcomeFields::Draw { reason } => Outcome::Draw(reason),
        })
    }
}

//! JSON-friendly serde support for messages (feature `serde`); see the crate docs for the
//! shape. Deserialising goes through the same checks as decoding, so it never yields a
//! message that cannot be encoded.

use serde::de::{self, Deserialize, Deserializer};
use serde::ser::{Serialize, Serializer};

use crate::field::{Captured, Color, Minutes, MoveLimit, Name, Position, ProtocolVersion, Square};
use crate::message::{Chat, GameReq, Start};

impl Serialize for Name {
    /// The name without its padding.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.trimmed())
    }
}

impl<'de> Deserialize<'de> for Name {
    /// Anything a peer may send ([`Name::from_received`]), padded again to 32 bytes.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        Name::from_received(name.as_bytes()).map_err(de::Error::custom)
    }
}

impl Serialize for Position {
    /// The 50 wire letters.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Position {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let letters = String::deserialize(deserializer)?;
        letters.parse().map_err(de::Error::custom)
    }
}

impl Serialize for Captured {
    /// The squares in the order sent.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.as_slice())
    }
}

impl<'de> Deserialize<'de> for Captured {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let squares = Vec::<Square>::deserialize(deserializer)?;
        Captured::new(&squares).map_err(de::Error::custom)
    }
}

/// A CHAT's fields.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ChatFields {
    text: String,
}

impl Serialize for Chat {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        ChatFields {
            text: self.text().to_owned(),
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Chat {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let fields = ChatFields::deserialize(deserializer)?;
        Chat::new(fields.text).map_err(de::Error::custom)
    }
}

/// A GAMEREQ's fields, flat: `to_move` and `position` both present for start `B`, both absent
/// for start `A`.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct GameReqFields {
    version: ProtocolVersion,
    initiator: Name,
    follower_color: Color,
    minutes: Minutes,
    move_limit: MoveLimit,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    to_move: Option<Color>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    position: Option<Position>,
}

impl Serialize for GameReq {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let (to_move, position) = match self.start {
            Start::Initial => (None, None),
            Start::Position { to_move, position } => (Some(to_move), Some(position)),
        };
        GameReqFields {
            version: self.version,
            initiator: self.initiator,
            follower_color: self.follower_color,
            minutes: self.minutes,
            move_limit: self.move_limit,
            to_move,
            position,
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for GameReq {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let fields = GameReqFields::deserialize(deserializer)?;
        let start = match (fields.to_move, fields.position) {
            (None, None) => Start::Initial,
            (Some(to_move), Some(position)) => Start::Position { to_move, position },
            _ => {
                return Err(de::Error::custom(
                    "a gamereq has both `to_move` and `position` (start B) or neither (start A)",
                ));
            }
        };
        Ok(GameReq {
            version: fields.version,
            initiator: fields.initiator,
            follower_color: fields.follower_color,
            minutes: fields.minutes,
            move_limit: fields.move_limit,
            start,
        })
    }
}

//! JSON-friendly serde support for messages (feature `serde`); see the crate docs for the
//! shape. Deserialising goes through the same checks as decoding, so it never yields a
//! message that cannot be encoded.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer};
use serde::ser::{Serialize, Serializer};

use crate::field::{Captured, Color, Minutes, MoveLimit, Name, Position, ProtocolVersion, Square};
use crate::message::{Chat, GameReq, Message, Start};

impl Message {
    /// The message of one JSON object in the shape of the crate docs (a transcript's line,
    /// what `damx decode` writes), checked as strictly as [`decode`](crate::decode) checks bytes.
    ///
    /// ```
    /// let json = br#"{"type":"move","seconds":12,"from":6,"to":11,"captured":[]}"#;
    /// let message = damx_wire::Message::from_json(json)?;
    /// assert_eq!(message.to_line(), Some(b"M0012061100\n".to_vec()));
    /// # Ok::<(), damx_wire::JsonError>(())
    /// ```
    ///
    /// # Errors
    /// A [`JsonError`] if the text is not JSON or not a valid message.
    pub fn from_json(json: &[u8]) -> Result<Message, JsonError> {
        serde_json::from_slice(json).map_err(JsonError)
    }
}

/// Why a JSON object is not a message ([`Message::from_json`]): serde_json's message with its
/// position moved to the end, `missing field `to` (column 40)`. A position on line 1, the only
/// line of most objects, is given by its column alone; a field checked after the object was
/// read has no position.
#[derive(Debug)]
pub struct JsonError(serde_json::Error);

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (error, line, column) = (&self.0, self.0.line(), self.0.column());
        let text = error.to_string();
        match text.strip_suffix(&format!(" at line {line} column {column}")) {
            Some(message) if line == 1 => write!(f, "{message} (column {column})"),
            Some(message) => write!(f, "{message} (line {line} column {column} of the item)"),
            None => f.write_str(&text),
        }
    }
}

impl std::error::Error for JsonError {}

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

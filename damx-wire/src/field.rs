//! The field types of DXP messages: each one holds only values its wire field can carry.

use std::fmt;
use std::str::FromStr;

/// Why a value cannot become a field of a DXP message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ValueError {
    /// A number outside the range its fixed-width field can carry.
    OutOfRange {
        /// What the number is (`"square"`, `"seconds"`, ...).
        what: &'static str,
        /// The number given.
        value: u32,
        /// The smallest allowed value.
        min: u16,
        /// The largest allowed value.
        max: u16,
    },
    /// A name with no characters.
    EmptyName,
    /// A name longer than 32 bytes.
    NameTooLong {
        /// Its length in bytes.
        len: usize,
    },
    /// A name that starts with a blank (the spec says it should not).
    NameStartsWithBlank,
    /// A byte a name may not carry.
    NameByte {
        /// Offset of the byte in the name.
        offset: usize,
        /// The byte.
        found: u8,
    },
    /// A chat with no text.
    EmptyChat,
    /// A chat text longer than 126 bytes.
    ChatTooLong {
        /// Its length in bytes.
        len: usize,
    },
    /// A byte outside 1..=127 in a chat text.
    ChatByte {
        /// Offset of the byte in the text.
        offset: usize,
        /// The byte.
        found: u8,
    },
    /// More than 20 captured squares.
    TooManyCaptured {
        /// How many were given.
        len: usize,
    },
    /// A square listed twice among the captured squares.
    CapturedTwice {
        /// The square.
        square: Square,
    },
    /// A position text that is not 50 letters long.
    PositionLength {
        /// Its length in bytes.
        len: usize,
    },
    /// A letter that is not one of the five square contents `e w z W Z`.
    SquareContent {
        /// The letter.
        found: char,
    },
}

impl fmt::Display for ValueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::OutOfRange {
                what,
                value,
                min,
                max,
            } => write!(f, "{what} {value} out of range {min}..={max}"),
            Self::EmptyName => f.write_str("empty name"),
            Self::NameTooLong { len } => write!(f, "name of {len} bytes, at most 32 allowed"),
            Self::NameStartsWithBlank => f.write_str("name starts with a blank"),
            Self::NameByte { offset, found } => {
                write!(f, "name byte {offset}: {} is not allowed", ShowByte(found))
            }
            Self::EmptyChat => f.write_str("empty chat text"),
            Self::ChatTooLong { len } => {
                write!(f, "chat text of {len} bytes, at most 126 allowed")
            }
            Self::ChatByte { offset, found } => {
                write!(f, "chat byte {offset}: {} outside 1..=127", ShowByte(found))
            }
            Self::TooManyCaptured { len } => {
                write!(f, "{len} captured squares, at most 20 allowed")
            }
            Self::CapturedTwice { square } => write!(f, "square {square} captured twice"),
            Self::PositionLength { len } => {
                write!(f, "position of {len} letters, expected 50")
            }
            Self::SquareContent { found } => {
                write!(f, "{found:?} is not a square content (one of e w z W Z)")
            }
        }
    }
}

impl std::error::Error for ValueError {}

/// Shows a byte in an error message: printable ASCII as `'x'`, anything else as `0x1f`.
pub(crate) struct ShowByte(pub(crate) u8);

impl fmt::Display for ShowByte {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            b @ 0x20..=0x7e => write!(f, "'{}'", b as char),
            b => write!(f, "0x{b:02x}"),
        }
    }
}

/// A number that a fixed-width decimal field carries.
macro_rules! bounded_number {
    (
        $(#[$doc:meta])*
        $name:ident($repr:ty), $what:literal, $min:literal..=$max:literal
    ) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name($repr);

        #[cfg(feature = "serde")]
        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                self.0.serialize(serializer)
            }
        }

        #[cfg(feature = "serde")]
        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let value = <$repr>::deserialize(deserializer)?;
                Self::new(value).map_err(serde::de::Error::custom)
            }
        }

        impl $name {
            #[doc = concat!("The smallest value, ", stringify!($min), ".")]
            pub const MIN: Self = Self($min);
            #[doc = concat!("The largest value, ", stringify!($max), ".")]
            pub const MAX: Self = Self($max);

            #[doc = concat!("The ", $what, " `value`, if it lies in ", stringify!($min), "..=", stringify!($max), ".")]
            pub const fn new(value: $repr) -> Result<Self, ValueError> {
                if matches!(value, $min..=$max) {
                    Ok(Self(value))
                } else {
                    Err(ValueError::OutOfRange {
                        what: $what,
                        value: value as u32,
                        min: $min,
                        max: $max,
                    })
                }
            }

            /// The number.
            pub const fn get(self) -> $repr {
                self.0
            }
        }

        impl TryFrom<$repr> for $name {
            type Error = ValueError;

            fn try_from(value: $repr) -> Result<Self, ValueError> {
                Self::new(value)
            }
        }

        impl From<$name> for $repr {
            fn from(value: $name) -> $repr {
                value.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&self.0, f)
            }
        }
    };
}

bounded_number! {
    /// A square (field) of the board, 1..=50, numbered as in dxp.md §4.
    ///
    /// On the wire: two digits, `01`..`50`.
    Square(u8), "square", 1..=50
}

bounded_number! {
    /// The protocol version of a GAMEREQ, two digits on the wire. The spec knows only `01`
    /// ([`ProtocolVersion::V1`]); other versions decode so that a Follower can refuse them.
    ProtocolVersion(u8), "protocol version", 0..=99
}

bounded_number! {
    /// The thinking time of a GAMEREQ: minutes per player for the whole game, `000`..`999`.
    Minutes(u16), "thinking time", 0..=999
}

bounded_number! {
    /// The number of moves of a GAMEREQ, `000`..`999`; `000` means no limit.
    MoveLimit(u16), "move limit", 0..=999
}

bounded_number! {
    /// The seconds a MOVE took, `0000`..`9999` (informational; GWD sends its total time).
    Seconds(u16), "seconds", 0..=9999
}

bounded_number! {
    /// The move number of a BACKREQ, `001`..`999`; the game's first move is number 1.
    MoveNumber(u16), "move number", 1..=999
}

impl ProtocolVersion {
    /// Version `01`, the only one the spec defines.
    pub const V1: Self = Self(1);
}

impl MoveLimit {
    /// `000`: no limit on the number of moves.
    pub const UNLIMITED: Self = Self(0);

    /// The limit, or `None` for `000`.
    pub const fn limit(self) -> Option<u16> {
        if self.0 == 0 { None } else { Some(self.0) }
    }
}

impl Square {
    /// Every square, 1 to 50.
    pub fn all() -> impl Iterator<Item = Square> {
        (1..=50).map(Square)
    }
}

/// A set of squares, for matching captures whatever order they were sent in.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct SquareSet(u64);

impl SquareSet {
    /// The empty set.
    pub const EMPTY: Self = Self(0);

    /// Adds `square`; returns whether it was new.
    pub fn insert(&mut self, square: Square) -> bool {
        let bit = 1u64 << square.get();
        let new = self.0 & bit == 0;
        self.0 |= bit;
        new
    }

    /// Whether `square` is in the set.
    pub const fn contains(self, square: Square) -> bool {
        self.0 & (1u64 << square.get()) != 0
    }

    /// The number of squares in the set.
    pub const fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The squares in ascending order.
    pub fn iter(self) -> impl Iterator<Item = Square> {
        Square::all().filter(move |&square| self.contains(square))
    }

    /// The set as bits: bit `n` stands for square `n` (bit 0 and bits 51..63 are never set).
    pub const fn bits(self) -> u64 {
        self.0
    }
}

impl FromIterator<Square> for SquareSet {
    fn from_iter<I: IntoIterator<Item = Square>>(iter: I) -> Self {
        let mut set = Self::EMPTY;
        for square in iter {
            set.insert(square);
        }
        set
    }
}

impl fmt::Debug for SquareSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter().map(Square::get)).finish()
    }
}

/// A colour as DXP writes it: `W` white, `Z` black (Dutch *zwart*).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "lowercase")
)]
pub enum Color {
    /// White, `W`; white moves first in the normal start.
    White,
    /// Black, `Z`.
    Black,
}

impl Color {
    /// The wire letter, `b'W'` or `b'Z'`.
    pub const fn letter(self) -> u8 {
        match self {
            Self::White => b'W',
            Self::Black => b'Z',
        }
    }

    /// The colour of a wire letter; `B` is not one.
    pub const fn from_letter(letter: u8) -> Option<Self> {
        match letter {
            b'W' => Some(Self::White),
            b'Z' => Some(Self::Black),
            _ => None,
        }
    }

    /// The other colour.
    pub const fn opposite(self) -> Self {
        match self {
            Self::White => Self::Black,
            Self::Black => Self::White,
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::White => "white",
            Self::Black => "black",
        })
    }
}

/// The length of a name on the wire.
pub const NAME_LEN: usize = 32;

/// A program name: exactly 32 bytes on the wire, padded on the right with blanks.
///
/// Two constructors, because DXP asks senders for more than it lets receivers demand:
/// - [`Name::new`] builds a name to send: 1..=32 printable ASCII characters (`' '..='~'`),
///   not starting with a blank.
/// - [`Name::from_received`] accepts anything a peer may put in the field: up to 32 bytes in
///   1..=127, a leading blank or control characters included. A decoded GAMEREQ or GAMEACC
///   keeps the 32 bytes verbatim, so it re-encodes to the bytes received.
///
/// Trailing blanks are padding: [`Name::trimmed`] and `Display` leave them out, and padding a
/// trimmed name again gives back the same 32 bytes.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Name([u8; NAME_LEN]);

impl Name {
    /// A name to send, padded with blanks to 32 bytes.
    ///
    /// # Errors
    /// An empty name, one longer than 32 bytes, one starting with a blank or one with a
    /// character outside printable ASCII.
    pub fn new(name: &str) -> Result<Self, ValueError> {
        let bytes = name.as_bytes();
        if bytes.is_empty() {
            return Err(ValueError::EmptyName);
        }
        if bytes[0] == b' ' {
            return Err(ValueError::NameStartsWithBlank);
        }
        if let Some(offset) = bytes.iter().position(|b| !(b' '..=b'~').contains(b)) {
            return Err(ValueError::NameByte {
                offset,
                found: bytes[offset],
            });
        }
        Self::from_received(bytes)
    }

    /// A name as a peer may send it: at most 32 bytes, each in 1..=127, padded with blanks.
    ///
    /// # Errors
    /// More than 32 bytes, or a byte outside 1..=127.
    pub fn from_received(bytes: &[u8]) -> Result<Self, ValueError> {
        if bytes.len() > NAME_LEN {
            return Err(ValueError::NameTooLong { len: bytes.len() });
        }
        if let Some(offset) = bytes.iter().position(|&b| !is_dxp_byte(b)) {
            return Err(ValueError::NameByte {
                offset,
                found: bytes[offset],
            });
        }
        let mut padded = [b' '; NAME_LEN];
        padded[..bytes.len()].copy_from_slice(bytes);
        Ok(Self(padded))
    }

    /// The 32 bytes as sent; the caller has checked that each is in 1..=127.
    pub(crate) const fn from_wire(bytes: [u8; NAME_LEN]) -> Self {
        Self(bytes)
    }

    /// The 32 bytes on the wire, padding included.
    pub const fn as_bytes(&self) -> &[u8; NAME_LEN] {
        &self.0
    }

    /// The 32 characters, padding included.
    pub fn as_str(&self) -> &str {
        // Every byte is in 1..=127, so this is always valid UTF-8.
        std::str::from_utf8(&self.0).unwrap_or_default()
    }

    /// The name without its trailing blanks (leading blanks, if a peer sent any, stay).
    pub fn trimmed(&self) -> &str {
        self.as_str().trim_end_matches(' ')
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.trimmed())
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Name").field(&self.trimmed()).finish()
    }
}

/// Whether DXP lets `byte` appear in a message (1..=127: 7-bit ASCII without NUL).
pub(crate) const fn is_dxp_byte(byte: u8) -> bool {
    matches!(byte, 1..=127)
}

/// The most squares a MOVE can list as captured.
pub const MAX_CAPTURED: usize = 20;

/// The captured squares of a MOVE: at most 20 distinct squares, kept in the order they were
/// sent (so a decoded MOVE re-encodes to the same bytes). Fixed size, no heap.
///
/// DXP lets the sender list them in any order: compare with [`Captured::set`] or
/// [`Captured::sorted`], never with `==` on the lists of two different programs.
#[derive(Clone, Copy)]
pub struct Captured {
    squares: [Square; MAX_CAPTURED],
    len: u8,
}

impl Captured {
    /// No captured squares (a move that is not a capture).
    pub const EMPTY: Self = Self {
        squares: [Square::MIN; MAX_CAPTURED],
        len: 0,
    };

    /// The captured `squares` in the order given.
    ///
    /// # Errors
    /// More than 20 squares, or a square listed twice (a piece is captured only once, so a
    /// list with a repeat cannot describe a move).
    pub fn new(squares: &[Square]) -> Result<Self, ValueError> {
        if squares.len() > MAX_CAPTURED {
            return Err(ValueError::TooManyCaptured { len: squares.len() });
        }
        let mut captured = Self::EMPTY;
        let mut seen = SquareSet::EMPTY;
        for &square in squares {
            if !seen.insert(square) {
                return Err(ValueError::CapturedTwice { square });
            }
            captured.squares[usize::from(captured.len)] = square;
            captured.len += 1;
        }
        Ok(captured)
    }

    /// The first `len` of `squares`, which the caller has checked to be distinct; the rest is
    /// `Square::MIN`.
    pub(crate) const fn from_distinct(squares: [Square; MAX_CAPTURED], len: usize) -> Self {
        Self {
            squares,
            len: len as u8,
        }
    }

    /// The squares in the order they were given or sent.
    pub fn as_slice(&self) -> &[Square] {
        &self.squares[..usize::from(self.len)]
    }

    /// How many squares are captured.
    pub const fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether nothing is captured.
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The captured squares as a set, for matching whatever the order.
    pub fn set(&self) -> SquareSet {
        self.as_slice().iter().copied().collect()
    }

    /// The same squares in ascending order (the order Scan sends).
    pub fn sorted(&self) -> Self {
        let mut sorted = *self;
        sorted.squares[..usize::from(self.len)].sort_unstable();
        sorted
    }
}

impl Default for Captured {
    fn default() -> Self {
        Self::EMPTY
    }
}

impl PartialEq for Captured {
    /// Equal lists in the same order; use [`Captured::set`] to ignore the order.
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for Captured {}

impl std::hash::Hash for Captured {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_slice().hash(state);
    }
}

impl fmt::Debug for Captured {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.as_slice().iter().map(|s| s.get()))
            .finish()
    }
}

/// What stands on one square of a GAMEREQ position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SquareContent {
    /// `e`: nothing.
    Empty,
    /// `w`: a white man.
    WhiteMan,
    /// `z`: a black man.
    BlackMan,
    /// `W`: a white king.
    WhiteKing,
    /// `Z`: a black king.
    BlackKing,
}

impl SquareContent {
    /// The wire letter: `e`, `w`, `z`, `W` or `Z`.
    pub const fn letter(self) -> u8 {
        match self {
            Self::Empty => b'e',
            Self::WhiteMan => b'w',
            Self::BlackMan => b'z',
            Self::WhiteKing => b'W',
            Self::BlackKing => b'Z',
        }
    }

    /// The content a wire letter stands for.
    pub const fn from_letter(letter: u8) -> Option<Self> {
        match letter {
            b'e' => Some(Self::Empty),
            b'w' => Some(Self::WhiteMan),
            b'z' => Some(Self::BlackMan),
            b'W' => Some(Self::WhiteKing),
            b'Z' => Some(Self::BlackKing),
            _ => None,
        }
    }
}

/// The number of squares of the board, and of letters in a position.
pub const POSITION_LEN: usize = 50;

/// The 50 square contents of a GAMEREQ with start `B`, square 1 first.
///
/// Any 50 contents are a valid field: whether they make a legal draughts position is for the
/// rules to say, not the wire.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position([SquareContent; POSITION_LEN]);

impl Position {
    /// The normal start: black men on 1..=20, white men on 31..=50.
    pub const INITIAL: Self = {
        let mut contents = [SquareContent::Empty; POSITION_LEN];
        let mut i = 0;
        while i < 20 {
            contents[i] = SquareContent::BlackMan;
            contents[i + 30] = SquareContent::WhiteMan;
            i += 1;
        }
        Self(contents)
    };

    /// The empty board.
    pub const EMPTY: Self = Self([SquareContent::Empty; POSITION_LEN]);

    /// A position from the contents of squares 1..=50.
    pub const fn new(contents: [SquareContent; POSITION_LEN]) -> Self {
        Self(contents)
    }

    /// The contents of squares 1..=50.
    pub const fn contents(&self) -> &[SquareContent; POSITION_LEN] {
        &self.0
    }

    /// What stands on `square`.
    pub const fn get(&self, square: Square) -> SquareContent {
        self.0[square.get() as usize - 1]
    }

    /// Puts `content` on `square`.
    pub fn set(&mut self, square: Square, content: SquareContent) {
        self.0[usize::from(square.get()) - 1] = content;
    }

    /// The 50 wire letters.
    pub fn letters(&self) -> [u8; POSITION_LEN] {
        self.0.map(SquareContent::letter)
    }
}

impl FromStr for Position {
    type Err = ValueError;

    /// Reads the 50 wire letters, e.g. 20 `z`, 10 `e` and 20 `w` for the normal start.
    fn from_str(text: &str) -> Result<Self, ValueError> {
        if text.len() != POSITION_LEN {
            return Err(ValueError::PositionLength { len: text.len() });
        }
        let mut contents = [SquareContent::Empty; POSITION_LEN];
        for (slot, letter) in contents.iter_mut().zip(text.chars()) {
            let byte = u8::try_from(letter).unwrap_or(0);
            *slot = SquareContent::from_letter(byte)
                .ok_or(ValueError::SquareContent { found: letter })?;
        }
        Ok(Self(contents))
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for content in self.0 {
            fmt::Write::write_char(f, char::from(content.letter()))?;
        }
        Ok(())
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position(\"{self}\")")
    }
}

/// A one-digit code with a fixed set of meanings.
macro_rules! code {
    (
        $(#[$doc:meta])*
        $name:ident { $( $(#[$vdoc:meta])* $variant:ident = $digit:literal => $words:literal ),+ $(,)? }
    ) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[cfg_attr(
            feature = "serde",
            derive(serde::Serialize, serde::Deserialize),
            serde(rename_all = "snake_case")
        )]
        pub enum $name {
            $( $(#[$vdoc])* $variant ),+
        }

        impl $name {
            /// The wire digit, `b'0'` and up.
            pub const fn digit(self) -> u8 {
                match self {
                    $( Self::$variant => $digit ),+
                }
            }

            /// The code a wire digit stands for.
            pub const fn from_digit(digit: u8) -> Option<Self> {
                match digit {
                    $( $digit => Some(Self::$variant), )+
                    _ => None,
                }
            }
        }

        /// The meaning in words, for people (`{:?}` gives the variant's name).
        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(match self {
                    $( Self::$variant => $words ),+
                })
            }
        }
    };
}

code! {
    /// The answer of a GAMEACC.
    AcceptCode {
        /// `0`: the game is accepted.
        Accepted = b'0' => "accepted",
        /// `1`: refused, the protocol version is not supported.
        VersionNotSupported = b'1' => "protocol version not supported",
        /// `2`: refused, this game is not acceptable (time, position, ...) but another may be.
        GameNotAcceptable = b'2' => "this game is not acceptable",
        /// `3`: refused, no games at all.
        NoGames = b'3' => "no games at all",
    }
}

code! {
    /// The reason of a GAMEEND; only the first GAMEEND of a handshake may give one other than
    /// `0`, and it is informational.
    EndReason {
        /// `0`: no reason given (always allowed).
        NoReason = b'0' => "no reason given",
        /// `1`: I give up.
        GiveUp = b'1' => "giving up",
        /// `2`: draw.
        Draw = b'2' => "claiming a draw",
        /// `3`: I win.
        Win = b'3' => "claiming a win",
    }
}

code! {
    /// The stop code of a GAMEEND.
    StopCode {
        /// `0`: this game ends, I will play another.
        Continue = b'0' => "another game may follow",
        /// `1`: I want to stop entirely.
        Stop = b'1' => "stopping",
    }
}

code! {
    /// The answer of a BACKACC.
    BackAccCode {
        /// `0`: accepted; both sides restore the requested position.
        Accepted = b'0' => "accepted",
        /// `1`: take-back not supported.
        NotSupported = b'1' => "take-back not supported",
        /// `2`: declined, the game goes on.
        Declined = b'2' => "declined",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Codes read in words; the digit stays the wire form.
    #[test]
    fn codes_read_in_words() {
        assert_eq!(AcceptCode::NoGames.to_string(), "no games at all");
        assert_eq!(EndReason::Draw.to_string(), "claiming a draw");
        assert_eq!(
            BackAccCode::NotSupported.to_string(),
            "take-back not supported"
        );
        assert_eq!(StopCode::Stop.digit(), b'1');
    }

    /// Every bounded number accepts exactly its range, at both ends.
    #[test]
    fn numbers_accept_exactly_their_range() {
        assert_eq!(
            Square::new(0).unwrap_err().to_string(),
            "square 0 out of range 1..=50"
        );
        assert_eq!(Square::new(1).unwrap().get(), 1);
        assert_eq!(Square::new(50).unwrap().get(), 50);
        assert!(Square::new(51).is_err());
        assert_eq!(ProtocolVersion::new(99).unwrap().get(), 99);
        assert!(ProtocolVersion::new(100).is_err());
        assert_eq!(Minutes::new(0).unwrap().get(), 0);
        assert_eq!(Minutes::new(999).unwrap().get(), 999);
        assert!(Minutes::new(1000).is_err());
        assert_eq!(MoveLimit::new(999).unwrap().limit(), Some(999));
        assert_eq!(MoveLimit::UNLIMITED.limit(), None);
        assert!(MoveLimit::new(1000).is_err());
        assert_eq!(Seconds::new(9999).unwrap().get(), 9999);
        assert_eq!(
            Seconds::new(10000).unwrap_err().to_string(),
            "seconds 10000 out of range 0..=9999"
        );
        assert!(MoveNumber::new(0).is_err());
        assert_eq!(MoveNumber::new(1).unwrap().get(), 1);
        assert_eq!(MoveNumber::new(999).unwrap().get(), 999);
        assert!(MoveNumber::new(1000).is_err());
    }

    /// A name to send is padded, and the sender's rules (length, leading blank, printable)
    /// are enforced.
    #[test]
    fn names_to_send_are_padded_and_checked() {
        let name = Name::new("Tornado voor Windows 4.0").unwrap();
        assert_eq!(name.as_str(), "Tornado voor Windows 4.0        ");
        assert_eq!(name.trimmed(), "Tornado voor Windows 4.0");
        assert_eq!(name.to_string(), "Tornado voor Windows 4.0");
        assert_eq!(Name::new(&"x".repeat(32)).unwrap().as_str(), "x".repeat(32));
        for (input, error) in [
            ("", ValueError::EmptyName),
            (&"x".repeat(33), ValueError::NameTooLong { len: 33 }),
            (" Scan", ValueError::NameStartsWithBlank),
            (
                "Scan\t3",
                ValueError::NameByte {
                    offset: 4,
                    found: b'\t',
                },
            ),
            (
                "Damé",
                ValueError::NameByte {
                    offset: 3,
                    found: 0xc3,
                },
            ),
        ] {
            assert_eq!(Name::new(input), Err(error), "{input:?}");
        }
    }

    /// A received name may do what a sender should not (leading blank, control characters),
    /// but never carry a byte outside 1..=127.
    #[test]
    fn received_names_are_liberal_within_the_transport_rules() {
        assert_eq!(Name::from_received(b" Scan").unwrap().trimmed(), " Scan");
        assert_eq!(Name::from_received(b"a\tb").unwrap().trimmed(), "a\tb");
        assert_eq!(Name::from_received(b"").unwrap().as_str(), " ".repeat(32));
        assert_eq!(
            Name::from_received(b"a\0"),
            Err(ValueError::NameByte {
                offset: 1,
                found: 0
            })
        );
        assert_eq!(
            Name::from_received(&[b'a'; 33]),
            Err(ValueError::NameTooLong { len: 33 })
        );
    }

    /// The captured list keeps its order, refuses repeats and more than 20 squares, and
    /// offers order-free comparisons.
    #[test]
    fn captured_lists_keep_order_and_compare_as_sets() {
        let sq = |n| Square::new(n).unwrap();
        let sent = Captured::new(&[sq(22), sq(12), sq(23), sq(20)]).unwrap();
        let other = Captured::new(&[sq(12), sq(20), sq(22), sq(23)]).unwrap();
        assert_eq!(sent.as_slice(), [sq(22), sq(12), sq(23), sq(20)]);
        assert_ne!(sent, other);
        assert_eq!(sent.set(), other.set());
        assert_eq!(sent.sorted(), other);
        assert_eq!(
            sent.set().iter().map(Square::get).collect::<Vec<_>>(),
            [12, 20, 22, 23]
        );
        assert_eq!(
            Captured::new(&[sq(5), sq(5)]),
            Err(ValueError::CapturedTwice { square: sq(5) })
        );
        let all: Vec<_> = Square::all().take(21).collect();
        assert_eq!(
            Captured::new(&all),
            Err(ValueError::TooManyCaptured { len: 21 })
        );
        assert_eq!(Captured::new(&all[..20]).unwrap().len(), 20);
    }

    /// The position reads and writes its 50 letters, and the normal start is 20 z, 10 e, 20 w.
    #[test]
    fn positions_read_and_write_their_letters() {
        let initial = format!("{}{}{}", "z".repeat(20), "e".repeat(10), "w".repeat(20));
        assert_eq!(Position::INITIAL.to_string(), initial);
        assert_eq!(initial.parse::<Position>(), Ok(Position::INITIAL));
        let mut position = Position::EMPTY;
        position.set(Square::new(46).unwrap(), SquareContent::WhiteKing);
        position.set(Square::new(5).unwrap(), SquareContent::BlackKing);
        let text = position.to_string();
        assert_eq!(&text[4..5], "Z");
        assert_eq!(&text[45..46], "W");
        assert_eq!(text.parse::<Position>(), Ok(position));
        assert_eq!(
            "e".repeat(49).parse::<Position>(),
            Err(ValueError::PositionLength { len: 49 })
        );
        let bad = format!("{}x", "e".repeat(49));
        assert_eq!(
            bad.parse::<Position>(),
            Err(ValueError::SquareContent { found: 'x' })
        );
    }

    /// Letters and digits of colours and codes go both ways, and nothing else is accepted.
    #[test]
    fn letters_and_codes_round_trip() {
        for color in [Color::White, Color::Black] {
            assert_eq!(Color::from_letter(color.letter()), Some(color));
        }
        assert_eq!(Color::from_letter(b'B'), None);
        assert_eq!(Color::White.opposite(), Color::Black);
        for code in [
            AcceptCode::Accepted,
            AcceptCode::VersionNotSupported,
            AcceptCode::GameNotAcceptable,
            AcceptCode::NoGames,
        ] {
            assert_eq!(AcceptCode::from_digit(code.digit()), Some(code));
        }
        assert_eq!(AcceptCode::from_digit(b'4'), None);
        assert_eq!(EndReason::from_digit(b'3'), Some(EndReason::Win));
        assert_eq!(EndReason::from_digit(b'4'), None);
        assert_eq!(StopCode::from_digit(b'1'), Some(StopCode::Stop));
        assert_eq!(StopCode::from_digit(b'2'), None);
        assert_eq!(BackAccCode::from_digit(b'2'), Some(BackAccCode::Declined));
        assert_eq!(BackAccCode::from_digit(b'3'), None);
        for letter in 0..=255u8 {
            if let Some(content) = SquareContent::from_letter(letter) {
                assert_eq!(content.letter(), letter);
            } else {
                assert!(!b"ewzWZ".contains(&letter));
            }
        }
    }
}

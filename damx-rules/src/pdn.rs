//! PDN game records and FEN lists.
//!
//! Writing ([`PdnGame`]'s `Display`) produces the form that PDN readers agree on, pydraughts'
//! reader included:
//!
//! ```text
//! [Event "?"]
//! [Date "????.??.??"]
//! [White "?"]
//! [Black "?"]
//! [Result "2-0"]
//! [GameType "20"]
//! [FEN "B:W28,31,33,...:B1,2,..."]
//!
//! 1. ... 19-23 2. 28x19 14x23 ... 2-0
//! ```
//!
//! One tag a line (`[Name "value"]`, `\` and `"` escaped with `\`), `[FEN]` only for a set-up
//! start (White's section first, no ranges), then extra tags in their order, a blank line, the
//! movetext with a number before each White move (`1. ...` before Black's first move when Black
//! starts), moves as [`Position::move_text`] writes them (`32-28`, `28x19`, the full landing path
//! only when the ends are ambiguous), lines of at most 80 characters, the result token and a
//! blank line.
//!
//! pydraughts 0.6.7 replays such files move for move, with two limits of its reader that no
//! form of the file avoids: in a game whose `FEN` has Black to move it reads the first move
//! twice, and it stops reading the file after a game without moves.
//!
//! Reading ([`parse_games`]) takes any number of games and tolerates `{comments}`, `;` comments
//! to the end of the line, `(variations)` (skipped, nested or not), NAGs (`$3`), `!`/`?`
//! annotations, `%` escape lines, move numbers (`12.`, `12...`, `12. ...`, glued to the move or
//! not), missing tags and a missing result. Results are `2-0`, `0-2`, `1-1` and `*`; the chess
//! forms `1-0`, `0-1` and `1/2-1/2` are read as the same results.
//! [`game_at`] gives one game of a text at a chosen ply, as a front end opens it.
//! [`read_text`] reads a file for them: UTF-8 (a byte-order mark dropped) or, failing that,
//! ISO 8859-1, in which older PDN files were written, up to [`MAX_TEXT_BYTES`].

use std::fmt;
use std::fmt::Write as _;

use crate::fen::FenError;
use crate::game::{Game, Outcome};
use crate::moves::Move;
use crate::notation::MoveTextError;
use crate::position::Position;
use crate::square::Color;

/// The result of a game as PDN writes it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum GameResult {
    /// `2-0`.
    WhiteWins,
    /// `0-2`.
    BlackWins,
    /// `1-1`.
    Draw,
    /// `*`: not finished (or unknown).
    Unfinished,
}

impl GameResult {
    /// The PDN token: `2-0`, `0-2`, `1-1` or `*`.
    pub const fn as_str(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "2-0",
            GameResult::BlackWins => "0-2",
            GameResult::Draw => "1-1",
            GameResult::Unfinished => "*",
        }
    }

    /// Reads a result token (also the chess forms `1-0`, `0-1`, `1/2-1/2`).
    pub fn from_token(token: &str) -> Option<GameResult> {
        match token {
            "2-0" | "1-0" => Some(GameResult::WhiteWins),
            "0-2" | "0-1" => Some(GameResult::BlackWins),
            "1-1" | "1/2-1/2" => Some(GameResult::Draw),
            "*" => Some(GameResult::Unfinished),
            _ => None,
        }
    }

    /// The result of a game outcome (`Unfinished` for `None`).
    pub fn from_outcome(outcome: Option<Outcome>) -> GameResult {
        match outcome {
            Some(Outcome::Win {
                winner: Color::White,
                ..
            }) => GameResult::WhiteWins,
            Some(Outcome::Win {
                winner: Color::Black,
                ..
            }) => GameResult::BlackWins,
            Some(Outcome::Draw(_)) => GameResult::Draw,
            None => GameResult::Unfinished,
        }
    }
}

impl fmt::Display for GameResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One game of a PDN file.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct PdnGame {
    /// The tags in file order, as read (the writer adds the standard ones it needs).
    pub tags: Vec<(String, String)>,
    /// The start position (from the `FEN` tag, else the initial position).
    pub start: Position,
    /// The moves, each legal in its position.
    pub moves: Vec<Move>,
    /// The result.
    pub result: GameResult,
}

/// Tags the writer always writes (in this order) or derives from the game itself.
const STANDARD_TAGS: [&str; 7] = [
    "Event", "Date", "White", "Black", "Result", "GameType", "FEN",
];

impl PdnGame {
    /// A game without tags.
    pub fn new(start: Position, moves: Vec<Move>, result: GameResult) -> PdnGame {
        PdnGame {
            tags: Vec::new(),
            start,
            moves,
            result,
        }
    }

    /// The record of a [`Game`], with the result its outcome gives.
    pub fn from_game(game: &Game) -> PdnGame {
        PdnGame::new(
            *game.start(),
            game.moves().to_vec(),
            GameResult::from_outcome(game.outcome()),
        )
    }

    /// The value of the first tag called `name`.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Sets tag `name` (replacing an existing one, else appending it).
    pub fn set_tag(&mut self, name: &str, value: &str) {
        match self.tags.iter_mut().find(|(n, _)| n == name) {
            Some(tag) => tag.1 = value.to_string(),
            None => self.tags.push((name.to_string(), value.to_string())),
        }
    }

    /// Replays the moves into a [`Game`], checking each one.
    pub fn to_game(&self) -> Result<Game, crate::IllegalMoveError> {
        let mut game = Game::new(self.start);
        for &mv in &self.moves {
            game.try_play(mv)?;
        }
        Ok(game)
    }
}

/// A tag value as a PDN string: `\\` and `"` escaped with a backslash, line breaks and tabs
/// made blanks, other control characters (which a PDN string may not hold) made `?`.
fn escape(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '\\' | '"' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' | '\t' => out.push(' '),
            // PDN, as PGN, allows no non-printing character in a string.
            c if c.is_control() => out.push('?'),
            c => out.push(c),
        }
    }
    out
}

impl fmt::Display for PdnGame {
    /// Writes the game as PDN (see the module documentation for the form), ending with a blank
    /// line so that games can be concatenated.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let tag_or = |name: &str, default: &str| self.tag(name).unwrap_or(default).to_string();
        let mut tags = vec![
            ("Event".to_string(), tag_or("Event", "?")),
            ("Date".to_string(), tag_or("Date", "????.??.??")),
            ("White".to_string(), tag_or("White", "?")),
            ("Black".to_string(), tag_or("Black", "?")),
            ("Result".to_string(), self.result.to_string()),
            ("GameType".to_string(), "20".to_string()),
        ];
        if self.start != Position::initial() {
            tags.push(("FEN".to_string(), self.start.to_fen()));
        }
        tags.extend(
            self.tags
                .iter()
                .filter(|(name, _)| !STANDARD_TAGS.contains(&name.as_str()))
                .cloned(),
        );
        for (name, value) in &tags {
            writeln!(
                f,
                "[{} \"{}\"]",
                name.replace([' ', ']', '"'], "_"),
                escape(value)
            )?;
        }
        writeln!(f)?;

        let mut tokens = self.start.numbered_line(&self.moves);
        tokens.push(self.result.to_string());

        let mut line = String::with_capacity(80);
        for token in tokens {
            if !line.is_empty() && line.len() + 1 + token.len() > 80 {
                writeln!(f, "{line}")?;
                line.clear();
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(&token);
        }
        writeln!(f, "{line}")?;
        writeln!(f)
    }
}

/// What went wrong while reading PDN or a FEN list.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum PdnErrorKind {
    /// A `[` tag without its closing `]` or a value without its closing quote.
    UnterminatedTag,
    /// A `{` comment without its closing `}`: the rest of the text would vanish into it.
    UnterminatedComment,
    /// A `(` variation without its closing `)`: the rest of the text would vanish into it.
    UnterminatedVariation,
    /// A tag that is not `[Name "value"]`.
    BadTag {
        /// What was found.
        found: String,
    },
    /// A `FEN` tag (or a line of a FEN list) that is not a valid position.
    Fen(FenError),
    /// A move that is not legal (or not readable) in its position.
    Move {
        /// The move number of the game the move belongs to (1-based).
        number: usize,
        /// The error.
        error: MoveTextError,
    },
}

/// An error in a PDN text: the game (1-based), line and column (1-based, in characters) and
/// what went wrong.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct PdnError {
    /// The game the error is in (1-based; for a FEN list, the position).
    pub game: usize,
    /// The line (1-based).
    pub line: usize,
    /// The column (1-based, in characters).
    pub column: usize,
    /// What went wrong.
    pub kind: PdnErrorKind,
}

impl fmt::Display for PdnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "game {}, line {}, column {}: ",
            self.game, self.line, self.column
        )?;
        match &self.kind {
            PdnErrorKind::UnterminatedTag => write!(f, "unterminated tag"),
            PdnErrorKind::UnterminatedComment => write!(f, "a comment '{{' that is never closed"),
            PdnErrorKind::UnterminatedVariation => {
                write!(f, "a variation '(' that is never closed")
            }
            PdnErrorKind::BadTag { found } => {
                write!(f, "expected a tag like [Name \"value\"], found {found:?}")
            }
            PdnErrorKind::Fen(e) => write!(f, "{e}"),
            PdnErrorKind::Move { number, error } => write!(f, "move {number}: {error}"),
        }
    }
}

impl std::error::Error for PdnError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            PdnErrorKind::Fen(e) => Some(e),
            PdnErrorKind::Move { error, .. } => Some(error),
            _ => None,
        }
    }
}

/// A character cursor with line and column.
struct Reader<'a> {
    text: &'a str,
    at: usize,
    line: usize,
    column: usize,
    /// Whether the cursor is at the start of a line (for `%` escapes).
    line_start: bool,
}

impl<'a> Reader<'a> {
    fn new(text: &'a str) -> Reader<'a> {
        Reader {
            text,
            at: 0,
            line: 1,
            column: 1,
            line_start: true,
        }
    }

    fn peek(&self) -> Option<char> {
        self.text[self.at..].chars().next()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.at += c.len_utf8();
        if c == '\n' {
            self.line += 1;
            self.column = 1;
            self.line_start = true;
        } else {
            self.column += 1;
            if !c.is_whitespace() {
                self.line_start = false;
            }
        }
        Some(c)
    }

    fn skip_line(&mut self) {
        while let Some(c) = self.bump() {
            if c == '\n' {
                break;
            }
        }
    }

    /// Skips to just after `close`; false if the text ends first.
    fn skip_past(&mut self, close: char) -> bool {
        while let Some(c) = self.bump() {
            if c == close {
                return true;
            }
        }
        false
    }

    /// Skips a variation (the `(` already read), nested variations and comments inside it;
    /// false if the text ends first.
    fn skip_variation(&mut self) -> bool {
        let mut depth = 1u64;
        while let Some(c) = self.bump() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        return true;
                    }
                }
                '{' if !self.skip_past('}') => return false,
                _ => {}
            }
        }
        false
    }

    /// A word: up to whitespace or one of the PDN delimiters.
    fn word(&mut self) -> &'a str {
        let start = self.at;
        while let Some(c) = self.peek() {
            if c.is_whitespace() || matches!(c, '{' | '}' | '(' | ')' | '[' | ']' | ';' | '$') {
                break;
            }
            self.bump();
        }
        &self.text[start..self.at]
    }
}

/// The game being read.
struct GameInProgress {
    tags: Vec<(String, String)>,
    start: Option<Position>,
    position: Position,
    moves: Vec<Move>,
    result: Option<GameResult>,
}

impl GameInProgress {
    fn new() -> GameInProgress {
        GameInProgress {
            tags: Vec::new(),
            start: None,
            position: Position::initial(),
            moves: Vec::new(),
            result: None,
        }
    }

    fn is_empty(&self) -> bool {
        self.tags.is_empty() && self.moves.is_empty() && self.start.is_none()
    }

    fn finish(self) -> PdnGame {
        let result = self
            .result
            .or_else(|| {
                self.tags
                    .iter()
                    .find(|(n, _)| n == "Result")
                    .and_then(|(_, v)| GameResult::from_token(v.trim()))
            })
            .unwrap_or(GameResult::Unfinished);
        PdnGame {
            start: self.start.unwrap_or_else(Position::initial),
            tags: self.tags,
            moves: self.moves,
            result,
        }
    }
}

/// Reads a tag after its `[`: `Name "value"]`.
fn read_tag(reader: &mut Reader<'_>) -> Result<(String, String), PdnErrorKind> {
    while reader
        .peek()
        .is_some_and(|c| c.is_whitespace() && c != '\n')
    {
        reader.bump();
    }
    let name_start = reader.at;
    while reader
        .peek()
        .is_some_and(|c| !c.is_whitespace() && !matches!(c, '"' | ']'))
    {
        reader.bump();
    }
    let name = reader.text[name_start..reader.at].to_string();
    while reader
        .peek()
        .is_some_and(|c| c.is_whitespace() && c != '\n')
    {
        reader.bump();
    }
    if name.is_empty() || reader.peek() != Some('"') {
        let rest: String = reader.text[name_start..]
            .chars()
            .take_while(|&c| c != '\n')
            .take(40)
            .collect();
        return Err(PdnErrorKind::BadTag {
            found: format!("[{rest}"),
        });
    }
    reader.bump();
    let mut value = String::new();
    loop {
        match reader.bump() {
            None | Some('\n') => return Err(PdnErrorKind::UnterminatedTag),
            Some('\\') => match reader.bump() {
                None | Some('\n') => return Err(PdnErrorKind::UnterminatedTag),
                Some(c) => value.push(c),
            },
            Some('"') => break,
            Some(c) => value.push(c),
        }
    }
    while reader
        .peek()
        .is_some_and(|c| c.is_whitespace() && c != '\n')
    {
        reader.bump();
    }
    if reader.peek() != Some(']') {
        return Err(PdnErrorKind::UnterminatedTag);
    }
    reader.bump();
    Ok((name, value))
}

/// Strips a leading move number (`12.`, `12...`) from a word; `None` if the word is only
/// that. Dots alone (`...`) are a move-number continuation too.
fn strip_move_number(word: &str) -> Option<&str> {
    let digits = word.bytes().take_while(u8::is_ascii_digit).count();
    let after_digits = &word[digits..];
    let rest = after_digits.trim_start_matches('.');
    let dots = after_digits.len() - rest.len();
    let rest = if dots > 0 { rest } else { word };
    (!rest.is_empty()).then_some(rest)
}

/// Why [`game_at`] has no game to give.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum GameAtError {
    /// The text is not PDN, or a move is not legal.
    Pdn(PdnError),
    /// The text holds fewer games than the number asked for.
    NoGame {
        /// The game asked for (1-based).
        game: usize,
        /// The games in the text.
        games: usize,
    },
    /// A move does not replay from the game's start.
    Replay {
        /// The game (1-based).
        game: usize,
        /// The move.
        error: crate::IllegalMoveError,
    },
    /// The game is shorter than the plies asked for.
    NoPly {
        /// The game (1-based).
        game: usize,
        /// The plies asked for.
        ply: usize,
        /// The plies of the game.
        plies: usize,
    },
}

impl fmt::Display for GameAtError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GameAtError::Pdn(error) => write!(f, "{error}"),
            GameAtError::NoGame { game, games } => {
                let s = if *games == 1 { "" } else { "s" };
                write!(f, "no game {game}: the text holds {games} game{s}")
            }
            GameAtError::Replay { game, error } => write!(f, "game {game}: {error}"),
            GameAtError::NoPly { game, ply, plies } => {
                write!(f, "no ply {ply}: game {game} has {plies} plies")
            }
        }
    }
}

impl std::error::Error for GameAtError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            GameAtError::Pdn(error) => Some(error),
            GameAtError::Replay { error, .. } => Some(error),
            GameAtError::NoGame { .. } | GameAtError::NoPly { .. } => None,
        }
    }
}

/// Game `game` (1 is the first) of a PDN text, after `ply` plies of it when given, else after
/// its last move: the position a front end opens to analyse or to play on from. The text is
/// read up to the end of that game, so that an error in a later game does not stand in the
/// way.
pub fn game_at(text: &str, game: usize, ply: Option<usize>) -> Result<Game, GameAtError> {
    // Game 0 does not exist: read them all, to say how many there are.
    let wanted = if game == 0 { usize::MAX } else { game };
    let mut games = read_games(text, wanted).map_err(GameAtError::Pdn)?;
    let count = games.len();
    if game == 0 || game > count {
        return Err(GameAtError::NoGame { game, games: count });
    }
    let record = games.swap_remove(game - 1);
    let mut replayed = record
        .to_game()
        .map_err(|error| GameAtError::Replay { game, error })?;
    if let Some(ply) = ply {
        let plies = replayed.ply();
        if ply > plies {
            return Err(GameAtError::NoPly { game, ply, plies });
        }
        replayed.truncate(ply);
    }
    Ok(replayed)
}

/// The most bytes [`read_text`] reads: 256 MiB, far more than any collection of games.
pub const MAX_TEXT_BYTES: u64 = 256 << 20;

/// Reads a PDN file or a list of positions from `reader` as text ([`text_from_bytes`]).
///
/// # Errors
/// A failed read, or more than [`MAX_TEXT_BYTES`] bytes (`InvalidData`; no more than one
/// byte past the bound is read).
pub fn read_text(reader: impl std::io::Read) -> std::io::Result<String> {
    use std::io::Read as _;
    let mut bytes = Vec::new();
    reader.take(MAX_TEXT_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_TEXT_BYTES {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("larger than {} MiB", MAX_TEXT_BYTES >> 20),
        ));
    }
    Ok(text_from_bytes(bytes))
}

/// A file's bytes as text: UTF-8 when they are (a leading byte-order mark dropped), else ISO
/// 8859-1 (Latin-1), in which older PDN files were written, so that every byte reads as the
/// character it meant there (`é` in a player's name) and none stops the reading.
pub fn text_from_bytes(bytes: Vec<u8>) -> String {
    let mut text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(error) => error
            .into_bytes()
            .iter()
            .map(|&byte| char::from(byte))
            .collect(),
    };
    if text.starts_with('\u{feff}') {
        text.drain(..'\u{feff}'.len_utf8());
    }
    text
}

/// Reads every game of a PDN text.
pub fn parse_games(text: &str) -> Result<Vec<PdnGame>, PdnError> {
    read_games(text, usize::MAX)
}

/// Reads the games of a PDN text, stopping once `wanted` games are complete.
fn read_games(text: &str, wanted: usize) -> Result<Vec<PdnGame>, PdnError> {
    let mut reader = Reader::new(text);
    let mut games = Vec::new();
    let mut game = GameInProgress::new();
    while games.len() < wanted {
        let (line, column) = (reader.line, reader.column);
        let error = |games: &Vec<PdnGame>, kind| PdnError {
            game: games.len() + 1,
            line,
            column,
            kind,
        };
        let Some(c) = reader.peek() else { break };
        match c {
            // A byte-order mark (U+FEFF) at the start of a file saved as UTF-8 is no text.
            c if c.is_whitespace() || c == '\u{feff}' => {
                reader.bump();
            }
            '%' if reader.line_start => reader.skip_line(),
            ';' => reader.skip_line(),
            '{' => {
                reader.bump();
                if !reader.skip_past('}') {
                    return Err(error(&games, PdnErrorKind::UnterminatedComment));
                }
            }
            '(' => {
                reader.bump();
                if !reader.skip_variation() {
                    return Err(error(&games, PdnErrorKind::UnterminatedVariation));
                }
            }
            ')' | '}' | ']' => {
                reader.bump();
            }
            '$' => {
                reader.bump();
                reader.word();
            }
            '[' => {
                if !game.moves.is_empty() || game.result.is_some() {
                    games.push(std::mem::replace(&mut game, GameInProgress::new()).finish());
                }
                reader.bump();
                let tag = read_tag(&mut reader).map_err(|kind| error(&games, kind))?;
                // A game of tags alone ends where a tag it already has comes again: that tag
                // is the next game's.
                if game.tags.iter().any(|(name, _)| *name == tag.0) {
                    games.push(std::mem::replace(&mut game, GameInProgress::new()).finish());
                }
                if tag.0 == "FEN" {
                    let start = Position::from_fen(&tag.1)
                        .map_err(|e| error(&games, PdnErrorKind::Fen(e)))?;
                    game.start = Some(start);
                    game.position = start;
                }
                game.tags.push(tag);
            }
            _ => {
                let word = reader.word();
                if word.is_empty() {
                    // A delimiter the match above does not consume: skip it.
                    reader.bump();
                    continue;
                }
                if let Some(result) = GameResult::from_token(word) {
                    game.result = Some(result);
                    games.push(std::mem::replace(&mut game, GameInProgress::new()).finish());
                    continue;
                }
                let Some(move_text) = strip_move_number(word) else {
                    continue;
                };
                let move_text = move_text.trim_end_matches(['!', '?']);
                if move_text.is_empty() {
                    continue;
                }
                let mv = game.position.parse_move(move_text).map_err(|e| {
                    // From a start with Black to move, Black's first move is move 1 too.
                    let black_first = game
                        .start
                        .is_some_and(|start| start.side_to_move() == Color::Black);
                    let number = (game.moves.len() + usize::from(black_first)) / 2 + 1;
                    error(&games, PdnErrorKind::Move { number, error: e })
                })?;
                game.position = game.position.play(&mv);
                game.moves.push(mv);
            }
        }
    }
    if games.len() < wanted && !game.is_empty() {
        games.push(game.finish());
    }
    Ok(games)
}

/// Reads a list of positions, one FEN a line (opening files). Blank lines and comments (lines
/// starting with `#`, `;`, `%` or `//`, and anything after `;` or `#` on a line) are skipped;
/// a line may also be a PDN `[FEN "..."]` tag. Errors give the line and column.
pub fn parse_fen_list(text: &str) -> Result<Vec<Position>, PdnError> {
    let mut positions = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line = raw.split(['#', ';']).next().unwrap_or("");
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('%') || trimmed.starts_with("//") {
            continue;
        }
        let fen = trimmed
            .strip_prefix("[FEN")
            .and_then(|rest| rest.trim_end().strip_suffix(']'))
            .unwrap_or(trimmed);
        let position = Position::from_fen(fen).map_err(|e| PdnError {
            game: positions.len() + 1,
            line: index + 1,
            column: raw.len() - raw.trim_start().len() + 1,
            kind: PdnErrorKind::Fen(e),
        })?;
        positions.push(position);
    }
    Ok(positions)
}

/// Writes several games, one after the other.
pub fn write_games(games: &[PdnGame]) -> String {
    let mut out = String::new();
    for game in games {
        let _ = write!(out, "{game}");
    }
    out
}

//! The local side of a session: the [`Player`] trait and simple players.
//!
//! The driver keeps the player on a worker thread of its own, so that the session goes on
//! answering the peer (CHAT, BACKREQ, GAMEEND) while the player thinks. The player is told
//! about each new game ([`Player::new_game`]), asked for a move whenever it is our turn
//! ([`Player::choose_move`], with the whole game so far, the clocks and a [`StopSignal`]) and
//! told how each game ended ([`Player::game_over`]). A take-back needs no call of its own: the
//! next `choose_move` simply gets the shorter game.
//!
//! Here: [`FirstLegalPlayer`] and [`RandomPlayer`] (seeded) for tests and demonstrations,
//! [`ScriptedPlayer`] (a list of moves, or a closure) for scripted conversations;
//! [`ChannelPlayer`], whose moves come from another thread as answers to [`MoveRequest`]s (a
//! person at a terminal or in a GUI). The engine's player is
//! [`EnginePlayer`](crate::EnginePlayer).

use std::fmt;
use std::time::Duration;

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender, bounded, unbounded};
use damx_rules::{Color, Game, Move, Position};

use crate::config::Role;

/// The flag the session raises to ask the player to return from [`Player::choose_move`] now:
/// the engine's own [`damx_engine::StopSignal`], so that an engine needs no relay. Clones
/// share the flag; the driver makes a fresh one for every move it asks for.
pub use damx_engine::StopSignal;

/// What a game is about, as agreed by GAMEREQ and GAMEACC.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameInfo {
    /// The game's number in the session, from 1.
    pub number: u32,
    /// Our role in the session.
    pub role: Role,
    /// Our DXP name (without its padding).
    pub our_name: String,
    /// The peer's DXP name (without its padding).
    pub peer_name: String,
    /// The colour we play.
    pub our_color: Color,
    /// Thinking time per player for the whole game in minutes; 0 means no clock was given.
    pub minutes: u16,
    /// Number of moves for the game (each side); `None` for no limit.
    pub move_limit: Option<u16>,
    /// The start position (its side to move makes the first move).
    pub start: Position,
}

impl GameInfo {
    /// The name of the player of `color`.
    pub fn name_of(&self, color: Color) -> &str {
        if color == self.our_color {
            &self.our_name
        } else {
            &self.peer_name
        }
    }

    /// The thinking time per player, `None` when no clock was given.
    pub fn time_per_player(&self) -> Option<Duration> {
        (self.minutes > 0).then(|| Duration::from_secs(60 * u64::from(self.minutes)))
    }
}

/// The clocks as we measure them, when it is our turn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClockState {
    /// Our time left for the rest of the game (`None`: no clock). Zero once spent.
    pub our_remaining: Option<Duration>,
    /// The opponent's time left (`None`: no clock).
    pub their_remaining: Option<Duration>,
    /// Moves we still have to make under the game's move limit, this one included (`None`: no
    /// limit).
    pub our_moves_to_go: Option<u32>,
}

/// How to answer the peer's take-back requests (BACKREQ).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TakeBackPolicy {
    /// Accept every take-back to a position of the game (`K0`); decline the others (`K2`).
    #[default]
    Accept,
    /// Decline them all (`K2`).
    Decline,
    /// Answer that take-backs are not supported (`K1`).
    NotSupported,
    /// Ask the user: the session reports [`Event::TakeBackRequested`](crate::Event) and waits
    /// for [`Command::AnswerTakeBack`](crate::Command) (declining if no answer comes in time).
    Ask,
}

/// The local side of a session.
///
/// Implementations run on the session's worker thread. [`Player::choose_move`] must return
/// soon after its [`StopSignal`] is raised (the session then ignores what it returns).
pub trait Player: Send {
    /// The name to send in GAMEREQ or GAMEACC (unless the configuration gives one).
    fn name(&self) -> &str;

    /// A game starts.
    fn new_game(&mut self, info: &GameInfo) {
        let _ = info;
    }

    /// Our move in the position at the end of `game`, which has at least one legal move.
    /// `None` gives up the game (GAMEEND reason `1`). A move that is not legal also ends the
    /// game as given up, and is reported.
    fn choose_move(&mut self, game: &Game, clock: &ClockState, stop: &StopSignal) -> Option<Move>;

    /// How to answer the peer's take-back requests; asked once, when the session starts.
    fn take_back_policy(&self) -> TakeBackPolicy {
        TakeBackPolicy::Accept
    }

    /// A game ended (after its record was made).
    fn game_over(&mut self, record: &crate::GameRecord) {
        let _ = record;
    }

    /// How long the player may take, once stopped, to end its thinking and let go of what it
    /// holds (a program it runs, which must not outlive the session): a session that closes
    /// waits that long for it. One second unless the player says otherwise.
    fn shutdown_grace(&self) -> std::time::Duration {
        std::time::Duration::from_secs(1)
    }
}

impl<P: Player + ?Sized> Player for Box<P> {
    fn name(&self) -> &str {
        (**self).name()
    }
    fn new_game(&mut self, info: &GameInfo) {
        (**self).new_game(info);
    }
    fn choose_move(&mut self, game: &Game, clock: &ClockState, stop: &StopSignal) -> Option<Move> {
        (**self).choose_move(game, clock, stop)
    }
    fn take_back_policy(&self) -> TakeBackPolicy {
        (**self).take_back_policy()
    }
    fn game_over(&mut self, record: &crate::GameRecord) {
        (**self).game_over(record);
    }
    fn shutdown_grace(&self) -> std::time::Duration {
        (**self).shutdown_grace()
    }
}

/// Plays the first legal move (in the rules' generation order). Deterministic.
#[derive(Clone, Debug)]
pub struct FirstLegalPlayer {
    name: String,
}

impl FirstLegalPlayer {
    /// A player sending `name`.
    pub fn new(name: impl Into<String>) -> FirstLegalPlayer {
        FirstLegalPlayer { name: name.into() }
    }
}

impl Player for FirstLegalPlayer {
    fn name(&self) -> &str {
        &self.name
    }

    fn choose_move(&mut self, game: &Game, _: &ClockState, _: &StopSignal) -> Option<Move> {
        game.position().legal_moves().first().copied()
    }
}

/// Plays a random legal move from a seeded generator: the same seed and the same games give
/// the same moves.
#[derive(Clone, Debug)]
pub struct RandomPlayer {
    name: String,
    state: u64,
}

impl RandomPlayer {
    /// A player sending `name`, drawing from `seed`.
    pub fn new(name: impl Into<String>, seed: u64) -> RandomPlayer {
        RandomPlayer {
            name: name.into(),
            state: seed,
        }
    }

    /// splitmix64: small, fast and good enough to pick moves.
    fn next(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

impl Player for RandomPlayer {
    fn name(&self) -> &str {
        &self.name
    }

    fn choose_move(&mut self, game: &Game, _: &ClockState, _: &StopSignal) -> Option<Move> {
        let moves = game.position().legal_moves();
        if moves.is_empty() {
            return None;
        }
        let index = (self.next() % moves.len() as u64) as usize;
        Some(moves[index])
    }
}

/// The closure behind a [`ScriptedPlayer`].
type Script = Box<dyn FnMut(&Game) -> Option<Move> + Send>;

/// Plays what a script says: a list of moves in order, or any closure of the game.
pub struct ScriptedPlayer {
    name: String,
    script: Script,
    policy: TakeBackPolicy,
}

impl ScriptedPlayer {
    /// Plays `moves` one per turn, in order; once they are used up, gives up (`None`). The
    /// moves are sent as they are, legal or not.
    pub fn moves(name: impl Into<String>, moves: Vec<Move>) -> ScriptedPlayer {
        let mut moves = moves.into_iter();
        ScriptedPlayer::from_fn(name, move |_| moves.next())
    }

    /// Plays `script(game)` each turn.
    pub fn from_fn(
        name: impl Into<String>,
        script: impl FnMut(&Game) -> Option<Move> + Send + 'static,
    ) -> ScriptedPlayer {
        ScriptedPlayer {
            name: name.into(),
            script: Box::new(script),
            policy: TakeBackPolicy::Accept,
        }
    }

    /// The same player with another take-back policy.
    pub fn with_take_back_policy(mut self, policy: TakeBackPolicy) -> ScriptedPlayer {
        self.policy = policy;
        self
    }
}

impl fmt::Debug for ScriptedPlayer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ScriptedPlayer")
            .field("name", &self.name)
            .field("policy", &self.policy)
            .finish_non_exhaustive()
    }
}

impl Player for ScriptedPlayer {
    fn name(&self) -> &str {
        &self.name
    }

    fn choose_move(&mut self, game: &Game, _: &ClockState, _: &StopSignal) -> Option<Move> {
        (self.script)(game)
    }

    fn take_back_policy(&self) -> TakeBackPolicy {
        self.policy
    }
}

/// A request for a move, sent by a [`ChannelPlayer`] to the thread that chooses (a terminal,
/// a GUI): the game so far and the clocks; answered once with [`MoveRequest::answer`].
#[derive(Debug)]
pub struct MoveRequest {
    /// The game so far; the move is for its side to move.
    pub game: Game,
    /// The clocks when the move was asked for.
    pub clock: ClockState,
    reply: Sender<Option<Move>>,
    stop: StopSignal,
}

impl MoveRequest {
    /// Whether the session no longer wants this move (the game ended, a take-back came, the
    /// session stops): a front end stops asking its user.
    pub fn is_withdrawn(&self) -> bool {
        self.stop.is_stopped()
    }

    /// Gives the move (`None`: no move, which ends the game as the session decides). Returns
    /// `false` when the request was withdrawn and the move is not played.
    pub fn answer(self, mv: Option<Move>) -> bool {
        !self.is_withdrawn() && self.reply.send(mv).is_ok()
    }
}

/// A player whose moves are chosen on another thread: each [`Player::choose_move`] sends a
/// [`MoveRequest`] down a channel and waits for its answer, returning `None` when the session
/// stops the wait or the receiving end is gone. Take-back requests are passed on to the user
/// ([`TakeBackPolicy::Ask`]).
#[derive(Debug)]
pub struct ChannelPlayer {
    name: String,
    requests: Sender<MoveRequest>,
}

impl ChannelPlayer {
    /// The player and the receiving end of its requests.
    pub fn new(name: impl Into<String>) -> (ChannelPlayer, Receiver<MoveRequest>) {
        let (requests, receiver) = unbounded();
        let player = ChannelPlayer {
            name: name.into(),
            requests,
        };
        (player, receiver)
    }
}

/// How often a waiting [`ChannelPlayer`] looks at its stop flag.
const STOP_POLL: Duration = Duration::from_millis(50);

impl Player for ChannelPlayer {
    fn name(&self) -> &str {
        &self.name
    }

    fn choose_move(&mut self, game: &Game, clock: &ClockState, stop: &StopSignal) -> Option<Move> {
        let (reply, answer) = bounded(1);
        let request = MoveRequest {
            game: game.clone(),
            clock: *clock,
            reply,
            stop: stop.clone(),
        };
        self.requests.send(request).ok()?;
        loop {
            match answer.recv_timeout(STOP_POLL) {
                Ok(mv) => return mv,
                Err(RecvTimeoutError::Timeout) if !stop.is_stopped() => {}
                Err(_) => return None,
            }
        }
    }

    fn take_back_policy(&self) -> TakeBackPolicy {
        TakeBackPolicy::Ask
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same seed gives the same game; another seed, another one.
    #[test]
    fn random_player_is_reproducible() {
        let play = |seed| {
            let mut player = RandomPlayer::new("r", seed);
            let mut game = Game::default();
            let stop = StopSignal::new();
            for _ in 0..30 {
                let Some(mv) = player.choose_move(&game, &ClockState::default(), &stop) else {
                    break;
                };
                game.play(mv);
            }
            game.moves().to_vec()
        };
        assert_eq!(play(7), play(7));
        assert_ne!(play(7), play(8));
    }

    /// A channel player's move comes from another thread; a withdrawn request is not played,
    /// and a player whose other end is gone has no move.
    #[test]
    fn channel_player_takes_its_moves_from_another_thread() {
        let (mut player, requests) = ChannelPlayer::new("person");
        let game = Game::default();
        let chooser = std::thread::spawn(move || {
            let request = requests.recv().unwrap();
            let mv = request.game.position().legal_moves()[0];
            assert!(request.answer(Some(mv)));
            let request = requests.recv().unwrap();
            while !request.is_withdrawn() {
                std::thread::sleep(Duration::from_millis(5));
            }
            assert!(!request.answer(None));
        });
        let first = Position::initial().legal_moves()[0];
        let (clock, stop) = (ClockState::default(), StopSignal::new());
        assert_eq!(player.choose_move(&game, &clock, &stop), Some(first));
        stop.stop();
        assert_eq!(player.choose_move(&game, &clock, &stop), None);
        chooser.join().unwrap();
        assert_eq!(player.choose_move(&game, &clock, &StopSignal::new()), None);
        assert_eq!(player.take_back_policy(), TakeBackPolicy::Ask);
    }

    /// A scripted player plays its list, then gives up.
    #[test]
    fn scripted_player_plays_its_list() {
        let start = Position::initial();
        let first = start.legal_moves()[3];
        let mut player = ScriptedPlayer::moves("s", vec![first]);
        let game = Game::default();
        let (clock, stop) = (ClockState::default(), StopSignal::new());
        assert_eq!(player.choose_move(&game, &clock, &stop), Some(first));
        assert_eq!(player.choose_move(&game, &clock, &stop), None);
    }
}

//! The switches of the search's techniques, shared by the engine (its options) and the search
//! (which reads them), so that neither has to import the other for them.

/// Search techniques that can be switched on and off, for A/B measurements with
/// `cargo xtask strength`. The defaults are the ones that won in self-play.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchFeatures {
    /// Search late quiet moves less deep first (re-searched if they turn out good).
    pub late_move_reductions: bool,
    /// Start each iteration from deeper than 4 with a narrow window around the last score.
    pub aspiration: bool,
    /// Do not count a ply where the side to move has a single legal move.
    pub single_reply_extension: bool,
    /// Search one more ply at the horizon when the opponent threatens to capture (off: no
    /// measurable gain in self-play).
    pub threat_extension: bool,
    /// Cut quiet nodes near the horizon whose evaluation is far outside the window.
    pub static_pruning: bool,
    /// Skip the last quiet moves of long move lists near the horizon (off: no measurable gain
    /// in self-play).
    pub late_move_pruning: bool,
    /// On a game clock, budget by the phase of the game and give a move more time while the
    /// best move changes or the score falls, less when one move dominates (off: the fixed
    /// plan of 30 moves to go).
    pub adaptive_time: bool,
    /// Against a lone king, drive it off the long diagonal and out of safe squares; shrink
    /// winning scores as a draw rule comes near (see the search's endgame knowledge; off: it
    /// converted the same 12 of the 15 won endings of [`crate::endings`] as without it, and
    /// has no self-play result yet).
    pub endgame_knowledge: bool,
    /// At deep non-PV nodes, cut when a search four plies shallower beats beta by a man
    /// (ProbCut), unless an opponent man is three steps or fewer from promotion.
    pub probcut: bool,
    /// Exempt from late-move reductions a quiet move that threatens a capture (the side that
    /// made it could take at once if it moved again; off: behind in self-play).
    pub unreduced_threats: bool,
    /// Search a deep node (four plies or more) that the table knows no move for a ply
    /// shallower: its move ordering is a guess (internal iterative reduction; on: ahead in
    /// self-play).
    pub internal_reduction: bool,
    /// On a game clock, expect fewer moves to go when endgame databases are loaded: the
    /// endings they hold are played at once (off: the same plan as without databases; level
    /// in self-play so far, undecided after 177 games).
    pub database_time: bool,
    /// In a search that starts within the endgame databases, go on searching through the
    /// won and lost positions of slices that store no distance (there they all score the
    /// same, so the search finds the progress itself: men running to promotion, captures)
    /// instead of ending the line on their value (off: the engine drew about 6 % of the won 4-
    /// and 5-piece starts of `xtask/openings/won-4-5.fen`, which it converts without databases).
    pub database_progress: bool,
    /// Search the table's move one ply deeper when every other move, searched half as deep,
    /// falls clearly short of the table's score (a singular extension). Alone: Elo +7 +/- 14 in
    /// self-play, undecided after 303 games; with [`stepped_reductions`](Self::stepped_reductions)
    /// (which reduces more, and which it makes safe): Elo +15 +/- 10, accepted.
    pub singular_extension: bool,
    /// With [`late_move_reductions`](Self::late_move_reductions), reduce in two steps instead
    /// of by the logarithms of depth and move number: at non-PV nodes one ply from the second
    /// quiet move on and two from the seventh, at PV nodes one ply from the fourth, killers
    /// included (off: the logarithmic table, from the fourth move on, killers exempt). Alone:
    /// Elo +6 +/- 17, undecided after 230 games; with the singular extension: accepted.
    pub stepped_reductions: bool,
    /// With [`probcut`](Self::probcut), scale it by depth: from three plies on, the shallow
    /// search goes two fifths as deep and must beat beta by 5 centi-men a ply, and no ProbCut
    /// is tried inside it (off: from six plies on, four plies shallower, a man above beta; on:
    /// Elo +3 +/- 12 in self-play, not better).
    pub scaled_probcut: bool,
}

impl Default for SearchFeatures {
    fn default() -> SearchFeatures {
        SearchFeatures {
            late_move_reductions: true,
            aspiration: true,
            single_reply_extension: true,
            threat_extension: false,
            static_pruning: true,
            late_move_pruning: false,
            adaptive_time: true,
            endgame_knowledge: false,
            probcut: true,
            unreduced_threats: false,
            internal_reduction: true,
            database_time: false,
            database_progress: true,
            singular_extension: true,
            stepped_reductions: true,
            scaled_probcut: false,
        }
    }
}

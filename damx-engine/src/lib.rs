//! A parallel alpha-beta search and evaluation for international draughts.
//!
//! `damx-engine` takes a position from `damx-rules`, searches it within the limits it is given
//! and returns plain data: the best move, its score and the principal variation. It knows
//! nothing of DXP or sockets.
#![forbid(unsafe_code)]

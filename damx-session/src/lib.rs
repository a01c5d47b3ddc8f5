//! The blocking DamExchange (DXP) session driver.
//!
//! `damx-session` runs the DXP dialogue as an Initiator or a Follower over TCP. It is the one
//! place that translates between the wire types of `damx-wire` (field numbers, seconds, names)
//! and the rules types of `damx-rules` (squares, bitboards, moves).
#![forbid(unsafe_code)]

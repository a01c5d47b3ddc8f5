//! Byte-exact codec and NUL framing for the DamExchange (DXP) draughts protocol.
#![forbid(unsafe_code)]

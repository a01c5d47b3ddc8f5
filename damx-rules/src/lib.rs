//! International draughts (FMJD, 10x10) rules on bitboards.
#![forbid(unsafe_code)]

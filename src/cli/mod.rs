//! The command line: arguments (`args`) and dispatch of each command to the library (`app`).

pub mod app;
pub mod args;

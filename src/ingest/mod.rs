//! Reading runs: finding run folders, opening untrusted files safely, telling file kinds, parsing bytes into `core::model`, loading a run, finding lines that set secrets, and `inspect`.

pub(crate) mod archived;
pub(crate) mod evidence;
pub mod find;
pub mod gunzip;
pub mod input;
pub mod input_kind;
pub mod inspect;
pub mod layout;
#[cfg(test)]
mod layout_tests;
pub mod load;
pub(crate) mod parse;
pub mod secrets;
pub mod stamp;

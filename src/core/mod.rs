//! Shared vocabulary every stage may use: diagnostics, run ids, the calendar, number formatting and the typed model of a run.

pub(crate) mod calendar;
pub(crate) mod diag;
pub(crate) mod format;
pub mod model;
pub mod run_id;
pub mod stdout;

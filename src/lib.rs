//! nccl-report: archived NCCL experiment runs in, seed-exact summaries and a static site out.
//!
//! Data flows one way: `find` (run folders) -> `parse` (bytes to `model`) -> `summarize`
//! (seed statistics) -> `export` (seed-format files) / `site` (view model) -> `render`
//! (HTML, SVG) -> `write` (the only module that writes the site).

pub mod app;
pub mod cli;
pub mod collect;
pub mod diag;
pub mod input;
pub mod model;
pub mod parse;
pub mod stats;
pub mod synth;

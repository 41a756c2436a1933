//! nccl-report: archived NCCL experiment runs in, seed-exact summaries and a static site out.
//!
//! Data flows one way: `find` (run folders) -> `parse` (bytes to `model`) -> `summarize`
//! (seed statistics) -> `export` (seed-format files) / `site` (view model) -> `render`
//! (HTML, SVG) -> `write` (the only module that writes the site).

pub mod app;
pub(crate) mod archived;
pub(crate) mod build;
pub(crate) mod cache;
pub(crate) mod calendar;
pub mod cli;
pub mod collect;
pub mod comparison;
pub(crate) mod cross_run;
pub(crate) mod diag;
pub(crate) mod export;
pub mod find;
pub(crate) mod format;
pub(crate) mod input;
pub mod input_kind;
pub(crate) mod inspect;
pub mod load;
pub mod model;
pub(crate) mod nccl_perf;
pub(crate) mod out_dir;
pub(crate) mod parse;
pub(crate) mod publish;
pub(crate) mod render;
pub(crate) mod serve;
pub(crate) mod site;
pub(crate) mod stats;
pub mod summarize;
pub mod synth;
pub(crate) mod write;

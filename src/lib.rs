//! nccl-report: archived NCCL experiment runs in, seed-exact summaries and a static site out.
//!
//! Data flows one way: `find` (run folders) -> `parse` (bytes to `model`) -> `summarize`
//! (seed statistics) -> `export` (seed-format files) / `site` (view model) -> `render`
//! (HTML, SVG) -> `write` (the only module that writes the site).

pub mod app;
pub mod archived;
pub mod build;
pub mod cache;
pub mod cli;
pub mod collect;
pub mod comparison;
pub mod cross_run;
pub mod diag;
pub mod export;
pub mod find;
pub mod input;
pub mod inspect;
pub mod load;
pub mod model;
pub mod nccl_perf;
pub mod out_dir;
pub mod parse;
pub mod publish;
pub mod render;
pub mod serve;
pub mod site;
pub mod stats;
pub mod summarize;
pub mod synth;
pub mod write;

//! nccl-report: archived NCCL experiment runs in, seed-exact summaries and a static site out.
//!
//! Data flows one way: `find` (run folders) -> `parse` (bytes to `model`) -> `summarize`
//! (seed statistics) -> `export` (seed-format files) / `site` (view model) -> `render`
//! (HTML, SVG) -> `write` (the only module that writes the site).

pub mod analysis;
pub mod cli;
pub mod collect;
pub mod core;
pub(crate) mod export;
pub mod ingest;
pub(crate) mod output;
pub(crate) mod pipeline;
pub(crate) mod render;
pub(crate) mod site;
pub mod synth;

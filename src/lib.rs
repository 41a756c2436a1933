//! nccl-report: archived NCCL experiment runs in, seed-exact summaries and a static site out.
//!
//! Groups by stage, each using only the groups before it (`tests/layers.rs` enforces it):
//! `core` (diagnostics, run ids, calendar, formatting, the model) <- `ingest` (find, read,
//! parse) <- `analysis` (seed statistics, NCCL views, comparison, run overviews) <- `export`
//! (seed-format files) and `site` (view model) <- `render` (HTML, SVG) <- `pipeline` (the
//! build, its cache and the one writer of the site) <- `output` (publish, serve) <- `cli`.
//! `collect` and `synth` stand beside them (they use `core`, `ingest` and `export`).

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

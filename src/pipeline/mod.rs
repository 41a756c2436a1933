//! The build: one named stage per step (find, load, summarize, compare, site model, render, write), the per-run cache and the cross-run pages.

pub(crate) mod build;
pub(crate) mod cache;
pub(crate) mod cross_run;

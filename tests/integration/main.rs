//! Integration tests of `nccl-report build` and the site: one test binary, one module per
//! concern. Fixture runs live in `tests/fixtures/runs/`, the seed oracle's outputs for them in
//! `tests/fixtures/golden/`.

mod cache;
mod calibration;
mod common;
mod compare;
mod compare_site;
mod consistency;
mod crash;
mod golden;
mod inspect;
mod nccl_corpus;
mod nccl_facts;
mod nccl_perf;
mod pipeline;
mod publish_safety;
mod reliability;
mod runs_json;
mod safe_write;
mod seed_quirks;
mod site;
mod site_look;
mod untrusted;

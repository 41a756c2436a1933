//! Typed model shared by the stages: rows read from runs, facts about a run, and the
//! nccl-tests / NCCL log structures. Plain data; uses nothing of ours but `diag`.

pub mod artifacts;
pub mod facts;
pub mod hosts;
pub mod inspector;
pub mod manifest;
pub mod nccl_log;
pub mod nccl_tests;
pub mod run;
pub mod sections;
pub mod seed_outputs;
pub mod summary;

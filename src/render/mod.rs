//! Rendering: askama page templates, markdown and charts -> bytes. Knows `site` only.

pub mod charts;

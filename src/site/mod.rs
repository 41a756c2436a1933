//! The site's view model: pages, tables, chart specs, formatted numbers and relative URLs,
//! built from run summaries. Knows summaries, not askama or plotters.

pub mod chart;

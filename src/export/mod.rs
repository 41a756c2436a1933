//! Seed-format outputs: the seed's CSV files and `summary.md`, as bytes, for the sections a
//! run holds. Pure functions `summary -> bytes`; `write` puts them on disk.

pub(crate) mod cases;
pub(crate) mod pyfmt;
pub(crate) mod seed_csv;
pub(crate) mod seed_md;

use crate::analysis::summarize::RunSummary;

/// How each seed output is written from a summary: `None` when the run has no data for it.
/// Listed in `SEED_OUTPUTS` order (a unit test holds the two together).
const WRITERS: [(&str, Writer); 9] = [
    ("nccl_tests_raw.csv", |run| non_empty(&run.sections.nccl_tests_raw).map(|r| seed_csv::nccl_tests_raw(r))),
    ("async_summary.csv", |run| non_empty(&run.sections.async_rows).map(|r| seed_csv::async_summary(r))),
    ("decomposition_summary.csv", |run| {
        non_empty(&run.sections.decomposition).map(|r| seed_csv::decomposition_summary(r))
    }),
    ("fragmentation_summary.csv", |run| {
        non_empty(&run.sections.fragmentation).map(|r| seed_csv::fragmentation_summary(r))
    }),
    ("decode_summary.csv", |run| non_empty(&run.sections.decode).map(|r| seed_csv::decode_summary(r))),
    ("nccl_tests_summary.csv", |run| non_empty(&run.sections.nccl_tests).map(|r| seed_csv::nccl_tests_summary(r))),
    ("numeric_summary.csv", |run| non_empty(&run.sections.numerics).map(|r| seed_csv::numeric_summary(r))),
    ("summary.csv", |run| (!run.unified.is_empty()).then(|| seed_csv::unified(&run.unified))),
    ("summary.md", |run| Some(seed_md::render(run))),
];

type Writer = fn(&RunSummary) -> Option<Vec<u8>>;

/// (file name, bytes) of every seed output this run has data for, in the seed's order.
pub(crate) fn seed_files(run: &RunSummary) -> Vec<(&'static str, Vec<u8>)> {
    WRITERS.iter().filter_map(|(name, write)| write(run).map(|bytes| (*name, bytes))).collect()
}

fn non_empty<T>(rows: &Option<Vec<T>>) -> Option<&Vec<T>> {
    rows.as_ref().filter(|r| !r.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::model::seed_outputs::SEED_OUTPUTS;

    #[test]
    fn every_seed_output_has_one_writer_in_order() {
        let names: Vec<&str> = WRITERS.iter().map(|(name, _)| *name).collect();
        assert_eq!(names, SEED_OUTPUTS);
    }
}

//! The seed's unified `summary.csv` rows, in the seed's section order.

use crate::analysis::summarize::RunSummary;
use crate::core::model::summary::{Number, UnifiedRow};

pub fn rows(run: &RunSummary) -> Vec<UnifiedRow> {
    let mut out = Vec::new();
    let timed = |section, world_size, case, metric, median, p95, cv, samples, correct| UnifiedRow {
        section,
        world_size: Some(world_size),
        case,
        metric,
        median: Number::Float(median),
        p95: Some(p95),
        cv_percent: Some(cv),
        samples,
        correct,
    };
    for r in run.sections.async_rows.iter().flatten() {
        out.push(timed(
            "async",
            r.world_size,
            format!("bytes={}", r.size_bytes),
            "gpu_dependency_us",
            r.median_gpu_dependency_us,
            r.p95_gpu_dependency_us,
            r.gpu_cv_percent,
            r.cycles,
            r.correct,
        ));
    }
    for r in run.sections.decomposition.iter().flatten() {
        out.push(timed(
            "decomposition",
            r.world_size,
            format!("bytes={};mode={}", r.size_bytes, r.mode),
            "duration_us",
            r.median_duration_us,
            r.p95_duration_us,
            r.cv_percent,
            r.cycles,
            true,
        ));
    }
    for r in run.sections.fragmentation.iter().flatten() {
        out.push(timed(
            "fragmentation",
            r.world_size,
            format!("count={};fragment_bytes={}", r.fragment_count, r.fragment_bytes),
            "duration_us_for_80MiB",
            r.median_duration_us,
            r.p95_duration_us,
            r.cv_percent,
            r.cycles,
            true,
        ));
    }
    for r in run.sections.decode.iter().flatten() {
        out.push(timed(
            "decode",
            r.world_size,
            format!("tokens={};bytes={};calls={}", r.tokens, r.message_bytes, r.collectives),
            "replay_total_us",
            r.median_total_us,
            r.p95_total_us,
            r.cv_percent,
            r.cycles,
            true,
        ));
    }
    for r in run.sections.nccl_tests.iter().flatten() {
        out.push(timed(
            "nccl_tests_decode_sizes",
            r.world_size as i64,
            format!("bytes={}", r.size_bytes),
            "time_us",
            r.median_time_us,
            r.p95_time_us,
            r.cv_percent,
            r.cycles,
            r.wrong_total == 0,
        ));
    }
    for r in run.sections.numerics.iter().flatten() {
        out.push(UnifiedRow {
            section: "numerics",
            world_size: r.world_size,
            case: r.scenario.clone(),
            metric: "fp16_mismatch_count",
            median: Number::Int(r.fp16_mismatch_count as i64),
            p95: None,
            cv_percent: None,
            samples: r.cases,
            correct: r.fp32_mismatch_count == 0,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::summarize::{nccl_tests, numerics, RunStatus};
    use crate::core::model::run::RawRun;
    use crate::core::model::sections::NumericsRow;
    use crate::core::model::summary::{NcclTestsRawRow, SectionSummaries};

    #[test]
    fn seed_order_verdicts_and_numerics_counts() {
        let raw = |time_us, wrong| NcclTestsRawRow {
            cycle: 0,
            size_bytes: 8192,
            time_us,
            algbw_gbs: 1.0,
            busbw_gbs: 1.0,
            wrong: Some(wrong),
            inplace_time_us: time_us,
            inplace_algbw_gbs: 1.0,
            inplace_busbw_gbs: 1.0,
            inplace_wrong: Some(0),
            world_size: 2,
        };
        let numeric = NumericsRow {
            rank: 0,
            world_size: Some(4),
            scenario: "sum_order".into(),
            fp16_matches_real_sum: false,
            fp32_matches_real_sum: true,
            fp16_result: "inf".into(),
        };
        let run = RunSummary {
            raw: RawRun::default(),
            facts: Default::default(),
            contracts: None,
            sections: SectionSummaries {
                numerics: Some(numerics::summarize(&[&numeric])),
                nccl_tests: Some(nccl_tests::summarize(&[raw(10.0, 1), raw(12.0, 0)])),
                ..SectionSummaries::default()
            },
            nccl_perf: None,
            unified: Vec::new(),
            status: RunStatus::Ok,
        };
        let rows = super::rows(&run);
        // The seed's order: nccl-tests before numerics; one wrong value fails the nccl-tests
        // case; numerics put the integer count in `median` and leave p95 and CV empty.
        assert_eq!(rows.len(), 2);
        let (nccl, num) = (&rows[0], &rows[1]);
        assert_eq!(
            (nccl.section, nccl.world_size, nccl.case.as_str()),
            ("nccl_tests_decode_sizes", Some(2), "bytes=8192")
        );
        assert_eq!((nccl.metric, nccl.p95, nccl.samples, nccl.correct), ("time_us", Some(12.0), 2, false));
        assert!(matches!(nccl.median, Number::Float(m) if m == 11.0));
        assert_eq!((num.section, num.world_size, num.case.as_str()), ("numerics", Some(4), "sum_order"));
        assert!(matches!(num.median, Number::Int(1)));
        assert_eq!((num.p95, num.cv_percent, num.samples, num.correct), (None, None, 1, true));
    }
}

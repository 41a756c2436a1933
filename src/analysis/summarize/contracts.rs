//! Per-rank contracts: every row counted, every `correct=False` row kept as a failure.

use crate::core::diag::{Code, Diagnostic};
use crate::core::model::run::SectionData;
use crate::core::model::sections::SectionRows;
use crate::core::model::summary::{ContractFailure, ContractsSummary};

pub fn summarize(sections: &[SectionData], diagnostics: &mut Vec<Diagnostic>) -> Option<ContractsSummary> {
    let mut summary = ContractsSummary::default();
    let mut any = false;
    for data in sections {
        let SectionRows::Contracts(rows) = &data.rows else { continue };
        any = true;
        summary.total += rows.len();
        for record in rows {
            let (line, fields) = (&record.line, &record.fields);
            if !record.row.correct {
                let text: Vec<String> = fields.iter().map(|(k, v)| format!("{k}={v}")).collect();
                diagnostics.push(Diagnostic::failure(
                    Code::ContractFailed,
                    &data.file,
                    Some(*line),
                    format!("contract failed: {}", text.join(", ")),
                ));
                summary.failures.push(ContractFailure { file: data.file.clone(), line: *line, fields: fields.clone() });
            }
        }
    }
    any.then_some(summary)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::diag::Severity;
    use crate::core::model::sections::{ContractRecord, ContractRow};

    fn record(line: u64, correct: bool) -> ContractRecord {
        let fields = vec![("check".to_string(), "c".to_string()), ("correct".to_string(), correct.to_string())];
        ContractRecord { line, row: ContractRow { correct }, fields }
    }

    #[test]
    fn every_false_row_is_a_failure_at_its_file_and_line() {
        let data = SectionData {
            case: "world4_full".into(),
            rank: 3,
            file: "raw/results/world4_full/rank3_contracts.csv".into(),
            rows: SectionRows::Contracts(vec![record(2, true), record(3, false), record(4, true)]),
        };
        let mut diagnostics = Vec::new();
        let summary = summarize(&[data], &mut diagnostics).unwrap();
        assert_eq!((summary.total, summary.failures.len()), (3, 1));
        assert_eq!(diagnostics.len(), 1);
        let failure = &diagnostics[0];
        assert_eq!(failure.severity, Severity::Failure);
        assert_eq!((failure.file.as_str(), failure.line), ("raw/results/world4_full/rank3_contracts.csv", Some(3)));
        assert_eq!(failure.message, "contract failed: check=c, correct=false");
    }

    #[test]
    fn no_contract_files_is_no_summary() {
        let mut diagnostics = Vec::new();
        assert!(summarize(&[], &mut diagnostics).is_none());
        assert!(diagnostics.is_empty());
    }
}

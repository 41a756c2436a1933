//! Per-rank contracts: every row counted, every `correct=False` row kept as a failure.

use crate::diag::Diagnostic;
use crate::model::run::SectionData;
use crate::model::sections::SectionRows;
use crate::model::summary::{ContractFailure, ContractsSummary};

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

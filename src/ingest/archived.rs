//! The seed's summary files archived in a run against the recomputed ones (not run against
//! run: that is `comparison`): CSVs cell
//! by cell (numbers within 1e-9 relative, everything else exactly), `summary.md` by its table
//! rows. Each differing file gives one warning naming the first difference.

use crate::core::diag::{Code, Diagnostic};

/// Relative tolerance for numbers, as promised for every seed statistic.
pub(crate) const REL_TOL: f64 = 1e-9;

pub(crate) fn differences(archived: &[(String, Vec<u8>)], recomputed: &[(&str, Vec<u8>)]) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (name, old) in archived {
        let Some((_, new)) = recomputed.iter().find(|(n, _)| n == name) else {
            out.push(Diagnostic::warning(
                Code::ArchivedUnmatched,
                name,
                None,
                "archived seed output has no recomputed counterpart (section missing or unreadable)",
            ));
            continue;
        };
        let difference = if name.ends_with(".md") { compare_md(old, new) } else { compare_csv(old, new) };
        if let Some((line, what)) = difference {
            out.push(Diagnostic::warning(
                Code::ArchivedDiffers,
                name,
                line,
                format!("differs from the recomputed value: {what}"),
            ));
        }
    }
    out
}

fn table_lines(bytes: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(bytes).lines().filter(|l| l.starts_with('|')).map(str::to_string).collect()
}

fn compare_md(old: &[u8], new: &[u8]) -> Option<(Option<u64>, String)> {
    let (old, new) = (table_lines(old), table_lines(new));
    for (i, (a, b)) in old.iter().zip(new.iter()).enumerate() {
        if a != b {
            return Some((None, format!("table row {}: archived {a:?}, recomputed {b:?}", i + 1)));
        }
    }
    (old.len() != new.len()).then(|| (None, format!("{} table rows archived, {} recomputed", old.len(), new.len())))
}

fn records(bytes: &[u8]) -> Result<Vec<csv::StringRecord>, String> {
    csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(bytes)
        .records()
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())
}

fn compare_csv(old: &[u8], new: &[u8]) -> Option<(Option<u64>, String)> {
    let old = match records(old) {
        Ok(r) => r,
        Err(e) => return Some((None, format!("archived file unreadable: {e}"))),
    };
    let new = records(new).unwrap_or_default();
    let header = old.first().cloned().unwrap_or_default();
    for (i, (a, b)) in old.iter().zip(new.iter()).enumerate() {
        let line = Some(i as u64 + 1);
        if a.len() != b.len() {
            return Some((line, format!("{} fields archived, {} recomputed", a.len(), b.len())));
        }
        for (column, (x, y)) in a.iter().zip(b.iter()).enumerate() {
            if !same_cell(x, y) {
                let name = header.get(column).unwrap_or("?");
                return Some((line, format!("column {name}: archived {x:?}, recomputed {y:?}")));
            }
        }
    }
    (old.len() != new.len()).then(|| (None, format!("{} rows archived, {} recomputed", old.len(), new.len())))
}

fn same_cell(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    match (a.parse::<f64>(), b.parse::<f64>()) {
        // An infinity matches only itself (`inf - 2.44` is within `REL_TOL * inf`).
        (Ok(x), Ok(y)) => x == y || (x.is_finite() && y.is_finite() && (x - y).abs() <= REL_TOL * x.abs().max(y.abs())),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_within_tolerance_are_equal() {
        let archived = vec![("a.csv".to_string(), b"x,y\r\n1,0.30000000000000004\r\n".to_vec())];
        assert!(differences(&archived, &[("a.csv", b"x,y\r\n1,0.3\r\n".to_vec())]).is_empty());
        let diags = differences(&archived, &[("a.csv", b"x,y\r\n1,0.31\r\n".to_vec())]);
        assert_eq!(diags.len(), 1);
        assert_eq!(diags[0].line, Some(2));
        assert!(diags[0].message.contains("column y"), "{}", diags[0].message);
        // An infinity is within any relative tolerance of a finite number: it matches itself only.
        for (a, b) in [("2.44", "inf"), ("inf", "2.44"), ("-inf", "inf"), ("NaN", "nan")] {
            assert!(!same_cell(a, b), "{a} {b}");
        }
        assert!(same_cell("inf", "inf") && same_cell("nan", "nan"), "the same text");
    }

    #[test]
    fn markdown_tables_compared_by_rows() {
        let archived = vec![("summary.md".to_string(), b"# t\n| a | 1 |\nprose\n".to_vec())];
        assert!(differences(&archived, &[("summary.md", b"# other\n| a | 1 |\n".to_vec())]).is_empty());
        assert_eq!(differences(&archived, &[("summary.md", b"| a | 2 |\n".to_vec())]).len(), 1);
    }
}

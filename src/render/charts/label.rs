//! Tick labels: plain decimals with a unit suffix (`12.5`, `1.2k`, `8 KiB`), never `1e3`-style
//! noise except for magnitudes that plain notation cannot show.

/// How an axis names its values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Units {
    /// Sizes in bytes: binary prefixes (`KiB`, `MiB`, ...).
    Bytes,
    /// Measurements: decimal suffixes from a thousand on (`1.2k`, `3M`).
    Number,
    /// Counts on a base-2 axis: whole numbers below ten million (`1024`, `1048576`), then
    /// `M`, `G`, `T` (`16.8M`).
    Count,
}

const MAX_DECIMALS: usize = 9;
const BYTE_UNITS: [(f64, &str); 5] =
    [(1125899906842624.0, "PiB"), (1099511627776.0, "TiB"), (1073741824.0, "GiB"), (1048576.0, "MiB"), (1024.0, "KiB")];
const DECIMAL_UNITS: [(f64, &str); 4] = [(1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")];

/// The label of tick `value`. `step` is the tick spacing on evenly spaced ticks: the label
/// then has exactly the decimals the spacing needs and no unit much coarser than the step
/// (`1000.5`, not `1.0005k`); otherwise at most 3 significant digits.
pub(super) fn tick_label(value: f64, units: Units, step: Option<f64>) -> String {
    let value = if value == 0.0 { 0.0 } else { value };
    if value != 0.0 && (value.abs() < 1e-6 || value.abs() >= 1e18) {
        return with_unit(format!("{value:e}"), "", units);
    }
    let (divisor, suffix) = unit(value, units, step);
    let scaled = value / divisor;
    let decimals = match step {
        Some(step) => exact_decimals(step / divisor),
        None => exact_decimals(scaled).min(significant_decimals(scaled, 3)),
    };
    with_unit(trim(format!("{scaled:.decimals$}")), suffix, units)
}

fn unit(value: f64, units: Units, step: Option<f64>) -> (f64, &'static str) {
    let (table, smallest_multiple): (&[(f64, &str)], f64) = match units {
        Units::Bytes => (&BYTE_UNITS, 1.0),
        Units::Number => (&DECIMAL_UNITS, 1.0),
        Units::Count => (&DECIMAL_UNITS[..3], 10.0),
    };
    table
        .iter()
        .copied()
        .filter(|&(divisor, _)| step.is_none_or(|step| divisor <= 10.0 * step))
        .find(|&(divisor, _)| value.abs() >= divisor * smallest_multiple)
        .unwrap_or((1.0, ""))
}

fn with_unit(number: String, suffix: &str, units: Units) -> String {
    match units {
        Units::Bytes if suffix.is_empty() => format!("{number} B"),
        Units::Bytes => format!("{number} {suffix}"),
        Units::Number | Units::Count => format!("{number}{suffix}"),
    }
}

/// Fewest decimals (up to `MAX_DECIMALS`) that show `value` exactly.
fn exact_decimals(value: f64) -> usize {
    (0..MAX_DECIMALS)
        .find(|&d| {
            let shifted = value * 10f64.powi(d as i32);
            (shifted - shifted.round()).abs() <= 1e-9 * shifted.abs().max(1.0)
        })
        .unwrap_or(MAX_DECIMALS)
}

/// Decimals that keep `digits` significant digits of `value`.
fn significant_decimals(value: f64, digits: i32) -> usize {
    if value == 0.0 {
        return 0;
    }
    let magnitude = value.abs().log10().floor() as i32;
    (digits - 1 - magnitude).clamp(0, MAX_DECIMALS as i32) as usize
}

fn trim(number: String) -> String {
    let trimmed = if number.contains('.') { number.trim_end_matches('0').trim_end_matches('.') } else { &number };
    match trimmed {
        "-0" => "0".to_string(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_use_binary_units() {
        let label = |v| tick_label(v, Units::Bytes, None);
        assert_eq!(label(8.0 * 1024.0), "8 KiB");
        assert_eq!(label(1048576.0), "1 MiB");
        assert_eq!(label(64.0 * 1048576.0), "64 MiB");
        assert_eq!(label(512.0), "512 B");
        assert_eq!(label(1536.0), "1.5 KiB");
        assert_eq!(label(4.0 * 1073741824.0), "4 GiB");
    }

    #[test]
    fn numbers_are_plain_with_suffixes() {
        let label = |v| tick_label(v, Units::Number, None);
        assert_eq!(label(12.5), "12.5");
        assert_eq!(label(1200.0), "1.2k");
        assert_eq!(label(0.001), "0.001");
        assert_eq!(label(2e6), "2M");
        assert_eq!(label(-0.0), "0");
        assert_eq!(label(1e-9), "1e-9");
        assert_eq!(tick_label(65536.0, Units::Count, None), "65536");
        assert_eq!(tick_label(1048576.0, Units::Count, None), "1048576");
        assert_eq!(tick_label(16777216.0, Units::Count, None), "16.8M");
    }

    #[test]
    fn evenly_spaced_ticks_get_the_decimals_of_the_step() {
        let labels: Vec<_> =
            [1000.0, 1000.5, 1001.0].iter().map(|&v| tick_label(v, Units::Number, Some(0.5))).collect();
        assert_eq!(labels, ["1000", "1000.5", "1001"]);
        assert_eq!(tick_label(1500.0, Units::Number, Some(500.0)), "1.5k");
        assert_eq!(tick_label(0.30000000000000004, Units::Number, Some(0.1)), "0.3");
        assert_eq!(tick_label(1.25 * 1048576.0, Units::Bytes, Some(262144.0)), "1.25 MiB");
    }
}

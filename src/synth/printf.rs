//! printf's `%g`, as nccl-tests prints some numbers (Python's formats are in `export::pyfmt`).

/// printf's `%g` for finite non-negative values: six significant digits, trailing zeros
/// dropped, exponent form below 1e-4 or from 1e6.
pub(super) fn c_general(value: f64) -> String {
    if value == 0.0 {
        return "0".to_string();
    }
    let exponent = decimal_exponent(value);
    if !(-4..6).contains(&exponent) {
        let text = format!("{value:.5e}");
        let (mantissa, exp) = text.split_once('e').unwrap_or((&text, "0"));
        let exp: i32 = exp.parse().unwrap_or(0);
        let sign = if exp < 0 { '-' } else { '+' };
        return format!("{}e{sign}{:02}", trim_zeros(mantissa), exp.abs());
    }
    let decimals = (5 - exponent) as usize;
    trim_zeros(&format!("{value:.decimals$}")).to_string()
}

/// The exponent of `value` in scientific notation after rounding to six digits.
fn decimal_exponent(value: f64) -> i32 {
    let text = format!("{value:.5e}");
    text.split_once('e').and_then(|(_, e)| e.parse().ok()).unwrap_or(0)
}

fn trim_zeros(text: &str) -> &str {
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.')
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printf_general() {
        assert_eq!(c_general(0.0), "0");
        assert_eq!(c_general(97.123456), "97.1235");
        assert_eq!(c_general(12.5), "12.5");
        assert_eq!(c_general(999999.7), "1e+06");
        assert_eq!(c_general(0.00001234), "1.234e-05");
    }
}

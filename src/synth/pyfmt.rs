//! Text the way Python and C print it: `repr(float)`, `str(bool)`, `csv.writer` rows
//! (minimal quoting, `\r\n` line ends) and printf's `%g`.

/// Python's `repr(float)`: shortest round-trip digits, `.0` on integral values, exponent
/// form (`1e-05`, `1e+16`) outside `[1e-4, 1e16)`, and `inf`/`-inf`/`nan`.
pub fn py_float(value: f64) -> String {
    if value.is_nan() {
        return "nan".to_string();
    }
    if value.is_infinite() {
        return if value > 0.0 { "inf" } else { "-inf" }.to_string();
    }
    let debug = format!("{value:?}");
    match debug.split_once('e') {
        Some((mantissa, exponent)) => {
            let (sign, digits) = exponent.strip_prefix('-').map_or(("+", exponent), |d| ("-", d));
            format!("{mantissa}e{sign}{digits:0>2}")
        }
        None => debug,
    }
}

/// Python's `str(bool)`.
pub fn py_bool(value: bool) -> &'static str {
    if value {
        "True"
    } else {
        "False"
    }
}

/// One row as Python's `csv.writer` writes it by default.
pub fn csv_row<S: AsRef<str>>(out: &mut String, fields: &[S]) {
    for (index, field) in fields.iter().enumerate() {
        if index > 0 {
            out.push(',');
        }
        let field = field.as_ref();
        if field.contains([',', '"', '\r', '\n']) {
            out.push('"');
            out.push_str(&field.replace('"', "\"\""));
            out.push('"');
        } else {
            out.push_str(field);
        }
    }
    out.push_str("\r\n");
}

/// printf's `%g` for finite non-negative values: six significant digits, trailing zeros
/// dropped, exponent form below 1e-4 or from 1e6.
pub fn c_general(value: f64) -> String {
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
    fn python_float_repr() {
        assert_eq!(py_float(1.0), "1.0");
        assert_eq!(py_float(352.81699895858765), "352.81699895858765");
        assert_eq!(py_float(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(py_float(1e-5), "1e-05");
        assert_eq!(py_float(1.5e16), "1.5e+16");
        assert_eq!(py_float(-f64::INFINITY), "-inf");
        assert_eq!(py_float(-0.0), "-0.0");
    }

    #[test]
    fn csv_quoting_and_line_end() {
        let mut out = String::new();
        csv_row(&mut out, &["a", "b,c", "say \"hi\""]);
        assert_eq!(out, "a,\"b,c\",\"say \"\"hi\"\"\"\r\n");
    }

    #[test]
    fn printf_general() {
        assert_eq!(c_general(0.0), "0");
        assert_eq!(c_general(97.123456), "97.1235");
        assert_eq!(c_general(12.5), "12.5");
        assert_eq!(c_general(999999.7), "1e+06");
        assert_eq!(c_general(0.00001234), "1.234e-05");
    }
}

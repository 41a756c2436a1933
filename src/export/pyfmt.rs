//! Python's number formatting, so exported files carry the seed's exact text: `repr(float)`
//! (shortest round-trip digits; exponent form below 1e-4 and from 1e16), `format(x, ".Nf")`
//! and `format(x, ".N%")`. Uses std, `ryu` and `itoa`.

/// `repr(x)` for a Python float.
pub(crate) fn repr(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0.0".into() } else { "0.0".into() };
    }
    let mut buffer = ryu::Buffer::new();
    let (digits, decpt) = shortest_digits(buffer.format_finite(x.abs()));
    layout(x < 0.0, digits.as_str(), decpt)
}

/// At most 17 significant digits (a double's shortest round-trip text), on the stack.
struct Digits {
    bytes: [u8; 24],
    len: usize,
}

impl Digits {
    fn as_str(&self) -> &str {
        std::str::from_utf8(&self.bytes[..self.len]).expect("ASCII digits")
    }
}

/// The significant digits of ryu's text for a positive finite double, and where the decimal
/// point goes (the value is `0.DIGITS` x 10^`decpt`). Ryu gives the fewest digits that read
/// back as the double and, where two such strings are equally near it (74.987213134765625,
/// 11.5861968994140625: float32 values, as GPU timings often are), the even one, as Python's
/// repr does (Rust's `{}` takes the upper one); it writes `1.5e-7`, `1e16`, `123.0`, `0.0001`.
fn shortest_digits(text: &str) -> (Digits, i32) {
    let (mantissa, exponent) = text.split_once('e').unwrap_or((text, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let mut digits = Digits { bytes: [0; 24], len: 0 };
    let mut lead = 0;
    for &b in whole.as_bytes().iter().chain(fraction.as_bytes()) {
        if digits.len == 0 && b == b'0' {
            lead += 1;
        } else if digits.len < digits.bytes.len() {
            digits.bytes[digits.len] = b;
            digits.len += 1;
        }
    }
    while digits.len > 0 && digits.bytes[digits.len - 1] == b'0' {
        digits.len -= 1;
    }
    (digits, whole.len() as i32 + exponent - lead)
}

/// Python's repr layout of `digits` with the decimal point at `decpt`: positional when the
/// point falls at -3..=16 (exactly when 1e-4 <= |x| < 1e16), else `d.ddde+XX`. Written into
/// one string (a run's seed files format tens of thousands of floats).
fn layout(negative: bool, digits: &str, decpt: i32) -> String {
    let mut out = String::with_capacity(digits.len() + 24);
    if negative {
        out.push('-');
    }
    let zeros = |out: &mut String, n: usize| out.extend(std::iter::repeat_n('0', n));
    if decpt > -4 && decpt <= 16 {
        if decpt <= 0 {
            out.push_str("0.");
            zeros(&mut out, (-decpt) as usize);
            out.push_str(digits);
        } else if decpt as usize >= digits.len() {
            out.push_str(digits);
            zeros(&mut out, decpt as usize - digits.len());
            out.push_str(".0");
        } else {
            let (whole, fraction) = digits.split_at(decpt as usize);
            out.push_str(whole);
            out.push('.');
            out.push_str(fraction);
        }
    } else {
        let (first, rest) = digits.split_at(1);
        out.push_str(first);
        if !rest.is_empty() {
            out.push('.');
            out.push_str(rest);
        }
        let exponent = decpt - 1;
        out.push_str(if exponent < 0 { "e-" } else { "e+" });
        if exponent.abs() < 10 {
            out.push('0');
        }
        out.push_str(itoa::Buffer::new().format(exponent.abs()));
    }
    out
}

/// `format(x, ".{precision}f")`.
pub(crate) fn fixed(x: f64, precision: usize) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    format!("{x:.precision$}")
}

/// `format(x, ".{precision}%")`: x * 100 in f64, fixed, then `%`.
pub(crate) fn percent(x: f64, precision: usize) -> String {
    format!("{}%", fixed(x * 100.0, precision))
}

/// `str(bool)`.
pub(crate) fn py_bool(b: bool) -> &'static str {
    if b {
        "True"
    } else {
        "False"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The digits and decimal point of `|x|` as the code before ryu found them, kept as an
    /// independent oracle: std's `{:e}` gives the fewest digits that read back as `x` but,
    /// where two are equally near (74.987213134765625, 11.5861968994140625), the upper one;
    /// when they end odd, `x` rounded to as many digits with ties to even (`{:.Ne}`) is taken
    /// instead, if it reads back as `x`.
    fn std_digits(x: f64) -> (String, i32) {
        let mut sci = format!("{:e}", x.abs());
        let (mantissa, _) = sci.split_once('e').expect("{:e} always has an exponent");
        let count = mantissa.bytes().filter(u8::is_ascii_digit).count();
        if count > 1 && mantissa.bytes().last().is_some_and(|b| b % 2 == 1) {
            let even = format!("{:.*e}", count - 1, x.abs());
            if even.parse::<f64>().is_ok_and(|back| back == x.abs()) {
                sci = even;
            }
        }
        let (mantissa, exponent) = sci.split_once('e').expect("{:e} always has an exponent");
        let exponent: i32 = exponent.parse().expect("{:e} exponent is an integer");
        (mantissa.chars().filter(|c| *c != '.').collect(), exponent + 1)
    }

    /// `repr` with the oracle's digits.
    fn std_repr(x: f64) -> String {
        if !x.is_finite() || x == 0.0 {
            return repr(x);
        }
        let (digits, decpt) = std_digits(x);
        layout(x < 0.0, &digits, decpt)
    }

    #[test]
    // The ties are written as the exact values of their doubles, on purpose.
    #[allow(clippy::excessive_precision)]
    fn repr_matches_python() {
        // Expected strings from python3 -c "print(repr(x))".
        let cases = [
            (0.1, "0.1"),
            (12.0, "12.0"),
            (1e16, "1e+16"),
            (1.5e16, "1.5e+16"),
            (1234567890123456.0, "1234567890123456.0"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1.5e-5, "1.5e-05"),
            (-2.5, "-2.5"),
            (123456.789, "123456.789"),
            (1.0 / 3.0, "0.3333333333333333"),
            (65504.0, "65504.0"),
            (-0.0, "-0.0"),
            (f64::INFINITY, "inf"),
            (f64::NAN, "nan"),
            (2.0f64.powi(60), "1.152921504606847e+18"),
            // One ulp either side of both ends of the positional range (1e16 and 1e-4).
            (f64::from_bits(1e16f64.to_bits() - 1), "9999999999999998.0"),
            (f64::from_bits(1e16f64.to_bits() + 1), "1.0000000000000002e+16"),
            (f64::from_bits(1e-4f64.to_bits() - 1), "9.999999999999999e-05"),
            (f64::from_bits(1e-4f64.to_bits() + 1), "0.00010000000000000002"),
            (-f64::from_bits(1e16f64.to_bits() - 1), "-9999999999999998.0"),
            (-f64::from_bits(1e-4f64.to_bits() - 1), "-9.999999999999999e-05"),
            // Exact ties between the two nearest shortest strings (float32 values, as GPU
            // timings often are): Python takes the even one.
            (11.5861968994140625, "11.586196899414062"),
            (-217.027130126953125, "-217.02713012695312"),
            (1.94913482666015625, "1.9491348266601562"),
            (16418452069.1640625, "16418452069.164062"),
            (1092509121629036.25, "1092509121629036.2"),
            (-74.987213134765625, "-74.98721313476562"),
            (765101603.78515625, "765101603.7851562"),
            // A fragmentation maximum of a bundled H200 run (runs/20261203T084705Z, written
            // by the worker as 11360.671997070312; this tool wrote ...313 until stop 36).
            (11360.6719970703125, "11360.671997070312"),
        ];
        for (x, expected) in cases {
            assert_eq!(repr(x), expected, "{x:e}");
        }
    }

    proptest::proptest! {
        /// Ryu's digits laid out as Python does give what std's formatting (ties mended) gives,
        /// over every kind of finite double, float32 values (ties are common among them) and
        /// around both ends of the positional range.
        #[test]
        fn ryu_digits_match_std_formatting_with_ties_to_even(
            bits in proptest::prelude::any::<u64>(),
            near in -40i64..40,
            end in 0usize..2,
            mantissa in 1.0f64..10.0,
            scale in -6i32..18,
        ) {
            let x = f64::from_bits(bits);
            if x.is_finite() {
                proptest::prop_assert_eq!(repr(x), std_repr(x));
            }
            let single = f64::from(f32::from_bits(bits as u32));
            if single.is_finite() {
                proptest::prop_assert_eq!(repr(single), std_repr(single));
            }
            let z = mantissa * 10f64.powi(scale);
            proptest::prop_assert_eq!(repr(z), std_repr(z));
            let edge = [1e-4f64, 1e16][end];
            let y = f64::from_bits((edge.to_bits() as i64 + near) as u64);
            proptest::prop_assert_eq!(repr(y), std_repr(y));
            proptest::prop_assert_eq!(repr(-y), std_repr(-y));
        }
    }

    #[test]
    fn fixed_and_percent_match_python() {
        assert_eq!(fixed(0.125, 2), "0.12");
        assert_eq!(fixed(2.5, 0), "2");
        assert_eq!(fixed(f64::NAN, 3), "nan");
        assert_eq!(fixed(f64::INFINITY, 3), "inf");
        assert_eq!(percent(0.125, 1), "12.5%");
        assert_eq!(percent(1.0, 1), "100.0%");
    }
}

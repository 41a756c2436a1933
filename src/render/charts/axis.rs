//! One chart axis as a plotters coordinate: maps linear or log values to pixels and chooses
//! its own round ticks (1-2-5 steps, powers of two or ten) with ready-made labels.

use std::ops::Range;

use plotters::coord::ranged1d::{KeyPointHint, NoDefaultFormatting, Ranged, ValueFormatter};

use super::label::{tick_label, Units};
use crate::site::chart::Scale;

/// Fraction of the data span added on each side so markers stay off the frame.
const PAD: f64 = 0.04;

/// How many ticks an axis aims at: fewer on the phone chart's narrow x axis.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Density {
    /// Most major ticks on log axes before thinning them to every 2nd, 5th, 10th... power.
    pub max_power_ticks: i64,
    /// Linear axes aim at about this many intervals.
    pub linear_intervals: f64,
}

impl Density {
    pub(crate) const NORMAL: Density = Density { max_power_ticks: 8, linear_intervals: 5.0 };
    pub(crate) const SPARSE: Density = Density { max_power_ticks: 4, linear_intervals: 3.0 };
}

#[derive(Clone)]
pub(super) struct Axis {
    scale: Scale,
    units: Units,
    /// Visible range in transformed units (value, log2 or log10 of it).
    lo: f64,
    hi: f64,
    major: Vec<(f64, String)>,
    minor: Vec<f64>,
    /// Names of the places 0, 1, ... of a named axis (`named`); empty on a numeric one.
    names: Vec<String>,
}

struct Ticks {
    major: Vec<f64>,
    /// Spacing of evenly spaced major ticks (linear layout), for their labels.
    step: Option<f64>,
    minor: Vec<f64>,
}

impl Axis {
    /// An axis showing `extent` (finite, and positive on log scales).
    pub(super) fn new(scale: Scale, units: Units, extent: (f64, f64), density: Density) -> Axis {
        let (lo, hi) = padded(scale, extent);
        let ticks = choose_ticks(scale, units, inverse(scale, lo), inverse(scale, hi), density);
        let in_view = |v: &f64| {
            let t = transform(scale, *v);
            lo <= t && t <= hi && (scale != Scale::Linear || extent.0 < 0.0 || *v >= 0.0)
        };
        let major = ticks.major.into_iter().filter(in_view).map(|v| (v, tick_label(v, units, ticks.step))).collect();
        let minor = ticks.minor.into_iter().filter(in_view).collect();
        Axis { scale, units, lo, hi, major, minor, names: Vec::new() }
    }

    /// An axis of named places 0, 1, ..., n-1 (a history's runs): every name a tick while
    /// they fit (the density's power-tick budget), else every k-th, the last always.
    pub(super) fn named(names: &[String], density: Density) -> Axis {
        let last = names.len().saturating_sub(1);
        let (lo, hi) = padded(Scale::Linear, (0.0, last as f64));
        let every = names.len().div_ceil(density.max_power_ticks.max(1) as usize).max(1);
        let major = names
            .iter()
            .enumerate()
            .filter(|(i, _)| *i == last || (i % every == 0 && last - i >= every))
            .map(|(i, name)| (i as f64, name.clone()))
            .collect();
        let minor = (0..names.len()).map(|i| i as f64).collect();
        Axis { scale: Scale::Linear, units: Units::Number, lo, hi, major, minor, names: names.to_vec() }
    }

    /// A value as the axis names it (`64 KiB`, `12.3`, a run's name), for a point's hover text.
    pub(super) fn value_label(&self, value: f64) -> String {
        let place = (value >= 0.0 && value.fract() == 0.0).then_some(value as usize);
        match place.and_then(|i| self.names.get(i)) {
            Some(name) => name.clone(),
            None => tick_label(value, self.units, None),
        }
    }

    pub(super) fn labels(&self) -> impl Iterator<Item = &str> {
        self.major.iter().map(|(_, label)| label.as_str())
    }
}

impl Ranged for Axis {
    type FormatOption = NoDefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let t = transform(self.scale, *value);
        let fraction = if t.is_finite() { (t - self.lo) / (self.hi - self.lo) } else { 0.0 };
        (f64::from(limit.0) + fraction * f64::from(limit.1 - limit.0)).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            self.minor.clone()
        } else {
            self.major.iter().map(|(v, _)| *v).collect()
        }
    }

    fn range(&self) -> Range<f64> {
        inverse(self.scale, self.lo)..inverse(self.scale, self.hi)
    }
}

impl ValueFormatter<f64> for Axis {
    fn format_ext(&self, value: &f64) -> String {
        self.major.iter().find(|(v, _)| v == value).map(|(_, label)| label.clone()).unwrap_or_default()
    }
}

fn transform(scale: Scale, v: f64) -> f64 {
    match scale {
        Scale::Linear => v,
        Scale::Log2 => v.log2(),
        Scale::Log10 => v.log10(),
    }
}

fn inverse(scale: Scale, t: f64) -> f64 {
    match scale {
        Scale::Linear => t,
        Scale::Log2 => t.exp2(),
        Scale::Log10 => 10f64.powf(t),
    }
}

/// The visible range in transformed units: the data, widened when it is a single value,
/// plus `PAD` on each side.
fn padded(scale: Scale, (min, max): (f64, f64)) -> (f64, f64) {
    let (t0, t1) = (transform(scale, min), transform(scale, max));
    let (t0, t1) = match scale {
        Scale::Linear if t1 - t0 <= 1e-9 * t0.abs().max(t1.abs()) => {
            let half = if t0 == 0.0 { 1.0 } else { t0.abs() * 0.1 };
            (t0 - half, t1 + half)
        }
        Scale::Log2 | Scale::Log10 if t1 - t0 < 1e-6 => (t0 - 0.5, t1 + 0.5),
        _ => (t0, t1),
    };
    let pad = (t1 - t0) * PAD;
    (t0 - pad, t1 + pad)
}

fn choose_ticks(scale: Scale, units: Units, min: f64, max: f64, density: Density) -> Ticks {
    let ticks = match (scale, units) {
        (Scale::Linear, _) => linear_ticks(units, min, max, density),
        (Scale::Log2, _) | (Scale::Log10, Units::Bytes) => power_ticks(2.0, min, max, density),
        (Scale::Log10, _) => decimal_log_ticks(min, max, density),
    };
    if ticks.major.len() < 2 && scale != Scale::Linear {
        return linear_ticks(units, min, max, density);
    }
    ticks
}

/// Multiples of a round step: 1, 2 or 5 times a power of ten (a power of two for bytes).
fn linear_ticks(units: Units, min: f64, max: f64, density: Density) -> Ticks {
    let raw = (max - min) / density.linear_intervals;
    let step = if units == Units::Bytes { raw.log2().ceil().exp2() } else { nice_step(raw) };
    if !(step.is_finite() && step > 0.0) {
        return Ticks { major: Vec::new(), step: None, minor: Vec::new() };
    }
    let first = (min / step).ceil() as i64;
    let last = (max / step).floor() as i64;
    Ticks { major: (first..=last).map(|k| k as f64 * step).collect(), step: Some(step), minor: Vec::new() }
}

fn nice_step(raw: f64) -> f64 {
    let magnitude = 10f64.powf(raw.log10().floor());
    let mantissa = raw / magnitude;
    let nice =
        [(1.5, 1.0), (3.0, 2.0), (7.0, 5.0)].into_iter().find(|&(below, _)| mantissa < below).map_or(10.0, |(_, m)| m);
    nice * magnitude
}

/// Powers of `base` (every one, or every 2nd, 5th, 10th... when there are many); the
/// skipped powers become light grid lines.
fn power_ticks(base: f64, min: f64, max: f64, density: Density) -> Ticks {
    let first = (min.log(base) - 1e-9).ceil() as i64;
    let last = (max.log(base) + 1e-9).floor() as i64;
    let stride = power_stride(last - first + 1, density.max_power_ticks);
    let power = |e: i64| base.powi(e as i32);
    let major = (first..=last).filter(|e| e % stride == 0).map(power).collect();
    let minor = if stride > 1 && last - first < 64 {
        (first..=last).filter(|e| e % stride != 0).map(power).collect()
    } else {
        Vec::new()
    };
    Ticks { major, step: None, minor }
}

/// Smallest of 1, 2, 5, 10, 20, 50... that leaves at most `max_ticks` of `count`.
fn power_stride(count: i64, max_ticks: i64) -> i64 {
    let mut magnitude = 1;
    loop {
        for m in [1, 2, 5] {
            if count <= max_ticks * m * magnitude {
                return m * magnitude;
            }
        }
        magnitude *= 10;
    }
}

/// Decades (2..9 times each as light lines while every decade is labelled); within less
/// than three decades 1-2-5 steps.
fn decimal_log_ticks(min: f64, max: f64, density: Density) -> Ticks {
    let decades = power_ticks(10.0, min, max, density);
    if decades.major.len() < 3 {
        return Ticks { major: mantissa_ticks(&[1.0, 2.0, 5.0], min, max), step: None, minor: Vec::new() };
    }
    // No light lines from `power_ticks` and under ten decades: every decade is labelled.
    if decades.minor.is_empty() && max / min < 1e10 {
        let minor = mantissa_ticks(&[2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0], min, max);
        return Ticks { minor, ..decades };
    }
    decades
}

/// `m * 10^k` for every mantissa `m` and every decade overlapping `[min, max]`.
fn mantissa_ticks(mantissas: &[f64], min: f64, max: f64) -> Vec<f64> {
    let first = min.log10().floor() as i32;
    let last = max.log10().ceil() as i32;
    (first..=last)
        .flat_map(|k| mantissas.iter().map(move |m| m * 10f64.powi(k)))
        .filter(|v| (min..=max).contains(v))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(axis: &Axis) -> Vec<&str> {
        axis.labels().collect()
    }

    #[test]
    fn log2_bytes_ticks_are_binary_units() {
        let axis = Axis::new(Scale::Log2, Units::Bytes, (8.0 * 1024.0, 64.0 * 1048576.0), Density::NORMAL);
        assert_eq!(labels(&axis), ["16 KiB", "64 KiB", "256 KiB", "1 MiB", "4 MiB", "16 MiB", "64 MiB"]);
        let wide = Axis::new(Scale::Log2, Units::Bytes, (1.0, 4.0 * 1073741824.0), Density::NORMAL);
        assert_eq!(labels(&wide), ["1 B", "32 B", "1 KiB", "32 KiB", "1 MiB", "32 MiB", "1 GiB"]);
    }

    #[test]
    fn log10_ticks_are_decades_or_one_two_five() {
        let decades = Axis::new(Scale::Log10, Units::Number, (3.0, 40000.0), Density::NORMAL);
        assert_eq!(labels(&decades), ["10", "100", "1k", "10k"]);
        assert!(decades.minor.contains(&20.0) && decades.minor.contains(&9000.0));
        let narrow = Axis::new(Scale::Log10, Units::Number, (12.0, 130.0), Density::NORMAL);
        assert_eq!(labels(&narrow), ["20", "50", "100"]);
    }

    #[test]
    fn linear_ticks_are_round() {
        let axis = Axis::new(Scale::Linear, Units::Number, (0.0, 1234.0), Density::NORMAL);
        assert_eq!(labels(&axis), ["0", "200", "400", "600", "800", "1k", "1.2k"]);
        let single = Axis::new(Scale::Linear, Units::Number, (12.5, 12.5), Density::NORMAL);
        assert_eq!(labels(&single), ["11.5", "12", "12.5", "13", "13.5"]);
    }

    #[test]
    fn single_value_on_log_axis_gets_a_readable_range() {
        let axis = Axis::new(Scale::Log2, Units::Bytes, (1048576.0, 1048576.0), Density::NORMAL);
        assert!(labels(&axis).contains(&"1 MiB"), "{:?}", labels(&axis));
        assert!(axis.range().start < 1048576.0 && axis.range().end > 1048576.0);
    }

    #[test]
    fn a_named_axis_labels_places_with_names() {
        let names: Vec<String> = (0..10).map(|i| format!("run{i}")).collect();
        let axis = Axis::named(&names, Density::SPARSE);
        assert_eq!(labels(&axis), ["run0", "run3", "run6", "run9"]);
        assert_eq!(axis.value_label(4.0), "run4");
        let few = Axis::named(&names[..3], Density::SPARSE);
        assert_eq!(labels(&few), ["run0", "run1", "run2"]);
    }

    #[test]
    fn map_spans_the_pixel_range() {
        let axis = Axis::new(Scale::Log10, Units::Number, (10.0, 1000.0), Density::NORMAL);
        let (lo, hi) = (axis.map(&10.0, (0, 100)), axis.map(&1000.0, (0, 100)));
        assert!(0 < lo && lo < 10 && 90 < hi && hi < 100, "{lo} {hi}");
        assert_eq!(axis.map(&100.0, (0, 100)), 50);
        assert_eq!(axis.map(&f64::NAN, (0, 100)), 0);
    }
}

//! Chart colours, light and dark. The SVG is drawn in the light colours; a `<style>` block
//! with `@media (prefers-color-scheme: dark)` switches background, text, axes, grid and every
//! series colour by attribute selectors (CSS properties override presentation attributes),
//! so a chart shown through `<img>` follows the reader's colour scheme. Every series colour
//! of both palettes has at least 3:1 contrast (WCAG) against both backgrounds.

use plotters::style::RGBColor;

pub(super) const BACKGROUND: RGBColor = RGBColor(0xff, 0xff, 0xff);
pub(super) const TEXT: RGBColor = RGBColor(0x22, 0x22, 0x22);
pub(super) const MUTED: RGBColor = RGBColor(0x44, 0x44, 0x44);
pub(super) const AXIS: RGBColor = RGBColor(0x66, 0x66, 0x66);
/// Grid lines: black at low opacity (the opacity stays, the colour switches).
pub(super) const GRID: RGBColor = RGBColor(0x00, 0x00, 0x00);

/// Series colours as (light, dark) pairs: Okabe-Ito hues darkened for the light background
/// and lightened for the dark one, each with 3:1 or more on both backgrounds (blue,
/// vermillion, bluish green, reddish purple, orange, violet, grey, olive).
const SERIES: [(RGBColor, RGBColor); 8] = [
    (RGBColor(0x00, 0x72, 0xb2), RGBColor(0x3f, 0x8f, 0xd2)),
    (RGBColor(0xc1, 0x4f, 0x00), RGBColor(0xe0, 0x66, 0x1a)),
    (RGBColor(0x00, 0x87, 0x6a), RGBColor(0x10, 0xa3, 0x7f)),
    (RGBColor(0xb0, 0x50, 0x8f), RGBColor(0xd4, 0x6d, 0xae)),
    (RGBColor(0xa8, 0x6f, 0x00), RGBColor(0xc0, 0x86, 0x00)),
    (RGBColor(0x7b, 0x5c, 0xc4), RGBColor(0x9a, 0x7f, 0xe0)),
    (RGBColor(0x6b, 0x6b, 0x6b), RGBColor(0x8c, 0x8c, 0x8c)),
    (RGBColor(0x85, 0x78, 0x00), RGBColor(0xa0, 0x93, 0x00)),
];

/// Number of series colours.
const COLOURS: usize = SERIES.len();

/// The colour series `index` is drawn in (light; the style repaints it in dark mode).
pub(super) fn series_colour(index: usize) -> RGBColor {
    SERIES[index % COLOURS].0
}

/// (light, dark) pairs of the fixed colours: the dark ones are the site's dark theme.
const DARK_FIXED: [(RGBColor, RGBColor); 5] = [
    (BACKGROUND, RGBColor(0x0d, 0x11, 0x17)),
    (TEXT, RGBColor(0xe6, 0xed, 0xf3)),
    (MUTED, RGBColor(0xb1, 0xba, 0xc4)),
    (AXIS, RGBColor(0x8b, 0x94, 0x9e)),
    (GRID, RGBColor(0xff, 0xff, 0xff)),
];

/// `#RRGGBB`, as plotters writes colours into the SVG.
pub(super) fn hex(RGBColor(r, g, b): RGBColor) -> String {
    format!("#{r:02X}{g:02X}{b:02X}")
}

/// The `<style>` element that repaints the chart `drawn` in dark mode: a rule for each
/// colour it paints as a fill or a stroke, none for the others.
pub(super) fn scheme_style(drawn: &str) -> String {
    let painted = painted(drawn);
    let pairs = DARK_FIXED.iter().chain(&SERIES).copied();
    let mut rules = String::new();
    for (light, dark) in pairs {
        let (light, dark) = (hex(light), hex(dark));
        let line: String = ["fill", "stroke"]
            .into_iter()
            .filter(|&attribute| painted.contains(&(attribute, light.as_bytes())))
            .map(|attribute| format!("[{attribute}=\"{light}\"]{{{attribute}:{dark}}}"))
            .collect();
        if !line.is_empty() {
            rules.push_str(&line);
            rules.push('\n');
        }
    }
    format!("<style>\n@media (prefers-color-scheme: dark) {{\n{rules}}}\n</style>\n")
}

/// Every `fill="#RRGGBB"` and `stroke="#RRGGBB"` in `drawn`, as (attribute, `#RRGGBB`), in one
/// pass over it: a pair is listed exactly when `drawn` contains that attribute text (a chart
/// holds a few dozen, among thousands of points).
fn painted(drawn: &str) -> Vec<(&'static str, &[u8])> {
    let bytes = drawn.as_bytes();
    let mut found: Vec<(&'static str, &[u8])> = Vec::new();
    for at in memchr::memmem::find_iter(bytes, b"=\"#") {
        let Some(colour) = bytes.get(at + 2..at + 9).filter(|_| bytes.get(at + 9) == Some(&b'"')) else {
            continue;
        };
        let attribute = match &bytes[..at] {
            head if head.ends_with(b"fill") => "fill",
            head if head.ends_with(b"stroke") => "stroke",
            _ => continue,
        };
        if !found.contains(&(attribute, colour)) {
            found.push((attribute, colour));
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    /// WCAG 2 relative luminance of an sRGB colour.
    fn luminance(RGBColor(r, g, b): RGBColor) -> f64 {
        let channel = |c: u8| {
            let c = f64::from(c) / 255.0;
            if c <= 0.04045 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            }
        };
        0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)
    }

    fn contrast(a: RGBColor, b: RGBColor) -> f64 {
        let (la, lb) = (luminance(a), luminance(b));
        (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
    }

    #[test]
    fn contrast_is_computed_as_wcag_defines_it() {
        assert!((contrast(RGBColor(0, 0, 0), RGBColor(255, 255, 255)) - 21.0).abs() < 1e-9);
        // The measurements of the old Okabe-Ito colours on white.
        let on_white = |r, g, b| (contrast(RGBColor(r, g, b), BACKGROUND) * 100.0).round() / 100.0;
        assert_eq!(on_white(0xf0, 0xe4, 0x42), 1.32);
        assert_eq!(on_white(0xe6, 0x9f, 0x00), 2.25);
        assert_eq!(on_white(0x56, 0xb4, 0xe9), 2.31);
        assert_eq!(on_white(0xcc, 0x79, 0xa7), 3.06);
    }

    #[test]
    fn every_series_colour_has_three_to_one_on_both_backgrounds() {
        let dark_background = DARK_FIXED[0].1;
        for colour in SERIES.iter().flat_map(|(light, dark)| [light, dark]) {
            for background in [BACKGROUND, dark_background] {
                let ratio = contrast(*colour, background);
                assert!(ratio >= 3.0, "{} on {}: {ratio:.2}", hex(*colour), hex(background));
            }
        }
    }

    #[test]
    fn text_and_axes_stay_readable_in_both_schemes() {
        for (light, dark) in &DARK_FIXED[1..4] {
            assert!(contrast(*light, BACKGROUND) >= 4.5, "{}", hex(*light));
            assert!(contrast(*dark, DARK_FIXED[0].1) >= 4.5, "{}", hex(*dark));
        }
    }

    #[test]
    fn every_repainted_colour_is_distinct() {
        // An attribute selector that matched two roles would repaint one of them wrongly.
        let mut light: Vec<String> = DARK_FIXED.iter().chain(&SERIES).map(|(l, _)| hex(*l)).collect();
        let count = light.len();
        light.sort();
        light.dedup();
        assert_eq!(light.len(), count);
        let mut dark: Vec<String> = SERIES.iter().map(|(_, d)| hex(*d)).collect();
        dark.sort();
        dark.dedup();
        assert_eq!(dark.len(), COLOURS);
    }

    #[test]
    fn style_repaints_background_and_series() {
        let style = scheme_style("<rect fill=\"#FFFFFF\"/><path stroke=\"#0072B2\"/>");
        assert_eq!(
            style,
            "<style>\n@media (prefers-color-scheme: dark) {\n[fill=\"#FFFFFF\"]{fill:#0D1117}\n[stroke=\"#0072B2\"]{stroke:#3F8FD2}\n}\n</style>\n"
        );
        let all: String =
            DARK_FIXED.iter().chain(&SERIES).map(|(l, _)| format!("fill=\"{0}\" stroke=\"{0}\"", hex(*l))).collect();
        assert_eq!(scheme_style(&all).matches("[fill=").count(), DARK_FIXED.len() + COLOURS);
    }

    #[test]
    fn only_a_whole_fill_or_stroke_colour_gets_a_rule() {
        let drawn = "<path fill-opacity=\"0.3\" fill=\"#0072B2X\" stroke=\"#C14F00\" stroke-width=\"#00876A\"/>\
                     <text>fill=&quot;#FFFFFF&quot;</text><rect fill=\"#222222\"/><rect fill=\"#222222\"/>";
        assert_eq!(
            scheme_style(drawn),
            "<style>\n@media (prefers-color-scheme: dark) {\n[fill=\"#222222\"]{fill:#E6EDF3}\n[stroke=\"#C14F00\"]{stroke:#E0661A}\n}\n</style>\n"
        );
    }
}

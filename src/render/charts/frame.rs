//! The chart frame's drawing backend: plotters lays out the frame (title, legend, grid, axes,
//! labels) and calls this backend, which writes each element directly in the form that
//! `compact` (the tests' oracle) gives plotters' own SVG backend's output: the same bytes,
//! without writing an SVG and parsing it back. Tests hold it to `compact` over random drawing
//! calls (here) and random whole charts (`charts::tests`); the site's charts are unchanged.
//!
//! What `compact` does, done here as the elements come: attributes at their SVG default left
//! out (`opacity="1"`, `stroke="none"`, a fill's `stroke-width="1"`), font sizes to two
//! decimals; runs of two or more dots of one radius, colour and opacity as a polyline with a
//! circle marker; strokes of one style as one `<path>` (the texts drawn between them after
//! it); the font family once, on the root element. Uses plotters' backend API only.

use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind, FontStyle,
    FontTransform,
};
use std::fmt::Write as _;

use super::palette;
use super::plot::FONT;
use super::text::push_escaped;
use plotters::style::RGBColor;

/// A stroke's style as `compact` keys a merged path: opacity (none at 1), colour, width.
/// Kept as the printed text, as `compact` compares it: a NaN opacity joins a run of NaNs
/// there (its text is equal), which neither `f64` equality nor its bits would give.
#[derive(Clone, PartialEq)]
struct StrokeStyle {
    opacity: Option<String>,
    colour: String,
    width: u32,
}

/// Strokes of one style so far, and the texts drawn since the first (written after the path).
struct StrokeRun {
    style: StrokeStyle,
    d: String,
    texts: String,
}

/// Consecutive dots of one radius, opacity and colour so far.
struct DotRun {
    key: (u32, Option<String>, String),
    centres: Vec<BackendCoord>,
}

/// Writes the frame into `out` when presented (`present`, or when dropped, as plotters' SVG
/// backend does); nothing may be drawn after that (plotters' backend would write it after
/// `</svg>`; `plot` never does). `blit_bitmap` keeps plotters' default, as plotters' SVG
/// backend does without its `image` feature (which this crate does not enable).
pub(super) struct FrameBackend<'a> {
    out: &'a mut String,
    size: (u32, u32),
    body: String,
    strokes: Option<StrokeRun>,
    dots: Option<DotRun>,
    /// Dot markers defined so far: (radius, opacity, colour), their index is their id.
    markers: Vec<(u32, Option<String>, String)>,
    /// Whether a text carried the chart's font family (then it goes on the root element).
    font_used: bool,
    presented: bool,
}

impl<'a> FrameBackend<'a> {
    pub(super) fn new(out: &'a mut String, size: (u32, u32)) -> FrameBackend<'a> {
        FrameBackend {
            out,
            size,
            body: String::new(),
            strokes: None,
            dots: None,
            markers: Vec::new(),
            font_used: false,
            presented: false,
        }
    }

    /// Ends the run of dots: a single dot as itself, two or more as a marker polyline.
    fn end_dots(&mut self) {
        let Some(DotRun { key, centres }) = self.dots.take() else { return };
        let (radius, opacity, colour) = &key;
        if let [(x, y)] = centres[..] {
            let _ = write!(self.body, "<circle cx=\"{x}\" cy=\"{y}\" r=\"{radius}\"");
            if let Some(opacity) = opacity {
                let _ = write!(self.body, " opacity=\"{opacity}\"");
            }
            let _ = writeln!(self.body, " fill=\"{colour}\"/>");
            return;
        }
        let id = match self.markers.iter().position(|m| *m == key) {
            Some(id) => id,
            None => {
                let _ = write!(
                    self.body,
                    "<marker id=\"m{}\" markerUnits=\"userSpaceOnUse\" overflow=\"visible\"><circle r=\"{radius}\" fill=\"{colour}\"",
                    self.markers.len()
                );
                if let Some(opacity) = opacity {
                    let _ = write!(self.body, " fill-opacity=\"{opacity}\"");
                }
                self.body.push_str("/></marker>\n");
                self.markers.push(key.clone());
                self.markers.len() - 1
            }
        };
        let _ = write!(
            self.body,
            "<polyline fill=\"none\" marker-start=\"url(#m{id})\" marker-mid=\"url(#m{id})\" marker-end=\"url(#m{id})\" points=\""
        );
        for (k, (x, y)) in centres.iter().enumerate() {
            if k > 0 {
                self.body.push(' ');
            }
            let _ = write!(self.body, "{x},{y}");
        }
        self.body.push_str("\"/>\n");
    }

    /// Ends the run of strokes: the merged path, then the texts drawn meanwhile.
    fn end_strokes(&mut self) {
        let Some(StrokeRun { style, d, texts }) = self.strokes.take() else { return };
        self.body.push_str("<path fill=\"none\"");
        if let Some(opacity) = &style.opacity {
            let _ = write!(self.body, " opacity=\"{opacity}\"");
        }
        let _ = writeln!(self.body, " stroke=\"{}\" stroke-width=\"{}\" d=\"{d}\"/>", style.colour, style.width);
        self.body.push_str(&texts);
    }

    /// Before an element that is neither a dot nor a stroke nor a text: both runs end.
    fn end_runs(&mut self) {
        self.end_dots();
        self.end_strokes();
    }

    /// Starts such an element: both runs end, then its `head` (`<rect x="1" ...`) and its
    /// opacity when it is not 1.
    fn open(&mut self, head: std::fmt::Arguments, colour: BackendColor) {
        self.end_runs();
        let _ = self.body.write_fmt(head);
        if let Some(opacity) = opacity(colour) {
            let _ = write!(self.body, " opacity=\"{opacity}\"");
        }
    }

    fn stroke(&mut self, style: StrokeStyle, vertices: &[BackendCoord]) {
        self.end_dots();
        if self.strokes.as_ref().is_some_and(|run| run.style != style) {
            self.end_strokes();
        }
        let run = self.strokes.get_or_insert_with(|| StrokeRun { style, d: String::new(), texts: String::new() });
        let mut previous: Option<BackendCoord> = None;
        for &(x, y) in vertices {
            let _ = match previous {
                None => write!(run.d, "M{x} {y}"),
                Some((px, _)) if px == x => write!(run.d, "V{y}"),
                Some((_, py)) if py == y => write!(run.d, "H{x}"),
                Some(_) => write!(run.d, "L{x} {y}"),
            };
            previous = Some((x, y));
        }
    }
}

/// Plotters' opacity text, or none at 1 (`compact` drops `opacity="1"`).
fn opacity(colour: BackendColor) -> Option<String> {
    (colour.alpha != 1.0).then(|| colour.alpha.to_string())
}

/// A colour as plotters writes it (`#RRGGBB`).
fn hex(colour: BackendColor) -> String {
    let (r, g, b) = colour.rgb;
    palette::hex(RGBColor(r, g, b))
}

/// `size` as `compact` writes plotters' font size (this repeats `compact`'s rounding; the
/// property tests keep them in step): two decimals, trailing zeros dropped.
fn font_size(out: &mut String, size: f64) {
    let start = out.len();
    let _ = write!(out, "{size:.2}");
    // `16.90` -> `16.9`, `16.00` -> `16`: a finite size always has its point, which stops the
    // zeros; `NaN` and `inf` have neither.
    let kept = out[start..].trim_end_matches('0').trim_end_matches('.').len();
    out.truncate(start + kept);
}

impl DrawingBackend for FrameBackend<'_> {
    type ErrorType = std::io::Error;

    fn get_size(&self) -> (u32, u32) {
        self.size
    }

    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        Ok(())
    }

    fn present(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        if self.presented {
            return Ok(());
        }
        self.end_runs();
        let (w, h) = self.size;
        let _ = write!(
            self.out,
            "<svg width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" xmlns=\"http://www.w3.org/2000/svg\""
        );
        if self.font_used {
            let _ = write!(self.out, " font-family=\"{FONT}\"");
        }
        self.out.push_str(">\n");
        self.out.push_str(&self.body);
        self.out.push_str("</svg>\n");
        self.presented = true;
        Ok(())
    }

    fn draw_pixel(
        &mut self,
        (x, y): BackendCoord,
        colour: BackendColor,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        if colour.alpha == 0.0 {
            return Ok(());
        }
        self.open(format_args!("<rect x=\"{x}\" y=\"{y}\" width=\"1\" height=\"1\""), colour);
        let _ = writeln!(self.body, " fill=\"{}\"/>", hex(colour));
        Ok(())
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let colour = style.color();
        if colour.alpha == 0.0 {
            return Ok(());
        }
        let style = StrokeStyle { opacity: opacity(colour), colour: hex(colour), width: style.stroke_width() };
        self.stroke(style, &[from, to]);
        Ok(())
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        (x0, y0): BackendCoord,
        (x1, y1): BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let colour = style.color();
        if colour.alpha == 0.0 {
            return Ok(());
        }
        self.open(format_args!("<rect x=\"{x0}\" y=\"{y0}\" width=\"{}\" height=\"{}\"", x1 - x0, y1 - y0), colour);
        let _ = if fill {
            writeln!(self.body, " fill=\"{}\"/>", hex(colour))
        } else {
            writeln!(self.body, " fill=\"none\" stroke=\"{}\"/>", hex(colour))
        };
        Ok(())
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let colour = style.color();
        if colour.alpha == 0.0 {
            return Ok(());
        }
        let vertices: Vec<BackendCoord> = path.into_iter().collect();
        if vertices.is_empty() {
            // Not a stroke `compact` can merge: written as plotters writes it.
            self.open(format_args!("<polyline fill=\"none\""), colour);
            let _ = writeln!(
                self.body,
                " stroke=\"{}\" stroke-width=\"{}\" points=\"\"/>",
                hex(colour),
                style.stroke_width()
            );
            return Ok(());
        }
        let stroke = StrokeStyle { opacity: opacity(colour), colour: hex(colour), width: style.stroke_width() };
        self.stroke(stroke, &vertices);
        Ok(())
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let colour = style.color();
        if colour.alpha == 0.0 {
            return Ok(());
        }
        self.open(format_args!("<polygon"), colour);
        let _ = write!(self.body, " fill=\"{}\" points=\"", hex(colour));
        for (x, y) in path {
            let _ = write!(self.body, "{x},{y} ");
        }
        self.body.push_str("\"/>\n");
        Ok(())
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        (x, y): BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let colour = style.color();
        if colour.alpha == 0.0 {
            return Ok(());
        }
        let width = style.stroke_width();
        if fill && width == 1 {
            // A dot: it may join a run of dots drawn as one marker polyline.
            self.end_strokes();
            let key = (radius, opacity(colour), hex(colour));
            if self.dots.as_ref().is_some_and(|run| run.key != key) {
                self.end_dots();
            }
            self.dots.get_or_insert_with(|| DotRun { key, centres: Vec::new() }).centres.push((x, y));
            return Ok(());
        }
        self.open(format_args!("<circle cx=\"{x}\" cy=\"{y}\" r=\"{radius}\""), colour);
        let _ = if fill {
            writeln!(self.body, " fill=\"{}\" stroke-width=\"{width}\"/>", hex(colour))
        } else {
            writeln!(self.body, " fill=\"none\" stroke=\"{}\" stroke-width=\"{width}\"/>", hex(colour))
        };
        Ok(())
    }

    fn draw_text<TStyle: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &TStyle,
        (x, y): BackendCoord,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let colour = style.color();
        if colour.alpha == 0.0 {
            return Ok(());
        }
        self.end_dots();
        let anchor = match style.anchor().h_pos {
            HPos::Left => "start",
            HPos::Right => "end",
            HPos::Center => "middle",
        };
        let dy = match style.anchor().v_pos {
            VPos::Top => "0.76em",
            VPos::Center => "0.5ex",
            VPos::Bottom => "-0.5ex",
        };
        // Drawn while a run of strokes is open: written after its path (`compact`).
        let element = match &mut self.strokes {
            Some(run) => &mut run.texts,
            None => &mut self.body,
        };
        let _ = write!(element, "<text x=\"{x}\" y=\"{y}\" dy=\"{dy}\" text-anchor=\"{anchor}\"");
        let family = style.family();
        if family.as_str() == FONT {
            self.font_used = true;
        } else {
            element.push_str(" font-family=\"");
            push_escaped(element, family.as_str());
            element.push('"');
        }
        element.push_str(" font-size=\"");
        font_size(element, style.size() / 1.24);
        element.push('"');
        if let Some(opacity) = opacity(colour) {
            let _ = write!(element, " opacity=\"{opacity}\"");
        }
        let _ = write!(element, " fill=\"{}\"", hex(colour));
        match style.style() {
            FontStyle::Normal => {}
            FontStyle::Bold => element.push_str(" font-weight=\"bold\""),
            other => {
                let _ = write!(element, " font-style=\"{}\"", other.as_str());
            }
        }
        let _ = match style.transform() {
            FontTransform::Rotate90 => write!(element, " transform=\"rotate(90, {x}, {y})\""),
            FontTransform::Rotate180 => write!(element, " transform=\"rotate(180, {x}, {y})\""),
            FontTransform::Rotate270 => write!(element, " transform=\"rotate(270, {x}, {y})\""),
            _ => Ok(()),
        };
        element.push_str(">\n");
        push_escaped(element, text);
        element.push_str("\n</text>\n");
        Ok(())
    }
}

impl Drop for FrameBackend<'_> {
    fn drop(&mut self) {
        let _ = self.present();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use plotters::prelude::SVGBackend;
    use plotters::style::{Color, FontDesc, IntoFont, RGBAColor, ShapeStyle, TextStyle};
    use plotters_backend::text_anchor::Pos;
    use proptest::prelude::*;

    /// One drawing call, as plotters makes them.
    #[derive(Debug, Clone)]
    enum Call {
        Pixel((i32, i32), RGBAColor),
        Line((i32, i32), (i32, i32), ShapeStyle),
        Rect((i32, i32), (i32, i32), ShapeStyle, bool),
        Path(Vec<(i32, i32)>, ShapeStyle),
        Polygon(Vec<(i32, i32)>, RGBAColor),
        Circle((i32, i32), u32, ShapeStyle, bool),
        /// Filled dots of one radius and colour one after another (a series' samples).
        Dots(Vec<(i32, i32)>, u32, RGBAColor),
        Text(String, u8, f64, u8, (i32, i32), RGBAColor),
    }

    fn colour() -> impl Strategy<Value = RGBAColor> {
        // Few colours and opacities, so that runs of one style happen.
        let alpha =
            prop_oneof![Just(1.0), Just(0.3), Just(0.05), Just(0.0), Just(f64::NAN), Just(0.9999999), Just(2.0)];
        (0..3u8, alpha).prop_map(|(c, a)| RGBAColor(c * 100, 34, 255 - c, a))
    }

    fn style() -> impl Strategy<Value = ShapeStyle> {
        (colour(), any::<bool>(), 1..3u32).prop_map(|(color, filled, stroke_width)| ShapeStyle {
            color,
            filled,
            stroke_width,
        })
    }

    fn at() -> impl Strategy<Value = (i32, i32)> {
        (0..4i32, 0..4i32).prop_map(|(x, y)| (x * 7, y * 5))
    }

    fn call() -> impl Strategy<Value = Call> {
        prop_oneof![
            1 => (at(), colour()).prop_map(|(p, c)| Call::Pixel(p, c)),
            3 => (at(), at(), style()).prop_map(|(a, b, s)| Call::Line(a, b, s)),
            1 => (at(), at(), style(), any::<bool>()).prop_map(|(a, b, s, f)| Call::Rect(a, b, s, f)),
            3 => (proptest::collection::vec(at(), 0..5), style()).prop_map(|(p, s)| Call::Path(p, s)),
            1 => (proptest::collection::vec(at(), 0..5), colour()).prop_map(|(p, c)| Call::Polygon(p, c)),
            4 => (at(), 1..5u32, style(), any::<bool>()).prop_map(|(p, r, s, f)| Call::Circle(p, r, s, f)),
            3 => (proptest::collection::vec(at(), 1..5), 1..3u32, colour()).prop_map(|(p, r, c)| Call::Dots(p, r, c)),
            3 => ("[a-z<>&\"' \n·µé]{0,8}", 0..4u8, prop_oneof![1.0f64..30.0, Just(0.0062), Just(f64::NAN)], 0..16u8, at(), colour())
                .prop_map(|(t, family, size, how, p, c)| Call::Text(t, family, size, how, p, c)),
        ]
    }

    fn draw<DB: DrawingBackend>(backend: &mut DB, calls: &[Call]) {
        for call in calls {
            let _ = match call.clone() {
                Call::Pixel(p, c) => backend.draw_pixel(p, c.to_backend_color()),
                Call::Line(a, b, s) => backend.draw_line(a, b, &s),
                Call::Rect(a, b, s, f) => backend.draw_rect(a, b, &s, f),
                Call::Path(p, s) => backend.draw_path(p, &s),
                Call::Polygon(p, c) => backend.fill_polygon(p, &c),
                Call::Circle(p, r, s, f) => backend.draw_circle(p, r, &s, f),
                Call::Dots(points, r, c) => {
                    points.into_iter().try_for_each(|p| backend.draw_circle(p, r, &c.filled(), true))
                }
                Call::Text(text, family, size, how, p, c) => {
                    let family = ["sans-serif", "serif", "monospace", "a \"b\" & <c>"][usize::from(family)];
                    let font: FontDesc = (family, size).into_font();
                    // `how`: the style (its low two bits), the rotation (its high two), the anchor.
                    let styles = [FontStyle::Normal, FontStyle::Bold, FontStyle::Italic, FontStyle::Oblique];
                    let font = font.style(styles[usize::from(how % 4)]);
                    let turns = [
                        FontTransform::None,
                        FontTransform::Rotate90,
                        FontTransform::Rotate180,
                        FontTransform::Rotate270,
                    ];
                    let font = font.transform(turns[usize::from(how / 4)].clone());
                    let anchors = [
                        Pos::new(HPos::Left, VPos::Top),
                        Pos::new(HPos::Center, VPos::Center),
                        Pos::new(HPos::Right, VPos::Bottom),
                    ];
                    let pos = anchors[usize::from(how % 3)];
                    let style = TextStyle::from(font).color(&c).pos(pos);
                    backend.draw_text(&text, &style, p)
                }
            };
        }
        let _ = backend.present();
    }

    #[test]
    fn a_frame_dropped_unpresented_is_written_as_plotters_writes_it() {
        let mut svg = String::new();
        drop(SVGBackend::with_string(&mut svg, (60, 40)));
        let mut ours = String::new();
        drop(FrameBackend::new(&mut ours, (60, 40)));
        assert_eq!(ours, crate::render::charts::compact::compact(&svg));
        assert!(ours.ends_with("</svg>\n"), "{ours}");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        /// Any sequence of drawing calls: `FrameBackend` writes what `compact` makes of
        /// plotters' SVG backend's output for it.
        #[test]
        fn every_call_is_written_as_compact_leaves_plotters_svg(calls in proptest::collection::vec(call(), 0..24)) {
            let mut svg = String::new();
            draw(&mut SVGBackend::with_string(&mut svg, (60, 40)), &calls);
            let mut ours = String::new();
            draw(&mut FrameBackend::new(&mut ours, (60, 40)), &calls);
            prop_assert_eq!(ours, crate::render::charts::compact::compact(&svg));
        }
    }
}

//! Text from models and files: made safe to show a person, quoted in a message, and read where
//! JSON text is read by hand.
//!
//! This is the lowest room of the framework: the schema's checks (`tool-schema`) quote what a
//! model sent with [`quote`], session logs (`tool-session`) show what they read with
//! [`neutralize`] and find where a string ends with [`string_stop`]. It uses nothing of the
//! framework's.
//!
//! # Safe to show
//!
//! Content a model wrote, and anything read back from a log, can carry characters that drive a
//! terminal (ESC, and with it every CSI and OSC sequence) or that render as nothing and so hide
//! what a line says. [`neutralize`] writes each of them as a visible escape. Which characters
//! those are comes from Unicode's own property data (the `icu_properties` crate), not a hand
//! list.

use std::borrow::Cow;

use icu_properties::props::{
    DefaultIgnorableCodePoint, ExtendedPictographic, GeneralCategory, GeneralCategoryGroup,
};
use icu_properties::{CodePointMapData, CodePointSetData};

/// Text made safe to print on a terminal, every character that is not plainly visible written
/// as an escape such as `\u{1b}` or `\n`:
///
/// - the general categories `Other` (controls — C0, DEL, C1, so ESC and every escape sequence,
///   carriage returns and backspaces —, format characters such as the bidirectional overrides,
///   the soft hyphen and the tag characters, private use, surrogates and unassigned code
///   points), the line separator and the paragraph separator;
/// - every `Default_Ignorable_Code_Point` (zero-width characters, variation selectors, the
///   Hangul fillers…), but for a zero-width joiner between two pictographs and a variation
///   selector right after one: those shape an emoji (👩‍💻, ❤️) and hide nothing;
/// - U+2800 BRAILLE PATTERN BLANK, a symbol that every font draws as nothing;
/// - a combining mark (U+0301…) with nothing before it to combine with: at the start, or after
///   whitespace or a control character (on a terminal it would combine with what was drawn
///   before the text).
///
/// Everything else is kept as it is.
///
/// ```
/// # use tool_text::neutralize;
/// assert_eq!(neutralize("ok \u{1b}]52;c;aGk=\u{7}"), "ok \\u{1b}]52;c;aGk=\\u{7}");
/// assert_eq!(neutralize("abc\u{202e}def"), "abc\\u{202e}def");
/// assert_eq!(neutralize("Deploy to prod\u{e0001}"), "Deploy to prod\\u{e0001}");
/// assert_eq!(neutralize("plain — ü 漢字 👩\u{200d}💻"), "plain — ü 漢字 👩\u{200d}💻");
/// assert_eq!(neutralize("\u{301}x e\u{301}"), "\\u{301}x e\u{301}");
/// ```
pub fn neutralize(text: &str) -> Cow<'_, str> {
    neutralize_but(text, |_| false)
}

/// Text made safe to print on a terminal as [`neutralize`] makes it, but for its line feeds and
/// tabs, which stay as layout: for a text of several lines shown as such (a tool's result in
/// the REPL). A carriage return, which could draw over a line, is escaped still.
///
/// ```
/// # use tool_text::neutralize_layout;
/// assert_eq!(neutralize_layout("a\n\tb\r\u{1b}[2J"), "a\n\tb\\r\\u{1b}[2J");
/// ```
pub fn neutralize_layout(text: &str) -> Cow<'_, str> {
    neutralize_but(text, |c| c == '\n' || c == '\t')
}

fn neutralize_but(text: &str, kept: impl Fn(char) -> bool) -> Cow<'_, str> {
    let hidden = |c, previous, next| !kept(c) && hidden(c, previous, next);
    let mut chars = text.char_indices().peekable();
    let mut previous = None;
    let mut first_unsafe = None;
    while let Some((at, c)) = chars.next() {
        let next = chars.peek().map(|&(_, next)| next);
        if hidden(c, previous, next) {
            first_unsafe = Some(at);
            break;
        }
        previous = Some(c);
    }
    let Some(first) = first_unsafe else {
        return Cow::Borrowed(text);
    };
    let mut out = String::with_capacity(text.len() + 8);
    out.push_str(&text[..first]);
    let mut chars = text[first..].chars().peekable();
    while let Some(c) = chars.next() {
        if hidden(c, previous, chars.peek().copied()) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
        previous = Some(c);
    }
    Cow::Owned(out)
}

/// A text quoting input (a file's bytes, a client's message), as an error message carries it:
/// [`neutralize`]d, so it cannot drive a terminal, on one line, and cut to `max_chars`
/// characters with `…`.
///
/// ```
/// # use tool_text::excerpt;
/// assert_eq!(excerpt("a\nb\u{1b}[2J", 200), "a\\nb\\u{1b}[2J");
/// assert_eq!(excerpt("abcdef", 3), "abc…");
/// ```
pub fn excerpt(text: &str, max_chars: usize) -> String {
    let text = neutralize(text);
    match text.char_indices().nth(max_chars) {
        None => text.into_owned(),
        Some((cut, _)) => format!("{}…", &text[..cut]),
    }
}

/// Whether `text` has nothing a person could see: only whitespace and characters [`neutralize`]
/// would escape as hidden (format, default-ignorable and control characters, and combining
/// marks with nothing to combine with).
///
/// ```
/// # use tool_text::is_blank;
/// assert!(is_blank(" \u{200b}\u{e0041} "));
/// assert!(is_blank("\u{301}\u{301}\u{20dd}"));
/// assert!(!is_blank("e\u{301}"));
/// assert!(!is_blank(" a "));
/// ```
pub fn is_blank(text: &str) -> bool {
    text.chars()
        .all(|c| c.is_whitespace() || hidden(c, None, None))
}

/// Whether `c`, between `previous` and `next`, renders as nothing or drives a terminal.
fn hidden(c: char, previous: Option<char>, next: Option<char>) -> bool {
    if c.is_ascii() {
        return c.is_ascii_control();
    }
    let category = CodePointMapData::<GeneralCategory>::new().get(c);
    // A combining mark with nothing before it to combine with: on a terminal it would combine
    // with whatever was drawn before the text (a checklist's glyph), and alone it shows nothing.
    if GeneralCategoryGroup::Mark.contains(category)
        && previous.is_none_or(|previous| previous.is_whitespace() || previous.is_control())
    {
        return true;
    }
    let pictograph = |c: Option<char>| {
        c.is_some_and(|c| CodePointSetData::new::<ExtendedPictographic>().contains(c))
    };
    if c == '\u{200d}' && pictograph(previous) && pictograph(next) {
        return false;
    }
    if matches!(c, '\u{fe0e}' | '\u{fe0f}') && pictograph(previous) {
        return false;
    }
    GeneralCategoryGroup::Other.contains(category)
        || matches!(
            category,
            GeneralCategory::LineSeparator | GeneralCategory::ParagraphSeparator
        )
        || CodePointSetData::new::<DefaultIgnorableCodePoint>().contains(c)
        || c == '\u{2800}'
}

/// The longest string, in characters, quoted whole in an error message.
pub const MAX_QUOTED_CHARS: usize = 48;

/// A string from a model, as an error message quotes it: a JSON string literal (so quotes,
/// backslashes and control characters are escaped and the message stays on one line), cut to
/// [`MAX_QUOTED_CHARS`] characters with `…` when longer.
///
/// ```
/// # use tool_text::quote;
/// assert_eq!(quote("a \"b\"\n"), r#""a \"b\"\n""#);
/// assert_eq!(quote(&"x".repeat(60)), format!("\"{}…\"", "x".repeat(48)));
/// ```
pub fn quote(text: &str) -> String {
    match text.char_indices().nth(MAX_QUOTED_CHARS) {
        None => serde_json::to_string(text).expect("a string serializes"),
        Some((cut, _)) => {
            let mut quoted = serde_json::to_string(&text[..cut]).expect("a string serializes");
            quoted.insert(quoted.len() - 1, '…');
            quoted
        }
    }
}

/// `a == b` for member and argument names: names are short, and for a name of a few bytes a
/// call to `memcmp` costs more than comparing the bytes in place.
#[inline]
pub fn same_name(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    a.len() == b.len()
        && if a.len() <= 16 {
            a.iter().zip(b).all(|(x, y)| x == y)
        } else {
            a == b
        }
}

/// Where `name` stands in `names`, trying `expected` first: names mostly come in the order they
/// were declared, so a caller passes the place after the last one found.
pub fn position_expecting<S: AsRef<str>>(
    names: &[S],
    name: &str,
    expected: usize,
) -> Option<usize> {
    match names.get(expected) {
        Some(declared) if same_name(declared.as_ref(), name) => Some(expected),
        _ => names
            .iter()
            .position(|declared| same_name(declared.as_ref(), name)),
    }
}

/// Where a JSON string's plain run ends: the first byte at or after `from` that ends a string, starts an escape or may not stand in a
/// string unescaped (`"`, `\\`, a control character), looked for eight bytes at a time as
/// serde_json does.
#[inline]
pub fn string_stop(bytes: &[u8], from: usize) -> Option<usize> {
    const ONES: u64 = u64::MAX / 255;
    const HIGH: u64 = ONES << 7;
    let has = |word: u64, byte: u8| {
        let diff = word ^ (ONES * u64::from(byte));
        diff.wrapping_sub(ONES) & !diff
    };
    let mut i = from;
    while let Some(chunk) = bytes.get(i..i + 8) {
        let word = u64::from_le_bytes(chunk.try_into().ok()?);
        // Each test sets the high bit of the first byte it finds (and maybe of later ones).
        let control = word.wrapping_sub(ONES * 0x20) & !word;
        let found = (control | has(word, b'"') | has(word, b'\\')) & HIGH;
        if found != 0 {
            return Some(i + found.trailing_zeros() as usize / 8);
        }
        i += 8;
    }
    let rest = bytes.get(i..)?;
    let offset = rest
        .iter()
        .position(|&byte| byte == b'"' || byte == b'\\' || byte < 0x20)?;
    Some(i + offset)
}

/// A duration as messages give it: `250 ms`, `30 s`, `1.5 s`.
///
/// ```
/// use std::time::Duration;
/// assert_eq!(tool_text::seconds(Duration::from_millis(250)), "250 ms");
/// assert_eq!(tool_text::seconds(Duration::from_secs(30)), "30 s");
/// assert_eq!(tool_text::seconds(Duration::from_millis(1500)), "1.5 s");
/// ```
pub fn seconds(duration: std::time::Duration) -> String {
    if duration < std::time::Duration::from_secs(1) {
        format!("{} ms", duration.as_millis())
    } else if duration.subsec_millis() == 0 {
        format!("{} s", duration.as_secs())
    } else {
        let text = format!("{:.3}", duration.as_secs_f64());
        format!("{} s", text.trim_end_matches('0'))
    }
}

/// Writes one line to standard error, [neutralized](neutralize) (a path or a name can hold escape
/// sequences), and never panics: a standard error that cannot be written (a full disk, a closed
/// pipe) must not turn a committed call into a crash. Takes what `format!` takes.
///
/// ```
/// tool_text::note!("session {}: opened", "a\u{1b}[2Jb");
/// ```
#[macro_export]
macro_rules! note {
    ($($arg:tt)*) => {{
        use ::std::io::Write as _;
        let text = ::std::format!($($arg)*);
        let _ = ::std::writeln!(::std::io::stderr(), "{}", $crate::neutralize(&text));
    }};
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_string_stops_where_a_byte_by_byte_reading_does() {
        let naive = |bytes: &[u8], from: usize| {
            (from..bytes.len()).find(|&i| matches!(bytes[i], b'"' | b'\\' | 0..0x20))
        };
        let filler = "aé€😀 ~\u{7f}";
        for stop in ["\"", "\\", "\n", "\u{0}", "\u{1f}", ""] {
            for len in 0..40 {
                let text: String =
                    filler.chars().cycle().take(len).collect::<String>() + stop + "x\"";
                for from in [0, 1, 3] {
                    let from = from.min(text.len());
                    assert_eq!(
                        string_stop(text.as_bytes(), from),
                        naive(text.as_bytes(), from),
                        "{text:?} from {from}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_name_is_found_where_expected_or_anywhere() {
        let names = ["a", "bb", "c"];
        assert_eq!(position_expecting(&names, "bb", 1), Some(1));
        assert_eq!(position_expecting(&names, "a", 1), Some(0));
        assert_eq!(position_expecting(&names, "c", 3), Some(2));
        assert_eq!(position_expecting(&names, "d", 0), None);
        assert_eq!(position_expecting(&[] as &[String], "a", 0), None);
    }

    #[test]
    fn format_and_default_ignorable_characters_are_escaped() {
        for (c, escaped) in [
            ('\u{ad}', "\\u{ad}"),
            ('\u{206a}', "\\u{206a}"),
            ('\u{206f}', "\\u{206f}"),
            ('\u{fff9}', "\\u{fff9}"),
            ('\u{fffb}', "\\u{fffb}"),
            ('\u{3164}', "\\u{3164}"),
            ('\u{2800}', "\\u{2800}"),
            ('\u{e0001}', "\\u{e0001}"),
            ('\u{e007f}', "\\u{e007f}"),
            ('\u{200b}', "\\u{200b}"),
            ('\u{feff}', "\\u{feff}"),
            ('\u{2028}', "\\u{2028}"),
            ('\u{9b}', "\\u{9b}"),
            ('\u{e000}', "\\u{e000}"),
            ('\u{fe0f}', "\\u{fe0f}"),
        ] {
            let text = format!("a{c}b");
            assert_eq!(
                neutralize(&text),
                format!("a{escaped}b"),
                "U+{:04X}",
                c as u32
            );
        }
    }

    #[test]
    fn emoji_sequences_and_ordinary_text_are_kept() {
        for text in [
            "❤\u{fe0f}",
            "👨\u{200d}👩\u{200d}👧",
            "naïve café",
            "日本語",
            "a\u{301}",
        ] {
            assert_eq!(neutralize(text), text);
        }
        assert_eq!(neutralize("a\u{200d}b"), "a\\u{200d}b");
    }
}

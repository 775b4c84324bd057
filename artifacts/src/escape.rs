//! Escaping text for HTML and SVG written as XML.

use std::fmt;

/// Displays `text` with `&`, `<`, `>`, `"` and `'` escaped, and with the
/// control characters XML 1.0 forbids replaced by U+FFFD, so the result is
/// safe in element content and in quoted attribute values.
pub(crate) fn esc(text: &str) -> Escaped<'_> {
    Escaped(text)
}

/// Text to be written escaped; see [`esc`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Escaped<'a>(&'a str);

impl fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut rest = self.0;
        while let Some(at) = rest.find(|c: char| matches!(c, '&' | '<' | '>' | '"' | '\'') || forbidden(c)) {
            f.write_str(&rest[..at])?;
            let c = rest[at..].chars().next().unwrap_or('\u{fffd}');
            f.write_str(match c {
                '&' => "&amp;",
                '<' => "&lt;",
                '>' => "&gt;",
                '"' => "&quot;",
                '\'' => "&#39;",
                _ => "\u{fffd}",
            })?;
            rest = &rest[at + c.len_utf8()..];
        }
        f.write_str(rest)
    }
}

/// Returns whether XML 1.0 forbids `c` in a document.
fn forbidden(c: char) -> bool {
    (c < ' ' && !matches!(c, '\t' | '\n' | '\r')) || matches!(c, '\u{fffe}' | '\u{ffff}')
}

#[cfg(test)]
mod tests {
    use super::esc;

    #[test]
    fn markup_and_control_characters_are_escaped() {
        assert_eq!(
            esc("<script>alert(1)</script> & \"x\" 'y'").to_string(),
            "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;x&quot; &#39;y&#39;"
        );
        assert_eq!(esc("a\u{0}b\tc\u{1b}").to_string(), "a\u{fffd}b\tc\u{fffd}");
        assert_eq!(esc("plain é").to_string(), "plain é");
    }
}

//! The glyphed checklist: a todo list as people read it in a terminal.
//!
//! ```text
//! Todos: 1/3 done
//!   ✓ Read the spec
//!   ▶ Write the parser
//!   ○ Test it
//! ```
//!
//! One line per todo, in list order, with a glyph per status (`[x]`, `[>]`, `[ ]` in the ASCII
//! form). With colour, the in-progress todo is bold cyan and completed ones are dimmed and struck
//! through. Content is model output, so every control character, escape sequence, carriage
//! return, backspace, and every format or default-ignorable character in it is shown as a
//! visible escape (`\u{1b}[2J`, `\u{e0001}`; see [`neutralize`]) and cannot move the cursor,
//! recolour the screen, hide text or rewrite earlier lines. Given a width (a terminal's), each line is cut to it by display width
//! (wide CJK and emoji count two columns), never by bytes; without one, each todo stays whole on
//! its line.

use std::borrow::Cow;
use std::fmt::Write;

pub use tool_runtime::text::neutralize;
use unicode_width::UnicodeWidthChar;

use crate::{Todo, TodoStatus};

const BOLD: &str = "\x1b[1m";
const HIGHLIGHT: &str = "\x1b[1;36m";
const DONE: &str = "\x1b[2;9m";
const RESET: &str = "\x1b[0m";

/// How a checklist is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChecklistStyle {
    /// ANSI colour and emphasis.
    pub color: bool,
    /// Unicode glyphs (`✓ ▶ ○`) rather than ASCII (`[x] [>] [ ]`).
    pub unicode: bool,
    /// Cut each line to this many columns; `None` keeps every todo whole.
    pub width: Option<usize>,
}

impl ChecklistStyle {
    /// Plain text: no colour, Unicode glyphs, whole lines. What a file or a pipe gets.
    pub fn plain() -> Self {
        ChecklistStyle {
            color: false,
            unicode: true,
            width: None,
        }
    }

    /// The style for an output stream: colour and the width only on a terminal, never colour
    /// when `NO_COLOR` is set (to anything but the empty string), and ASCII glyphs when the
    /// locale (`LC_ALL`, `LC_CTYPE`, `LANG`) is not UTF-8.
    pub fn for_output(is_terminal: bool, width: Option<usize>) -> Self {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|value| !value.is_empty());
        ChecklistStyle {
            color: is_terminal && !no_color,
            unicode: locale_is_utf8(),
            width: if is_terminal { width } else { None },
        }
    }
}

fn locale_is_utf8() -> bool {
    let locale = ["LC_ALL", "LC_CTYPE", "LANG"]
        .iter()
        .find_map(|name| std::env::var(name).ok().filter(|value| !value.is_empty()));
    match locale {
        // No locale said: today's terminals are UTF-8.
        None => true,
        Some(locale) => {
            let locale = locale.to_ascii_lowercase();
            locale.contains("utf-8") || locale.contains("utf8")
        }
    }
}

/// Draws `todos` as a checklist: a header with the count done out of the total, then one line
/// per todo.
///
/// ```
/// use tool_todo::{ChecklistStyle, Todo, TodoStatus, checklist};
///
/// let list = [
///     Todo::new("Read the spec", TodoStatus::Completed),
///     Todo::new("Write the parser", TodoStatus::InProgress),
///     Todo::new("Test it", TodoStatus::Pending),
/// ];
/// assert_eq!(
///     checklist(&list, &ChecklistStyle::plain()),
///     "Todos: 1/3 done\n  ✓ Read the spec\n  ▶ Write the parser\n  ○ Test it\n"
/// );
/// ```
pub fn checklist(todos: &[Todo], style: &ChecklistStyle) -> String {
    let done = todos
        .iter()
        .filter(|t| t.status == TodoStatus::Completed)
        .count();
    let mut out = String::new();
    let header = if todos.is_empty() {
        "Todos: none".to_owned()
    } else {
        format!("Todos: {done}/{} done", todos.len())
    };
    let header = cut(&header, style.width);
    if style.color {
        let _ = writeln!(out, "{BOLD}{header}{RESET}");
    } else {
        let _ = writeln!(out, "{header}");
    }
    for todo in todos {
        let glyph = match (todo.status, style.unicode) {
            (TodoStatus::Completed, true) => "✓",
            (TodoStatus::InProgress, true) => "▶",
            (TodoStatus::Pending, true) => "○",
            (TodoStatus::Completed, false) => "[x]",
            (TodoStatus::InProgress, false) => "[>]",
            (TodoStatus::Pending, false) => "[ ]",
        };
        let line = format!("  {glyph} {}", neutralize(&todo.content));
        let line = cut(&line, style.width);
        match (style.color, todo.status) {
            (true, TodoStatus::InProgress) => {
                let _ = writeln!(out, "{HIGHLIGHT}{line}{RESET}");
            }
            (true, TodoStatus::Completed) => {
                let _ = writeln!(out, "{DONE}{line}{RESET}");
            }
            _ => {
                let _ = writeln!(out, "{line}");
            }
        }
    }
    out
}

/// `line` cut to `width` display columns, with `…` where it was cut.
fn cut(line: &str, width: Option<usize>) -> Cow<'_, str> {
    let Some(width) = width else {
        return Cow::Borrowed(line);
    };
    let total: usize = line.chars().map(|c| c.width().unwrap_or(0)).sum();
    if total <= width {
        return Cow::Borrowed(line);
    }
    let mut out = String::new();
    let mut used = 0;
    for c in line.chars() {
        let w = c.width().unwrap_or(0);
        if used + w + 1 > width {
            break;
        }
        used += w;
        out.push(c);
    }
    if width > 0 {
        out.push('…');
    }
    Cow::Owned(out)
}

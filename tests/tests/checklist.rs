//! The glyphed checklist: golden forms, and content from a hostile model.

use tool_todo::{ChecklistStyle, Todo, TodoStatus, checklist};
use unicode_width::UnicodeWidthStr;

fn sample() -> Vec<Todo> {
    vec![
        Todo::new("Read the spec", TodoStatus::Completed),
        Todo::new("Write the parser", TodoStatus::InProgress),
        Todo::new("Test it — with ü and 漢字", TodoStatus::Pending),
    ]
}

const COLOR: ChecklistStyle = ChecklistStyle {
    color: true,
    unicode: true,
    width: None,
};

#[test]
fn plain_form() {
    insta::assert_snapshot!("plain", checklist(&sample(), &ChecklistStyle::plain()));
}

#[test]
fn coloured_form() {
    let drawn = checklist(&sample(), &COLOR);
    // Escapes made visible, so the golden file shows exactly what is sent.
    insta::assert_snapshot!("coloured", drawn.replace('\x1b', "<ESC>"));
}

#[test]
fn ascii_form() {
    let style = ChecklistStyle {
        unicode: false,
        ..ChecklistStyle::plain()
    };
    insta::assert_snapshot!("ascii", checklist(&sample(), &style));
}

#[test]
fn an_empty_list() {
    assert_eq!(checklist(&[], &ChecklistStyle::plain()), "Todos: none\n");
}

#[test]
fn lines_are_cut_to_the_width_by_display_columns() {
    let list = vec![
        Todo::new("漢字漢字漢字漢字漢字漢字", TodoStatus::Pending),
        Todo::new("🦀🦀🦀🦀🦀🦀🦀🦀🦀🦀🦀🦀", TodoStatus::InProgress),
        Todo::new("short", TodoStatus::Completed),
        Todo::new("a\u{1b}[31mb", TodoStatus::Completed),
    ];
    for width in [8, 13, 14, 20] {
        let style = ChecklistStyle {
            width: Some(width),
            ..ChecklistStyle::plain()
        };
        let drawn = checklist(&list, &style);
        for line in drawn.lines() {
            assert!(line.width() <= width, "{line:?} is wider than {width}");
        }
        assert_eq!(drawn.lines().count(), 5);
    }
    let style = ChecklistStyle {
        width: Some(13),
        ..ChecklistStyle::plain()
    };
    let drawn = checklist(&list, &style);
    let lines: Vec<&str> = drawn.lines().collect();
    // Two columns per CJK character: 4 columns of prefix, 4 characters, then the ellipsis.
    assert_eq!(lines[1], "  ○ 漢字漢字…");
    assert_eq!(lines[2], "  ▶ 🦀🦀🦀🦀…");
    assert_eq!(lines[3], "  ✓ short");
}

#[test]
fn hostile_content_cannot_drive_the_terminal() {
    let hostile = [
        "clear\u{1b}[2J\u{1b}[H screen",
        "\u{1b}]8;;https://evil.example\u{7}click me\u{1b}]8;;\u{7}",
        "\u{1b}]0;new title\u{7}",
        "fake\rDONE",
        "erase\u{8}\u{8}\u{8}",
        "right-to-left \u{202e}txt.exe",
        "zero\u{200b}width\u{2066}isolate",
        "line\nbreak",
        "c1 \u{9b}31m csi",
        "del\u{7f}",
    ];
    let list: Vec<Todo> = hostile
        .iter()
        .map(|c| Todo::new(*c, TodoStatus::Pending))
        .collect();
    for style in [ChecklistStyle::plain(), COLOR] {
        let drawn = checklist(&list, &style);
        let without_our_colours = drawn
            .replace("\x1b[1m", "")
            .replace("\x1b[1;36m", "")
            .replace("\x1b[2;9m", "")
            .replace("\x1b[0m", "");
        for c in without_our_colours.chars() {
            assert!(
                c == '\n'
                    || !(c.is_control()
                        || ('\u{202a}'..='\u{202e}').contains(&c)
                        || ('\u{2066}'..='\u{2069}').contains(&c)
                        || c == '\u{200b}'),
                "{c:?} reached the terminal in {drawn:?}"
            );
        }
        // Each todo stays on its own line, and shows what it held.
        assert_eq!(drawn.lines().count(), hostile.len() + 1);
        assert!(drawn.contains("clear\\u{1b}[2J\\u{1b}[H screen"));
        assert!(drawn.contains("fake\\rDONE"));
        assert!(drawn.contains("right-to-left \\u{202e}txt.exe"));
    }
}

// Regression: tag characters, the soft hyphen, the deprecated format characters, the
// interlinear annotations, the Hangul filler and the blank Braille pattern passed raw, so
// "Deploy to prod" and "Deploy to prod" followed by a tag character looked the same.
#[test]
fn every_invisible_character_is_visible() {
    let invisible = [
        '\u{e0001}',
        '\u{e0020}',
        '\u{e007f}',
        '\u{ad}',
        '\u{206a}',
        '\u{206f}',
        '\u{fff9}',
        '\u{fffb}',
        '\u{3164}',
        '\u{2800}',
        '\u{115f}',
        '\u{180b}',
        '\u{fe00}',
        '\u{1d173}',
    ];
    for c in invisible {
        let list = [
            Todo::new("Deploy to prod", TodoStatus::Pending),
            Todo::new(format!("Deploy to prod{c}"), TodoStatus::Pending),
        ];
        let drawn = checklist(&list, &ChecklistStyle::plain());
        let lines: Vec<&str> = drawn.lines().collect();
        assert_ne!(lines[1], lines[2], "U+{:04X}", c as u32);
        assert_eq!(
            lines[2],
            format!("  ○ Deploy to prod\\u{{{:x}}}", c as u32),
            "U+{:04X}",
            c as u32
        );
    }
    // Emoji keep their joiners and presentation selectors: they hide nothing.
    let emoji = "Ship it 👩\u{200d}💻 ❤\u{fe0f}";
    let drawn = checklist(
        &[Todo::new(emoji, TodoStatus::Pending)],
        &ChecklistStyle::plain(),
    );
    assert_eq!(drawn.lines().nth(1).unwrap(), format!("  ○ {emoji}"));
}

//! The key is never written out: not in an error, a note, the model's text or an event. A
//! provider may repeat it (an error that quotes the key it refused, a model told it), so
//! everything the client takes from a provider passes through [`Secret`] first.

use std::borrow::Cow;

use serde_json::Value;
use tool_wire::ModelTurn;

use crate::observer::Observer;

/// What stands where the key was.
pub(crate) const REDACTED: &str = "[redacted]";

/// Keys shorter than this are not looked for: they would mangle text and hide nothing.
const SHORTEST_KEY: usize = 4;

/// The key a client sends, to take out of whatever the provider sends back.
#[derive(Clone, Default)]
pub(crate) struct Secret(Option<String>);

impl Secret {
    pub(crate) fn new(key: Option<&str>) -> Self {
        Secret(
            key.filter(|key| key.len() >= SHORTEST_KEY)
                .map(str::to_owned),
        )
    }

    fn key(&self) -> Option<&str> {
        self.0.as_deref()
    }

    /// `text` with every occurrence of the key replaced by [`REDACTED`], and so is the start of
    /// the key where a text was cut (`…`) in the middle of it.
    pub(crate) fn redact<'t>(&self, text: &'t str) -> Cow<'t, str> {
        let Some(key) = self.key() else {
            return Cow::Borrowed(text);
        };
        let mut text = match text.contains(key) {
            true => Cow::Owned(text.replace(key, REDACTED)),
            false => Cow::Borrowed(text),
        };
        if text.contains(CUT) {
            let cut = redact_cut_key(&text, key);
            if let Some(cut) = cut {
                text = Cow::Owned(cut);
            }
        }
        text
    }

    fn redact_in_place(&self, text: &mut String) {
        if let Cow::Owned(redacted) = self.redact(text) {
            *text = redacted;
        }
    }

    /// `text`, when it is JSON whose strings hold the key (written with escapes, so the text
    /// does not), written again with the key taken out of them.
    fn redact_json_text(&self, text: &mut String) {
        if !text.contains('\\') || !text.trim_start().starts_with(['{', '[', '"']) {
            return;
        }
        let Ok(mut value) = serde_json::from_str::<Value>(text) else {
            return;
        };
        if !self.holds_key(&value) {
            return;
        }
        self.redact_value(&mut value);
        *text = value.to_string();
    }

    /// Whether a string of `value`, or a member's name, holds the key.
    fn holds_key(&self, value: &Value) -> bool {
        let Some(key) = self.key() else {
            return false;
        };
        match value {
            Value::String(text) => text.contains(key),
            Value::Array(items) => items.iter().any(|item| self.holds_key(item)),
            Value::Object(members) => members
                .iter()
                .any(|(name, member)| name.contains(key) || self.holds_key(member)),
            _ => false,
        }
    }

    /// Every string in `value`, keys included, redacted.
    pub(crate) fn redact_value(&self, value: &mut Value) {
        if self.key().is_none() {
            return;
        }
        match value {
            Value::String(text) => {
                self.redact_in_place(text);
                // A string that is JSON itself (OpenAI's arguments) may spell the key with
                // escapes of its own.
                self.redact_json_text(text);
            }
            Value::Array(items) => items.iter_mut().for_each(|item| self.redact_value(item)),
            Value::Object(members) => {
                if members
                    .keys()
                    .any(|key| matches!(self.redact(key), Cow::Owned(_)))
                {
                    *members = std::mem::take(members)
                        .into_iter()
                        .map(|(key, value)| (self.redact(&key).into_owned(), value))
                        .collect();
                }
                members
                    .values_mut()
                    .for_each(|member| self.redact_value(member));
            }
            _ => {}
        }
    }

    /// A model turn with the key taken out of its text, its calls and the message kept: the key
    /// as the provider wrote it was taken out of the bytes already; this catches it spelled
    /// with JSON escapes.
    pub(crate) fn redact_turn(&self, turn: &mut ModelTurn) {
        if self.key().is_none() {
            return;
        }
        self.redact_in_place(&mut turn.text);
        for call in &mut turn.calls {
            self.redact_in_place(&mut call.id);
            self.redact_in_place(&mut call.name);
            self.redact_in_place(&mut call.args);
            self.redact_json_text(&mut call.args);
        }
        turn.message
            .iter_mut()
            .for_each(|message| self.redact_value(message));
    }
}

/// An observer that shows streamed text with the key taken out, holding back the end of what
/// it has seen until it cannot be the start of the key (a key split across two events is still
/// found); [`Redacting::flush`] shows the rest.
pub(crate) struct Redacting<'a> {
    secret: &'a Secret,
    observer: &'a mut dyn Observer,
    held: String,
}

impl<'a> Redacting<'a> {
    pub(crate) fn new(secret: &'a Secret, observer: &'a mut dyn Observer) -> Self {
        Redacting {
            secret,
            observer,
            held: String::new(),
        }
    }

    pub(crate) fn text(&mut self, piece: &str) {
        let Some(key) = self.secret.key() else {
            self.observer.text(piece);
            return;
        };
        self.held.push_str(piece);
        self.secret.redact_in_place(&mut self.held);
        // What may still turn into the key: the longest end of the text that starts it.
        let keep = (1..key.len().min(self.held.len() + 1))
            .rev()
            .find(|&len| {
                self.held.is_char_boundary(self.held.len() - len)
                    && key.starts_with(&self.held[self.held.len() - len..])
            })
            .unwrap_or(0);
        let shown = self.held.len() - keep;
        if shown > 0 {
            self.observer.text(&self.held[..shown]);
            self.held.drain(..shown);
        }
    }

    pub(crate) fn flush(&mut self) {
        if !self.held.is_empty() {
            self.observer.text(&std::mem::take(&mut self.held));
        }
    }
}

/// Where a text was cut.
const CUT: char = '…';

/// `text` with the start of `key` taken out wherever a cut (`…`) follows one of at least
/// [`SHORTEST_KEY`] characters; `None` when there is none.
fn redact_cut_key(text: &str, key: &str) -> Option<String> {
    let shortest = SHORTEST_KEY;
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut changed = false;
    while let Some(at) = rest.find(CUT) {
        let before = &rest[..at];
        let prefix = (shortest..key.len())
            .rev()
            .filter(|&len| key.is_char_boundary(len))
            .find(|&len| before.ends_with(&key[..len]));
        match prefix {
            Some(len) => {
                out.push_str(&before[..before.len() - len]);
                out.push_str(REDACTED);
                changed = true;
            }
            None => out.push_str(before),
        }
        out.push(CUT);
        rest = &rest[at + CUT.len_utf8()..];
    }
    out.push_str(rest);
    changed.then_some(out)
}

/// A URL as a message may show it: credentials (`user:password@`) and the query, which may
/// hold a key (`?key=…`), replaced by `…`, however malformed the rest is.
pub(crate) fn shown_url(url: &str) -> String {
    let (scheme, rest) = match url.find("://") {
        Some(at) => url.split_at(at + 3),
        None => ("", url),
    };
    // Credentials end at the last `@`, wherever it is: a password may hold `/`, `?` or `#`.
    let mut shown = scheme.to_owned();
    let rest = match rest.rfind('@') {
        Some(at) => {
            shown.push('…');
            &rest[at..]
        }
        None => rest,
    };
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    shown.push_str(&rest[..authority_end]);
    let rest = &rest[authority_end..];
    match rest.find('?') {
        Some(at) => {
            shown.push_str(&rest[..at]);
            shown.push_str("?…");
        }
        None => shown.push_str(rest),
    }
    tool_runtime::text::neutralize(&shown).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_shown_without_credentials_or_query() {
        assert_eq!(
            shown_url("http://user:pw@host:1/v1?key=k#f"),
            "http://…@host:1/v1?…"
        );
        assert_eq!(shown_url("https://host/v1"), "https://host/v1");
        assert_eq!(shown_url("a:b@c d"), "…@c d");
        assert_eq!(shown_url("http://h/\u{1b}[2J"), "http://h/\\u{1b}[2J");
    }

    #[test]
    fn the_key_is_taken_out_of_text_values_and_split_streams() {
        let secret = Secret::new(Some("sk-secret"));
        assert_eq!(secret.redact("a sk-secret b"), "a [redacted] b");
        let mut value = serde_json::json!({"sk-secret": ["x sk-secret", 1]});
        secret.redact_value(&mut value);
        assert_eq!(
            value,
            serde_json::json!({"[redacted]": ["x [redacted]", 1]})
        );
        assert_eq!(Secret::new(Some("abc")).redact("abc"), "abc");

        #[derive(Default)]
        struct Shown(Vec<String>);
        impl Observer for Shown {
            fn text(&mut self, text: &str) {
                self.0.push(text.to_owned());
            }
        }
        let mut shown = Shown::default();
        let mut redacting = Redacting::new(&secret, &mut shown);
        for piece in ["Key: s", "k-se", "cret.", " sk-", "é and s"] {
            redacting.text(piece);
        }
        redacting.flush();
        assert_eq!(shown.0.concat(), "Key: [redacted]. sk-é and s");
        assert!(shown.0.iter().all(|piece| !piece.contains("sk-se")));
    }
}

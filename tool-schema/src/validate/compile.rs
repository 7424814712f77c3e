//! What a schema's texts compile to (a pattern's regular expression, a format's checker), each
//! compiled once.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// What a schema's text compiles to, or why it does not: a pattern's regular expression, a
/// format's checker.
pub(crate) type Compiled<T> = Result<Arc<T>, String>;

/// Each text compiled once: tools' schemas hold a handful of patterns and formats, shared by
/// every call.
pub(crate) struct CompileOnce<T>(OnceLock<Mutex<HashMap<String, Compiled<T>>>>);

impl<T> CompileOnce<T> {
    pub(crate) const fn new() -> Self {
        CompileOnce(OnceLock::new())
    }

    /// The compiled form of `text`, compiled by `compile` the first time it is asked for.
    pub(crate) fn get(
        &self,
        text: &str,
        compile: impl FnOnce() -> Result<T, String>,
    ) -> Compiled<T> {
        let mut cache = self
            .0
            .get_or_init(Mutex::default)
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(compiled) = cache.get(text) {
            return compiled.clone();
        }
        let compiled = compile().map(Arc::new);
        cache.insert(text.to_owned(), compiled.clone());
        compiled
    }
}

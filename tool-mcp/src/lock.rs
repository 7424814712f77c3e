//! A lock whose poisoning is ignored: what it guards is whole between statements.

use std::sync::{Mutex, PoisonError};

pub(crate) fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

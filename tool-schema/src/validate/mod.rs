//! Checking JSON values against a tool's input schema: every validation keyword the schema
//! carries, in the schema's own words ([`first_violation`]), the regular expressions of `pattern`,
//! the formats a tool asserts, and the [`Plan`] of what a tool's argument types leave to be
//! checked after they parsed, checked while they parse ([`Reader`]).
//!
//! The runtime (`tool-runtime`) parses every call through these: a host or author meets them
//! only through a tool's [`Definition`](crate::Definition).

mod alongside;
mod check;
mod compile;
mod format;
mod locate;
mod member;
mod node;
mod pattern;
mod plan;
#[cfg(test)]
mod rng;
mod scan;
mod strict;

pub use alongside::{Reader, Watch, failure_path_with, reader};
pub use check::{Violation, coerce_integers, first_violation, first_violation_in_part};
pub use locate::{Located, container_at};
pub use node::Node;
pub(crate) use pattern::check_patterns;
pub use plan::Plan;
pub(crate) use plan::{close_and_plan, implied_range};
pub use strict::StrictValue;

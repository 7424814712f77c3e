//! Checking JSON values against a tool's input schema: every validation keyword the schema
//! carries, in the schema's own words ([`check`]), the regular expressions of `pattern`
//! ([`pattern`]), the formats a tool asserts ([`format`]), and the plan of what a tool's argument types leave to be checked after they
//! parsed ([`plan`]).

mod check;
mod format;
mod pattern;
mod plan;

pub(crate) use check::{coerce_integers, first_violation};
pub(crate) use pattern::check_patterns;
pub(crate) use plan::{Plan, close_and_plan, implied_range};

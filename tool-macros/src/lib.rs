//! placeholder
use proc_macro::TokenStream;
/// placeholder
#[proc_macro_attribute]
pub fn tool(_a: TokenStream, i: TokenStream) -> TokenStream { i }

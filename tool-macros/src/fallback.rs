use proc_macro2::TokenStream;
use quote::quote;

use crate::ast::ToolFn;

/// What is emitted beside the errors when the input is invalid: the function (without the
/// parameter doc comments rustc would reject) and, where a type may stand, the tool type, so code
/// that calls the one or names the other produces no further errors.
pub(crate) fn fallback(tool: &ToolFn) -> TokenStream {
    let item = &tool.item;
    if tool.receiver.is_some() {
        // Inside an `impl` block, where a struct cannot stand.
        return quote!(#item);
    }
    let vis = &item.vis;
    let type_ident = tool.type_ident();
    quote! {
        #item

        #[derive(::core::clone::Clone, ::core::marker::Copy, ::core::fmt::Debug, ::core::default::Default)]
        #vis struct #type_ident;
    }
}

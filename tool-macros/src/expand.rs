use proc_macro2::{Literal, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::ast::{Kind, Returns, ToolFn};
use crate::param_attr::DefaultValue;

/// Generates the function, its tool type, and the type's `Tool` and `Plugin` impls. Everything is
/// named through `::tool_runtime::__private` and `::core`, so the caller's names cannot interfere.
pub(crate) fn expand(tool: &ToolFn) -> TokenStream {
    let item = &tool.item;
    let vis = &item.vis;
    let fn_ident = tool.ident();
    let type_ident = tool.type_ident();
    let name = tool.name();
    let type_doc = format!(
        "The `{name}` tool: [`{fn_ident}`](super::{fn_ident}) as a model-facing tool and plugin."
    );
    let rt = quote!(::tool_runtime::__private);

    let description = match (&tool.attrs.description, &tool.doc) {
        (Some(expr), _) => quote!(#expr),
        (None, Some(doc)) => doc.clone(),
        (None, None) => quote!(""),
    };

    let model: Vec<_> = tool
        .params
        .iter()
        .filter(|param| matches!(param.kind, Kind::Model))
        .collect();
    let model_tys: Vec<_> = model.iter().map(|param| &param.ty).collect();
    let model_names: Vec<_> = model.iter().map(|param| param.name()).collect();
    let slots: Vec<_> = (0..model.len())
        .map(|i| format_ident!("__tool_slot_{i}"))
        .collect();
    let indices: Vec<_> = (0..model.len()).map(Literal::usize_unsuffixed).collect();

    // A parameter with `#[schemars(…)]` is described by a newtype whose field carries them, so
    // they mean what they mean on a struct field.
    let mut schema_types = Vec::new();
    let arg_specs = model
        .iter()
        .enumerate()
        .map(|(index, param)| {
            let ty = &param.ty;
            let name = param.name();
            let description = match &param.doc {
                Some((doc, _)) => quote!(::core::option::Option::Some(#doc)),
                None => quote!(::core::option::Option::None),
            };
            let schema = if param.attrs.schemars.is_empty() {
                quote_spanned!(ty.span()=> <#ty as #rt::ModelArg>::schema)
            } else {
                let newtype = format_ident!("__ToolArgSchema{index}");
                let attrs = &param.attrs.schemars;
                schema_types.push(quote_spanned! {ty.span()=>
                    #[derive(#rt::schemars::JsonSchema)]
                    #[schemars(crate = "::tool_runtime::__private::schemars")]
                    #[allow(dead_code)]
                    struct #newtype(#(#attrs)* #ty);
                });
                quote!(|__generator: &mut #rt::schemars::SchemaGenerator| {
                    __generator.subschema_for::<#newtype>()
                })
            };
            let optional = if param.attrs.default.is_some() {
                quote!(|| true)
            } else {
                quote_spanned!(ty.span()=> <#ty as #rt::ModelArg>::optional)
            };
            let default = match &param.attrs.default {
                None => quote!(::core::option::Option::None),
                Some(value) => {
                    let value = match value {
                        DefaultValue::Trait => {
                            quote_spanned!(ty.span()=> <#ty as ::core::default::Default>::default())
                        }
                        DefaultValue::Path(path) => quote_spanned!(path.span()=> #path()),
                    };
                    // The default's JSON when its type is `Serialize`, else none (as schemars
                    // does for a field's default).
                    quote!(::core::option::Option::Some(|| {
                        #[allow(unused_imports)]
                        use #rt::NotSerialize as _;
                        #rt::MaybeSerialize(#value).to_default()
                    }))
                }
            };
            quote! {
                #rt::ArgSpec {
                    name: #name,
                    description: #description,
                    schema: #schema,
                    optional: #optional,
                    default: #default,
                }
            }
        })
        .collect::<Vec<_>>();

    let next_args = model.iter().map(|param| {
        let ty = &param.ty;
        match &param.attrs.default {
            None => quote_spanned!(ty.span()=> <#ty as #rt::ModelArg>::next(&mut __map)?),
            // `null` is the default, as a left-out argument is.
            Some(value) => {
                let value = match value {
                    DefaultValue::Trait => {
                        quote_spanned!(ty.span()=> <#ty as ::core::default::Default>::default())
                    }
                    DefaultValue::Path(path) => quote_spanned!(path.span()=> #path()),
                };
                quote_spanned! {ty.span()=>
                    match <::core::option::Option<#ty> as #rt::ModelArg>::next(&mut __map)? {
                        ::core::option::Option::Some(value) => value,
                        ::core::option::Option::None => #value,
                    }
                }
            }
        }
    });
    let missing_args = model.iter().map(|param| {
        let ty = &param.ty;
        let name = param.name();
        match &param.attrs.default {
            None => quote_spanned!(ty.span()=> <#ty as #rt::ModelArg>::missing(#name)?),
            Some(DefaultValue::Trait) => {
                quote_spanned!(ty.span()=> <#ty as ::core::default::Default>::default())
            }
            Some(DefaultValue::Path(path)) => quote_spanned!(path.span()=> #path()),
        }
    });

    let mut resolve = Vec::new();
    let mut call_args = Vec::new();
    let mut model_index = 0usize;
    for (index, param) in tool.params.iter().enumerate() {
        if let Kind::Model = param.kind {
            let field = Literal::usize_unsuffixed(model_index);
            call_args.push(quote!(__tool_args.#field));
            model_index += 1;
        } else {
            let ty = &param.ty;
            let local = format_ident!("__tool_context_{index}");
            let from_call = quote_spanned!(ty.span()=> <#ty as #rt::FromCall<'__tool>>::from_call);
            resolve.push(quote! {
                let #local = match #from_call(&__tool_call) {
                    ::core::result::Result::Ok(value) => value,
                    ::core::result::Result::Err(output) => return #rt::ToolFuture::ready(output),
                };
            });
            if tool.attrs.blocking.is_some() && matches!(param.ty, syn::Type::Reference(_)) {
                // The call runs on another thread: it takes the call's context along, owned.
                resolve
                    .push(quote!(let #local = <#rt::Exec as ::core::clone::Clone>::clone(#local);));
                call_args.push(quote!(&#local));
            } else {
                call_args.push(quote!(#local));
            }
        }
    }

    let invoke = quote!(#fn_ident(#(#call_args),*));
    let output_span = match &item.sig.output {
        syn::ReturnType::Default => fn_ident.span(),
        syn::ReturnType::Type(_, ty) => ty.span(),
    };
    // Spanned at the return type, so a type with no model-facing text is reported there.
    let returns = tool.returns();
    let into_output = match &returns {
        Returns::Text => {
            quote_spanned!(output_span=> #rt::IntoToolOutput::into_tool_output(__tool_result))
        }
        Returns::Data { ty, result: false } => {
            quote_spanned!(output_span=> #rt::structured_output::<#ty>(&__tool_result))
        }
        Returns::Data { ty, result: true } => quote_spanned! {output_span=>
            match __tool_result {
                ::core::result::Result::Ok(value) => #rt::structured_output::<#ty>(&value),
                ::core::result::Result::Err(error) => #rt::ToolOutput::error(error),
            }
        },
    };
    let output_schema = match &returns {
        Returns::Text => None,
        Returns::Data { ty, .. } => Some(quote_spanned! {ty.span()=>
            .with_output_schema(#rt::output_schema::<#ty>())
        }),
    };
    let run = if item.sig.asyncness.is_some() {
        quote!(#rt::ToolFuture::boxed(async move {
            let __tool_result = #invoke.await;
            #into_output
        }))
    } else if tool.attrs.blocking.is_some() {
        quote!(#rt::ToolFuture::blocking(move || {
            let __tool_result = #invoke;
            #into_output
        }))
    } else {
        quote! {
            let __tool_result = #invoke;
            #rt::ToolFuture::ready(#into_output)
        }
    };

    // A model parameter without a doc comment gets no description: said at compile time, as a
    // warning on the parameter (the `deprecated` lint is the one a macro can raise on stable).
    let undocumented = model
        .iter()
        .filter(|param| param.doc.is_none() && !tool.attrs.allow_undocumented)
        .filter_map(|param| match &param.pat {
            syn::Pat::Ident(pat) => Some(&pat.ident),
            _ => None,
        })
        .map(|ident| {
            let note = format!(
                "parameter `{}` of tool `{name}` has no doc comment, so the model sees no description of it: add a `///` comment on it, or `#[tool(allow_undocumented)]`",
                syn::ext::IdentExt::unraw(ident)
            );
            quote_spanned! {ident.span()=>
                #[deprecated(note = #note)]
                #[allow(non_upper_case_globals)]
                const #ident: () = ();
                let _ = #ident;
            }
        })
        .collect::<Vec<_>>();
    let undocumented = (!undocumented.is_empty()).then(|| {
        quote! {
            #[allow(dead_code)]
            fn __tool_parameter_docs() {
                #(#undocumented)*
            }
        }
    });

    let assert_formats = tool.attrs.assert_formats;
    let timeout = tool.attrs.timeout.as_ref().map(|(duration, _)| {
        let (secs, nanos) = (duration.as_secs(), duration.subsec_nanos());
        quote!(.with_timeout(::core::time::Duration::new(#secs, #nanos)))
    });

    let scopes = (!tool.attrs.scopes.is_empty()).then(|| {
        let scopes = &tool.attrs.scopes;
        quote!(.with_scopes(&[#(#scopes),*]))
    });

    let concurrency = tool
        .attrs
        .concurrency
        .as_ref()
        .map(|class| quote!(.with_concurrency(#rt::Concurrency::#class)));

    let needs_approval = tool
        .attrs
        .needs_approval
        .then(|| quote!(.with_needs_approval()));

    let deferred = tool.attrs.deferred.then(|| quote!(.with_deferred()));

    let asks = (!tool.attrs.asks.is_empty()).then(|| {
        let asks = &tool.attrs.asks;
        quote!(.with_asks(&[#(#rt::Asks::#asks),*]))
    });

    let task = tool
        .attrs
        .task
        .as_ref()
        .map(|support| quote!(.with_task_support(#rt::TaskSupport::#support)));

    // A tool with a context parameter that needs the owning agent (`Agent`) says so, so a
    // host can begin a session for a call that names none.
    let context_types = tool
        .params
        .iter()
        .filter(|param| matches!(param.kind, Kind::Context { .. }))
        .map(|param| &param.ty);
    let detaches_types = context_types.clone();
    let synchronous = item.sig.asyncness.is_none() && tool.attrs.blocking.is_none();
    let requires_agent = quote!(
        .with_synchronous(#synchronous)
        .with_agent_required(false #(|| <#context_types as #rt::FromCall<'_>>::REQUIRES_AGENT)*)
        .with_detaching(false #(|| <#detaches_types as #rt::FromCall<'_>>::DETACHES)*)
    );

    // The title and hints declared, and nothing else.
    let annotations = (tool.attrs.title.is_some() || !tool.attrs.hints.is_empty()).then(|| {
        let title = tool.attrs.title.iter();
        let hints = tool.attrs.hints.iter().map(|(hint, value)| {
            let method = format_ident!("with_{hint}");
            quote!(.#method(#value))
        });
        quote!(.with_annotations(#rt::Annotations::new() #(.with_title(#title))* #(#hints)*))
    });

    let services = tool.params.iter().filter_map(|param| match &param.kind {
        Kind::Context {
            injects: Some(service),
        } => Some(quote_spanned!(service.span()=> #rt::ServiceKey::of::<#service>())),
        _ => None,
    });

    // The type lives in a module of its own and is glob-imported: an item of the author's with
    // the same name shadows the import instead of colliding with it, and the one check below
    // says so, on the function, with the way out.
    let module = format_ident!(
        "__tool_{}",
        syn::ext::IdentExt::unraw(fn_ident),
        span = Span::call_site()
    );
    // As visible as the tool, and no more: a private tool's type is the crate's at most.
    let type_vis = match vis {
        syn::Visibility::Public(_) => quote!(pub),
        _ => quote!(pub(crate)),
    };
    // Named by its path from here on, wherever the glob import would also reach it.
    let generated = quote!(#module::#type_ident);
    let name_check = quote_spanned! {fn_ident.span()=>
        let _ = #rt::assert_generated_tool_type::<#type_ident>;
    };
    quote! {
        #item

        #[doc(hidden)]
        mod #module {
            #[doc = #type_doc]
            #[derive(::core::clone::Clone, ::core::marker::Copy, ::core::fmt::Debug, ::core::default::Default)]
            #type_vis struct #type_ident;
        }

        #[doc(inline)]
        #vis use #module::*;

        #[doc(hidden)]
        const _: () = {
            #[automatically_derived]
            impl #rt::GeneratedToolType for #generated {}

            #name_check

            const __TOOL_DESCRIPTION: &str = #description;
            const __TOOL_FIELDS: &[&str] = &[#(#model_names),*];

            #(#schema_types)*

            #undocumented

            struct __ToolArgs(#(#model_tys,)*);

            #[automatically_derived]
            impl<'de> #rt::serde::Deserialize<'de> for __ToolArgs {
                fn deserialize<__D>(__deserializer: __D) -> ::core::result::Result<Self, __D::Error>
                where
                    __D: #rt::serde::Deserializer<'de>,
                {
                    struct __Visitor;

                    #[automatically_derived]
                    impl<'de> #rt::serde::de::Visitor<'de> for __Visitor {
                        type Value = __ToolArgs;

                        fn expecting(&self, __f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                            ::core::fmt::Formatter::write_str(__f, "an object")
                        }

                        fn visit_map<__A>(self, mut __map: __A) -> ::core::result::Result<__ToolArgs, __A::Error>
                        where
                            __A: #rt::serde::de::MapAccess<'de>,
                        {
                            #(let mut #slots = ::core::option::Option::None;)*
                            let mut __fields = #rt::ArgFields::new(__TOOL_FIELDS);
                            while let ::core::option::Option::Some(__key) =
                                #rt::serde::de::MapAccess::next_key_seed(&mut __map, __fields)?
                            {
                                __fields = __fields.after(__key);
                                match __key {
                                    #(#indices => {
                                        if ::core::option::Option::is_some(&#slots) {
                                            return ::core::result::Result::Err(
                                                <__A::Error as #rt::serde::de::Error>::duplicate_field(#model_names),
                                            );
                                        }
                                        #slots = ::core::option::Option::Some(#next_args);
                                    })*
                                    _ => {
                                        return ::core::result::Result::Err(
                                            <__A::Error as #rt::serde::de::Error>::custom("argument index out of range"),
                                        );
                                    }
                                }
                            }
                            ::core::result::Result::Ok(__ToolArgs(#(
                                match #slots {
                                    ::core::option::Option::Some(value) => value,
                                    ::core::option::Option::None => #missing_args,
                                },
                            )*))
                        }
                    }

                    #rt::serde::Deserializer::deserialize_map(__deserializer, __Visitor)
                }
            }

            #[automatically_derived]
            impl #rt::Tool for #generated {
                fn definition(&self) -> &#rt::Definition {
                    static __TOOL_DEFINITION: #rt::DefinitionCell = #rt::DefinitionCell::new();
                    __TOOL_DEFINITION.get_or_init(|| {
                        #rt::Definition::from_args(#name, __TOOL_DESCRIPTION, &[#(#arg_specs),*], #assert_formats)
                            #annotations
                            #output_schema
                            #timeout
                            #scopes
                            #concurrency
                            #needs_approval
                            #deferred
                            #task
                            #asks
                            #requires_agent
                    })
                }

                fn call<'__tool>(&'__tool self, __tool_call: #rt::Invocation<'__tool>) -> #rt::ToolFuture<'__tool> {
                    #(#resolve)*
                    let __tool_args: __ToolArgs =
                        match #rt::parse_args(#rt::Tool::definition(self), __tool_call.args) {
                            ::core::result::Result::Ok(args) => args,
                            ::core::result::Result::Err(output) => return #rt::ToolFuture::ready(output),
                        };
                    #run
                }
            }

            #[automatically_derived]
            impl #rt::Plugin for #generated {
                const NAME: &'static str = #name;
                const INJECT: &'static [#rt::ServiceKey] = &[#(#services),*];

                fn apply(__ctx: &mut #rt::Ctx) -> ::core::result::Result<(), #rt::LoadError> {
                    __ctx.tools.register(#generated)
                }
            }
        };
    }
}

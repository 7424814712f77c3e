//! The author's small cuts behind hooks, served by a host of the author's own: `reset` is denied,
//! a `page` of more than 20 is asked for 20, `forget` of the key "number" is rewritten into
//! arguments its schema refuses, and `exact true` is redacted from what `page` answers.

use std::process::ExitCode;

use author_crate::cuts;
use serde_json::Value;
use tool_runtime::hook::{self, Before};

fn main() -> ExitCode {
    tool_host::Host::new("author-guarded")
        .plugin::<cuts::Page>()
        .plugin::<cuts::Reset>()
        .plugin::<cuts::Forget>()
        .hook(hook::before_call(|call| match call.tool() {
            "reset" => Before::Deny("reset is not allowed on this host".into()),
            "page" => {
                let mut args: Value = serde_json::from_str(call.args()).unwrap_or_default();
                match args["size"].as_u64() {
                    Some(size) if size > 20 => {
                        args["size"] = 20.into();
                        Before::Rewrite(args.to_string())
                    }
                    _ => Before::Allow,
                }
            }
            "forget" if call.args().contains("\"number\"") => {
                Before::Rewrite(r#"{"key": 42}"#.into())
            }
            _ => Before::Allow,
        }))
        .hook(hook::after_call(|call, mut output| {
            if call.tool() == "page" {
                output.text = output.text.replace("exact true", "exact [redacted]");
            }
            output
        }))
        .main()
}

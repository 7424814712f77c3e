//! `toolhost`: the reference host, serving `todo_write`. See [`tool_host::Host`] for the commands;
//! a host of other tools is the same few lines with its own plugins.

use std::process::ExitCode;

fn main() -> ExitCode {
    tool_host::Host::new("toolhost")
        .plugin::<tool_todo::TodoWrite>()
        .main()
}

//! A host its author named owns its command line: its environment variables are its own
//! (`AUTHOR_HOST_STORE`, not `TOOLHOST_STORE`) and no help text names another program.

use std::process::Command;

const HOST: &str = env!("CARGO_BIN_EXE_author-host");

fn help(args: &[&str]) -> String {
    let output = Command::new(HOST).args(args).arg("--help").output().unwrap();
    assert!(output.status.success(), "{args:?}");
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn no_help_text_says_toolhost() {
    let top = help(&[]);
    let commands: Vec<&str> = top
        .lines()
        .skip_while(|line| !line.starts_with("Commands:"))
        .skip(1)
        .take_while(|line| line.starts_with("  "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|command| *command != "help")
        .collect();
    assert!(commands.contains(&"mcp") && commands.len() >= 5, "{top}");
    for args in std::iter::once(vec![]).chain(commands.iter().map(|command| vec![*command])) {
        let text = help(&args);
        assert!(
            !text.contains("toolhost") && !text.contains("TOOLHOST"),
            "`author-host {} --help` says toolhost:\n{text}",
            args.join(" ")
        );
        assert!(text.contains("author-host"), "{text}");
    }
    let mcp = help(&["mcp"]);
    for variable in ["AUTHOR_HOST_STORE", "AUTHOR_HOST_AUTH_TOKENS", "AUTHOR_HOST_AUTH_ISSUER"] {
        assert!(mcp.contains(variable), "{variable} in:\n{mcp}");
    }
}

#[test]
fn the_store_is_read_from_the_hosts_own_variable() {
    let dir = std::env::temp_dir().join(format!("author-owned-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let call = |variable: &str| {
        Command::new(HOST)
            .args(["call", "weather", r#"{"city": "Oslo"}"#])
            .env_remove("TOOLHOST_STORE")
            .env_remove("AUTHOR_HOST_STORE")
            .env(variable, "postgres://postgres@127.0.0.1:1/none")
            .env("HOME", &dir)
            .output()
            .unwrap()
    };
    // This host is built without PostgreSQL: a store named in its own variable is refused.
    let own = call("AUTHOR_HOST_STORE");
    assert_eq!(own.status.code(), Some(2), "{own:?}");
    assert!(
        String::from_utf8_lossy(&own.stderr).contains("built without PostgreSQL"),
        "{own:?}"
    );
    // Another program's variable is not this host's to read.
    let other = call("TOOLHOST_STORE");
    assert_eq!(other.status.code(), Some(0), "{other:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

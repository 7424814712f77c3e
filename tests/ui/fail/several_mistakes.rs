use tool_runtime::tool;

#[tool(nme = "x", name = "bad name", name = "again")]
const fn many<T>((a, b): (u8, u8)) -> u8 {
    a + b
}

fn main() {}

"""An MCP server of many tools, built on the pinned Python MCP SDK (its MCPServer), on standard
input and output, for the tests of deferred tools: `python many_tools.py SET LOG`.

SET is `crm`, `ops` or `docs`: each a set of generated tools (a verb of the set's for each of its
things: `create_invoice`, `archive_ticket`…), 200 across the three; `ops` has `weather_forecast`
too, the one a search finds. Every tools/call that reaches it is appended to LOG as a JSON line.
"""

import json
import sys

from mcp.server.mcpserver import MCPServer

SET, LOG = sys.argv[1], sys.argv[2]

VERBS = ["create", "update", "delete", "archive", "export", "list", "merge", "assign"]
THINGS = {
    "crm": ["invoice", "customer", "lead", "contract", "quote", "payment", "refund", "account",
            "contact"],
    "ops": ["deployment", "alarm", "server", "volume", "backup", "certificate", "queue",
            "firewall"],
    "docs": ["page", "comment", "attachment", "template", "folder", "draft", "revision",
             "label"],
}

server = MCPServer(f"{SET}-tools", log_level="WARNING")


def logged(name):
    def call(id: str, note: str | None = None) -> str:
        with open(LOG, "a", encoding="utf-8") as log:
            log.write(json.dumps({"tool": name, "arguments": {"id": id, "note": note}}) + "\n")
        return f"{name} {id}"
    return call


count = {"crm": 72, "ops": 63, "docs": 64}[SET]
made = 0
for thing in THINGS[SET]:
    for verb in VERBS:
        if made == count:
            break
        name = f"{verb}_{thing}"
        server.add_tool(logged(name), name=name,
                        description=f"{verb.capitalize()}s the {thing} of the given id, "
                                    f"in the {SET} system.")
        made += 1

if SET == "ops":
    def weather_forecast(city: str, days: int = 3) -> str:
        """Forecasts the weather of a city for the coming days."""
        with open(LOG, "a", encoding="utf-8") as log:
            log.write(json.dumps({"tool": "weather_forecast",
                                  "arguments": {"city": city, "days": days}}) + "\n")
        return f"Sunny in {city} for {days} days"

    server.add_tool(weather_forecast)

if __name__ == "__main__":
    server.run("stdio")

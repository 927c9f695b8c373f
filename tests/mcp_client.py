"""A real MCP client for tests/mcp.rs: the official MCP Python SDK (`mcp`,
installed into .tools/mcp by scripts/install-test-tools.sh) starts
`run-check mcp` over stdio, initializes, lists the tools, then follows a
plan and prints what the server answered, as one JSON document, for the
Rust test to assert on.

Usage: python mcp_client.py RUN_CHECK WORKTREE PLAN_JSON

PLAN_JSON is a list of steps: {"call": TOOL, "args": {...}} calls a tool;
{"write": PATH, "text": TEXT} writes a file between calls (the agent's
edit); {"cancel": TOOL, "args": {...}, "when": PATH} calls a tool and,
once PATH exists (a check writes it when it starts), abandons the call,
which makes the SDK send `notifications/cancelled` for it;
{"gone": PATH} waits until the process whose id PATH holds has ended. A
protocol error of a call (an unknown tool) is recorded, not raised.

The SDK itself checks each result's structured content against the
tool's `outputSchema` (a result that does not match raises, and the
client fails); each result is also checked here with jsonschema, against
the schema as listed, and the errors recorded (`schema_errors`, null when
the tool declares no schema).
"""

import asyncio
import json
import os
import sys

import anyio
from jsonschema.validators import validator_for

from mcp import ClientSession, MCPError, StdioServerParameters
from mcp.client.stdio import stdio_client


def schema_errors(schema, result):
    """The messages of every way `result`'s structured content breaks
    `schema` (draft 2020-12, checked first); null without a schema."""
    if schema is None:
        return None
    validator = validator_for(schema)
    validator.check_schema(schema)
    if result.is_error and result.structured_content is None:
        return []
    errors = validator(schema).iter_errors(result.structured_content)
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors]


async def main(server: str, worktree: str, plan: list) -> list:
    params = StdioServerParameters(command=server, args=["mcp", "--worktree", worktree], cwd=worktree)
    out = []
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            out.append(
                {
                    "step": "initialize",
                    "server": init.server_info.name,
                    "protocol_version": init.protocol_version,
                    "tools_capability": init.capabilities.tools is not None,
                    "instructions": init.instructions,
                }
            )
            listed = await session.list_tools()
            out.append(
                {
                    "step": "list_tools",
                    "tools": [
                        {"name": t.name, "input_schema": t.input_schema, "output_schema": t.output_schema}
                        for t in listed.tools
                    ],
                }
            )
            schemas = {t.name: t.output_schema for t in listed.tools}
            for step in plan:
                if "write" in step:
                    with open(step["write"], "w", encoding="utf-8") as f:
                        f.write(step["text"])
                    continue
                if "cancel" in step:
                    finished = []
                    async with anyio.create_task_group() as group:

                        async def call():
                            await session.call_tool(step["cancel"], step.get("args", {}))
                            finished.append(True)

                        group.start_soon(call)
                        while not os.path.exists(step["when"]) and not finished:
                            await anyio.sleep(0.05)
                        group.cancel_scope.cancel()
                    out.append({"step": "cancel", "finished_first": bool(finished)})
                    continue
                if "gone" in step:
                    while not os.path.exists(step["gone"]):
                        await anyio.sleep(0.05)
                    pid = int(open(step["gone"], encoding="utf-8").read().split()[0])
                    while True:
                        try:
                            os.kill(pid, 0)
                        except ProcessLookupError:
                            break
                        await anyio.sleep(0.05)
                    out.append({"step": "gone", "pid": pid})
                    continue
                try:
                    result = await session.call_tool(step["call"], step.get("args", {}))
                except MCPError as err:
                    out.append({"step": step["call"], "protocol_error": str(err)})
                    continue
                out.append(
                    {
                        "step": step["call"],
                        "is_error": result.is_error,
                        "text": "\n".join(c.text for c in result.content if c.type == "text"),
                        "structured": result.structured_content,
                        "schema_errors": schema_errors(schemas.get(step["call"]), result),
                    }
                )
    return out


if __name__ == "__main__":
    answers = asyncio.run(main(sys.argv[1], sys.argv[2], json.loads(sys.argv[3])))
    json.dump(answers, sys.stdout)

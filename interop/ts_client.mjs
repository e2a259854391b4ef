// Interop probe: the official TypeScript MCP client drives a server given
// on the command line and prints what it saw as one JSON object, which the
// Go interop tests assert on.
//
//   node ts_client.mjs [--raw] [--resources] [--read URI]... [--subscribe URI]
//                      [--call NAME ARGS_JSON]... -- COMMAND [ARG]...
//
// --raw adds each tool exactly as the client parsed it ("raw", a JSON
// string) and each call's whole result ("result"). --resources lists
// resources and resource templates, --read reads a URI ("reads": text or
// error), --subscribe subscribes to a URI before the calls and, after them,
// waits (up to 60 s) for the server's resources/updated for it ("updated").
//
// The child inherits this process's full environment (the SDK's default
// is a filtered one) so tests can steer it with variables.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

function parseArgs(argv) {
  const calls = [];
  const reads = [];
  let raw = false;
  let resources = false;
  let subscribe;
  let i = 0;
  for (; i < argv.length && argv[i] !== "--"; i++) {
    if (argv[i] === "--raw") {
      raw = true;
    } else if (argv[i] === "--resources") {
      resources = true;
    } else if (argv[i] === "--read") {
      reads.push(argv[++i]);
    } else if (argv[i] === "--subscribe") {
      subscribe = argv[++i];
    } else if (argv[i] === "--call") {
      calls.push({ name: argv[i + 1], args: JSON.parse(argv[i + 2] ?? "{}") });
      i += 2;
    } else {
      throw new Error(`unknown flag ${argv[i]}`);
    }
  }
  const command = argv.slice(i + 1);
  if (command.length === 0) throw new Error("usage: ts_client.mjs [--call NAME ARGS]... -- COMMAND [ARG]...");
  return { calls, command, raw, resources, reads, subscribe };
}

async function main() {
  const { calls, command, raw, resources, reads, subscribe } = parseArgs(process.argv.slice(2));
  const transport = new StdioClientTransport({
    command: command[0],
    args: command.slice(1),
    env: { ...process.env },
    stderr: "ignore",
  });
  const client = new Client({ name: "mcpsec-interop-ts", version: "0.0.0" });
  let updated;
  const gotUpdate = new Promise((resolve) => {
    updated = resolve;
  });
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    if (n.params.uri === subscribe) updated(n.params.uri);
  });
  await client.connect(transport);
  const out = {
    server: client.getServerVersion(),
    instructions: client.getInstructions() ?? "",
    tools: [],
    calls: [],
  };
  let cursor;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    for (const t of page.tools) {
      const entry = { name: t.name, description: t.description ?? "" };
      if (raw) entry.raw = JSON.stringify(t);
      out.tools.push(entry);
    }
    cursor = page.nextCursor;
  } while (cursor);
  if (resources) {
    out.resources = (await client.listResources()).resources.map((r) => r.uri);
    out.templates = (await client.listResourceTemplates()).resourceTemplates.map((r) => r.uriTemplate);
  }
  out.reads = [];
  for (const uri of reads) {
    try {
      const res = await client.readResource({ uri });
      out.reads.push({ uri, text: res.contents.map((c) => c.text ?? "").join("\n") });
    } catch (err) {
      out.reads.push({ uri, error: String(err?.message ?? err) });
    }
  }
  if (subscribe) await client.subscribeResource({ uri: subscribe });
  for (const c of calls) {
    const res = await client.callTool({ name: c.name, arguments: c.args });
    const text = (res.content ?? []).filter((b) => b.type === "text").map((b) => b.text).join("\n");
    const entry = { name: c.name, text, isError: res.isError === true };
    if (raw) entry.result = JSON.stringify(res);
    out.calls.push(entry);
  }
  if (subscribe) {
    let timer;
    const bound = new Promise((resolve) => {
      timer = setTimeout(() => resolve(null), 60000);
    });
    out.updated = await Promise.race([gotUpdate, bound]);
    clearTimeout(timer);
  }
  await client.close();
  process.stdout.write(JSON.stringify(out) + "\n");
}

main().catch((err) => {
  process.stderr.write(`ts_client: ${err?.stack ?? err}\n`);
  process.exit(1);
});

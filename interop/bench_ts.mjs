// Baseline for mcpconn's stdio benchmarks: the official TypeScript client
// calling a tool of a stdio server N times, and spawning + initializing +
// listing M times. Prints one JSON object.
//
//   node bench_ts.mjs [--calls N] [--starts M] [-- COMMAND [ARG]...]
//
// Without a command it drives @modelcontextprotocol/server-everything's
// echo tool, i.e. TypeScript on both ends.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { fileURLToPath } from "node:url";
import path from "node:path";

const here = path.dirname(fileURLToPath(import.meta.url));
let calls = 2000;
let starts = 20;
let command = [process.execPath, path.join(here, "node_modules/@modelcontextprotocol/server-everything/dist/index.js"), "stdio"];
let tool = "echo";
let args = { message: "ping" };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === "--calls") calls = Number(argv[++i]);
  else if (argv[i] === "--starts") starts = Number(argv[++i]);
  else if (argv[i] === "--tool") tool = argv[++i];
  else if (argv[i] === "--args") args = JSON.parse(argv[++i]);
  else if (argv[i] === "--") { command = argv.slice(i + 1); break; }
  else throw new Error(`unknown flag ${argv[i]}`);
}

async function open() {
  const transport = new StdioClientTransport({ command: command[0], args: command.slice(1), env: { ...process.env }, stderr: "ignore" });
  const client = new Client({ name: "mcpsec-bench-ts", version: "0.0.0" });
  await client.connect(transport);
  return client;
}

const client = await open();
for (let i = 0; i < 200; i++) await client.callTool({ name: tool, arguments: args }); // warm-up
let t0 = process.hrtime.bigint();
for (let i = 0; i < calls; i++) await client.callTool({ name: tool, arguments: args });
const callNs = Number(process.hrtime.bigint() - t0);
await client.close();

t0 = process.hrtime.bigint();
for (let i = 0; i < starts; i++) {
  const c = await open();
  await c.listTools();
  await c.close();
}
const startNs = Number(process.hrtime.bigint() - t0);

process.stdout.write(JSON.stringify({
  server: command.join(" "),
  calls,
  calls_per_s: Math.round(calls / (callNs / 1e9)),
  us_per_call: Math.round(callNs / calls / 1e3),
  starts,
  ms_per_start_list: +(startNs / starts / 1e6).toFixed(1),
}) + "\n");

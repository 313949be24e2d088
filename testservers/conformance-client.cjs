// Runs mcpbind as the client of one @modelcontextprotocol/conformance
// scenario: `node conformance-client.cjs MCPBIND ARG... URL`. The suite
// passes a scenario's credentials in MCP_CONFORMANCE_CONTEXT (JSON:
// client_id, client_secret, private_key_pem); they are handed to mcpbind
// as flags naming environment variables, never on the command line.
const { spawnSync } = require("node:child_process");

const [bin, ...args] = process.argv.slice(2);
const url = args.pop();
const ctx = process.env.MCP_CONFORMANCE_CONTEXT ? JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT) : {};
const env = { ...process.env };
const flags = [];
if (ctx.client_id) flags.push("--oauth-client-id", ctx.client_id);
if (ctx.client_secret) {
  env.CONFORMANCE_CLIENT_SECRET = ctx.client_secret;
  flags.push("--oauth-client-secret-env", "CONFORMANCE_CLIENT_SECRET");
}
if (ctx.private_key_pem) {
  env.CONFORMANCE_PRIVATE_KEY = ctx.private_key_pem;
  flags.push("--oauth-private-key-env", "CONFORMANCE_PRIVATE_KEY");
}
// The subcommand stays first; the context's flags follow it. The
// pseudo-subcommand "login+call" runs `mcpbind login URL`, then `mcpbind
// call ARG... URL`, which must use the kept login.
function run(argv) {
  const r = spawnSync(bin, argv, { env, stdio: "inherit" });
  if (r.error) {
    console.error("conformance-client: " + r.error.message);
    process.exit(1);
  }
  if (r.status !== 0) process.exit(r.status === null ? 1 : r.status);
}
let [sub, ...rest] = args;
if (sub === "login+call") {
  run(["login", ...flags, url]);
  sub = "call";
}
if (sub === "no-browser") {
  // `mcpbind call --no-browser …` prints the authorization URL on stderr
  // instead of opening a browser; play the person who opens it.
  const { spawn } = require("node:child_process");
  delete env.BROWSER;
  const child = spawn(bin, ["call", "--no-browser", ...flags, ...rest, url], { env, stdio: ["ignore", "inherit", "pipe"] });
  let seen = "";
  let opened = false;
  child.stderr.on("data", (d) => {
    process.stderr.write(d);
    seen += d.toString();
    const m = seen.match(/^ {2}(http\S+)$/m);
    if (m && !opened) {
      opened = true;
      fetch(m[1], { redirect: "follow" }).catch((e) => console.error("conformance-client: " + e.message));
    }
  });
  child.on("close", (code) => process.exit(code === null ? 1 : code));
} else {
  run([sub, ...flags, ...rest, url]);
}

// listen-loopback.js: run an npm HTTP test server on 127.0.0.1 and a free port,
// and say which.
//
// Preloaded with `PORT=0 node --require ./testservers/listen-loopback.js SERVER…`
// (testservers/testenv does it for @modelcontextprotocol/server-everything's
// `sse` and `streamableHttp` modes, which call app.listen(process.env.PORT)):
//
//   - a TCP listen that names no address binds 127.0.0.1 instead of every
//     interface (net.Server.prototype._listen2 is patched, the step that binds
//     once the address is known; listens on a given address, a Unix socket or
//     a file descriptor are left alone);
//   - once such a server listens, the line "listening on http://127.0.0.1:PORT"
//     is written to stderr, the form testservers/testenv waits for.
"use strict";

const net = require("node:net");

const LOOPBACK = "127.0.0.1";
const listen2 = net.Server.prototype._listen2;
if (typeof listen2 !== "function") {
  throw new Error("listen-loopback.js: this Node.js has no net.Server.prototype._listen2 to patch");
}

net.Server.prototype._listen2 = function (address, port, addressType, backlog, fd, flags) {
  if (!address && typeof fd !== "number") {
    address = LOOPBACK;
    addressType = 4;
    this.once("listening", () => {
      const a = this.address();
      if (a && typeof a === "object") {
        process.stderr.write(`listening on http://${LOOPBACK}:${a.port}\n`);
      }
    });
  }
  return listen2.call(this, address, port, addressType, backlog, fd, flags);
};

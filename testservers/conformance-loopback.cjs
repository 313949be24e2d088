// conformance-loopback.cjs: keep the conformance suite's test servers on
// 127.0.0.1.
//
// The scenarios of @modelcontextprotocol/conformance call server.listen(0)
// (or express's app.listen(0)), which binds every interface, and read
// server.address().port right away. Preloaded with
// `node --require ./testservers/conformance-loopback.cjs …`, this file makes
// a TCP listen that names no address bind 127.0.0.1 instead. The scenarios
// still announce http://localhost:PORT, which resolves to 127.0.0.1.
//
// It patches net.Server.prototype._listen2, the step that binds once the
// address is known, rather than listen(): passing a host to listen() makes
// Node.js resolve it asynchronously, so address() would be null when the
// scenarios read it. Listens on a given address, a Unix socket path or a
// file descriptor are left alone.
"use strict";

const net = require("node:net");

const LOOPBACK = "127.0.0.1";
const listen2 = net.Server.prototype._listen2;
if (typeof listen2 !== "function") {
  throw new Error("conformance-loopback.cjs: this Node.js has no net.Server.prototype._listen2 to patch");
}

net.Server.prototype._listen2 = function (address, port, addressType, backlog, fd, flags) {
  if (!address && typeof fd !== "number") {
    address = LOOPBACK;
    addressType = 4;
  }
  return listen2.call(this, address, port, addressType, backlog, fd, flags);
};

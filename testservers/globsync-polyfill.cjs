// globsync-polyfill.cjs: fs.globSync for Node.js 20.
//
// @modelcontextprotocol/conformance 0.1.16 imports { globSync } from "fs",
// which Node.js added in 22. Preload this file to run it on Node.js 20:
//
//   node --require ./testservers/globsync-polyfill.cjs \
//        testservers/node_modules/@modelcontextprotocol/conformance/dist/index.js …
//
// On a Node.js that has fs.globSync it does nothing. Otherwise it sets
// fs.globSync to the small implementation below and registers an ES module
// resolve hook (module.register, Node.js 20.6+) that gives ES modules
// importing "fs" or "node:fs" a facade that adds the globSync named export:
// the named exports of a built-in module are fixed when it is first loaded,
// so setting the property alone does not make `import { globSync } from
// "fs"` link.
//
// globSync(pattern | patterns, { cwd, exclude }) returns the paths under cwd
// (default: process.cwd()), relative to it and with "/" separators, that
// match a pattern: "**" matches any number of folders, "*" any run of
// characters but "/", "?" one such character, "[…]" a class and "{a,b}"
// alternatives. It does not follow symbolic links to folders. That is what
// the conformance suite needs (it looks for "**/checks.json").
"use strict";

const fs = require("node:fs");
const path = require("node:path");

/** Translates one glob path segment into a regular expression source. */
function segmentSource(seg) {
  let out = "";
  for (let i = 0; i < seg.length; i++) {
    const c = seg[i];
    if (c === "*") {
      out += "[^/]*";
    } else if (c === "?") {
      out += "[^/]";
    } else if (c === "[") {
      const end = seg.indexOf("]", i + 1);
      if (end < 0) {
        out += "\\[";
      } else {
        let body = seg.slice(i + 1, end).replace(/\\/g, "\\\\");
        if (body.startsWith("!")) body = "^" + body.slice(1);
        out += "[" + body + "]";
        i = end;
      }
    } else if (c === "{") {
      const end = seg.indexOf("}", i + 1);
      if (end < 0) {
        out += "\\{";
      } else {
        out += "(?:" + seg.slice(i + 1, end).split(",").map(segmentSource).join("|") + ")";
        i = end;
      }
    } else {
      out += c.replace(/[.+^$()|\\]/g, "\\$&");
    }
  }
  return out;
}

/** Translates a glob pattern into an anchored regular expression. */
function patternRegExp(pattern) {
  const segs = pattern.split("/").filter((s, i) => s !== "" || i === 0);
  let src = "";
  segs.forEach((seg, i) => {
    const last = i === segs.length - 1;
    if (seg === "**") {
      src += last ? ".*" : "(?:[^/]+/)*";
    } else {
      src += segmentSource(seg) + (last ? "" : "/");
    }
  });
  return new RegExp("^" + src + "$");
}

/** Lists every file and folder under root, relative to it, depth first. */
function walk(root) {
  const found = [];
  const visit = (rel) => {
    let entries;
    try {
      entries = fs.readdirSync(rel === "" ? root : path.join(root, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = rel === "" ? e.name : rel + "/" + e.name;
      found.push(p);
      if (e.isDirectory()) visit(p);
    }
  };
  visit("");
  return found;
}

/** fs.globSync as far as this file implements it (see the header). */
function globSync(patterns, options = {}) {
  const list = Array.isArray(patterns) ? patterns : [patterns];
  const cwd = options.cwd ? String(options.cwd) : process.cwd();
  const res = list.map((p) => patternRegExp(String(p).replace(/\\/g, "/").replace(/^\.\//, "")));
  const exclude = typeof options.exclude === "function" ? options.exclude : () => false;
  return walk(cwd).filter((p) => res.some((re) => re.test(p)) && !exclude(p));
}

if (typeof fs.globSync !== "function") {
  fs.globSync = globSync;

  // The facade re-exports node:fs and adds globSync; the hook sends ES
  // module imports of "fs" to it, except the facade's own import.
  const facade =
    'import fs from "node:fs";\n' +
    'export * from "node:fs";\n' +
    "export default fs;\n" +
    "export const globSync = fs.globSync;\n";
  const facadeURL = "data:text/javascript," + encodeURIComponent(facade);
  const hooks =
    "export async function resolve(specifier, context, next) {\n" +
    '  if ((specifier === "fs" || specifier === "node:fs") && context.parentURL !== ' +
    JSON.stringify(facadeURL) +
    ") {\n" +
    "    return { url: " +
    JSON.stringify(facadeURL) +
    ", shortCircuit: true };\n" +
    "  }\n" +
    "  return next(specifier, context);\n" +
    "}\n";
  const { register } = require("node:module");
  if (typeof register !== "function") {
    throw new Error("globsync-polyfill.cjs needs Node.js 20.6 or later (module.register)");
  }
  register("data:text/javascript," + encodeURIComponent(hooks));
}

module.exports = { globSync };

// A $BROWSER for the tests of mcpbind's OAuth login: it GETs the
// authorization URL given as its argument and follows the redirects, which
// the conformance suite's authorization server answers at once with a
// redirect to mcpbind's loopback callback, so the flow completes without a
// person. It exits 0 when the last answer is 2xx.
const url = process.argv[2];
if (!url) {
  console.error("test-browser: no URL");
  process.exit(2);
}
fetch(url, { redirect: "follow" }).then(
  (r) => process.exit(r.ok ? 0 : 1),
  (e) => {
    console.error("test-browser: " + e.message);
    process.exit(1);
  },
);
